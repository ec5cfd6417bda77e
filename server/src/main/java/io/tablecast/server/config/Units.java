package io.tablecast.server.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The configuration's written forms of durations, byte sizes and booleans, parsed once at the edge
 * by {@link ConfigMapper}. Each parser throws {@link IllegalArgumentException} whose message starts
 * with {@code "must be"}, for the caller to put the key in front.
 */
public final class Units {

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB)?");

  private Units() {}

  /**
   * Parses {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 2d} or ISO-8601 {@code
   * PT10S}.
   */
  public static Duration parseDuration(String s) {
    String t = s.trim();
    Matcher m = DURATION.matcher(t);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      return Duration.parse(t);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "must be a duration like 500ms, 10s, 5m, 1h or 1d, was '" + s + "'", e);
    }
  }

  /** Parses a byte count: {@code 1048576}, {@code 512KiB}, {@code 64MiB}, {@code 1GiB}. */
  public static long parseSize(String s) {
    Matcher m = SIZE.matcher(s.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "must be a byte count like 1048576, 512KiB, 64MiB or 1GiB, was '" + s + "'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2) == null ? "B" : m.group(2)) {
      case "KiB" -> n << 10;
      case "MiB" -> n << 20;
      case "GiB" -> n << 30;
      default -> n;
    };
  }

  /**
   * Parses {@code true}/{@code false}, {@code yes}/{@code no}, {@code on}/{@code off}, {@code
   * 1}/{@code 0}.
   */
  public static boolean parseBoolean(String s) {
    return switch (s.trim().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "on", "1" -> true;
      case "false", "no", "off", "0" -> false;
      default -> throw new IllegalArgumentException("must be true or false, was '" + s + "'");
    };
  }
}

package io.tablecast.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Parses {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, {@code 0} and ISO-8601 ({@code PT2S}).
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h)?");

  /**
   * {@code d} as one would type it: {@code 30s}, {@code 5m}, {@code 1h}, {@code 500ms}, in the
   * largest unit it is a whole number of; ISO-8601 for the rest ({@code PT0.0005S}).
   */
  static String format(Duration d) {
    if (d.isZero()) {
      return "0";
    }
    if (d.isNegative() || d.toNanosPart() % 1_000_000 != 0) {
      return d.toString();
    }
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }

  @Override
  public Duration convert(String value) {
    String v = value.trim();
    if (v.startsWith("P") || v.startsWith("p")) {
      return Duration.parse(v);
    }
    Matcher m = SIMPLE.matcher(v);
    if (!m.matches()) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration; use e.g. 500ms, 2s, 5m, 1h or PT2S");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? (n == 0 ? "s" : "") : m.group(2);
    switch (unit) {
      case "ms":
        return Duration.ofMillis(n);
      case "s":
        return Duration.ofSeconds(n);
      case "m":
        return Duration.ofMinutes(n);
      case "h":
        return Duration.ofHours(n);
      default:
        throw new CommandLine.TypeConversionException(
            "'" + value + "' has no unit; use e.g. 500ms, 2s, 5m, 1h");
    }
  }
}

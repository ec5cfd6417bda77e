package io.tablecast.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One line an external client of figure 1 sends the bench, parsed: {@code {"ready":ROWS}} once its
 * mirror is ready, then one line per changed row carrying the row's {@code version} column, either
 * as {@code tablecast watch} prints a change ({@code
 * {"op":"UPDATE",...,"after":{...,"version":N}}}) or as the JavaScript clients of {@code bench/js}
 * print it ({@code {"version":N,"at":MS}}, where {@code at} is the client's wall clock in ms when
 * its change listener ran).
 *
 * @param ready true for the ready line (then {@code version} is -1)
 * @param version the row's {@code version} column
 * @param emittedAtMillis the client's wall-clock time of the change in ms, NaN when not sent
 */
record VersionLine(boolean ready, long version, double emittedAtMillis) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Parses one line.
   *
   * @throws IllegalArgumentException naming the line when it is not JSON or carries neither a ready
   *     mark nor a whole-number version
   */
  static VersionLine parse(String line) {
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "not a JSON line: " + abbreviated(line) + " (" + e.getOriginalMessage() + ")", e);
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("not a JSON object: " + abbreviated(line));
    }
    if (node.has("ready")) {
      return new VersionLine(true, -1, Double.NaN);
    }
    JsonNode row = node.has("after") ? node.get("after") : node;
    JsonNode version = row == null ? null : row.get("version");
    if (version == null || version.isNull()) {
      throw new IllegalArgumentException(
          "line carries no version (expected \"version\" or \"after\".\"version\"): "
              + abbreviated(line));
    }
    JsonNode at = node.get("at");
    return new VersionLine(
        false,
        wholeNumber(version, line),
        at != null && at.isNumber() ? at.asDouble() : Double.NaN);
  }

  /** The protocol sends BIGINT as a JSON number or, beyond 2^53 in JavaScript, as a string. */
  private static long wholeNumber(JsonNode version, String line) {
    if (version.isIntegralNumber() && version.canConvertToLong()) {
      return version.longValue();
    }
    if (version.isTextual()) {
      try {
        return Long.parseLong(version.textValue());
      } catch (NumberFormatException e) {
        // reported below
      }
    }
    throw new IllegalArgumentException(
        "version is not a whole number: " + version + " in " + abbreviated(line));
  }

  private static String abbreviated(String line) {
    return line.length() <= 200 ? "'" + line + "'" : "'" + line.substring(0, 200) + "...'";
  }
}

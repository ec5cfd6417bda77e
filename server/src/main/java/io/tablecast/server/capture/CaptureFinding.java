package io.tablecast.server.capture;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One line of what {@code tablecast check} found about a configuration: a table, the outbox, a
 * privilege, the capture of a table, a running server.
 *
 * @param severity {@link Severity#ERROR} stops {@code serve}
 * @param subject what the line is about: {@code schema.table}, {@code outbox}, {@code privileges},
 *     ...
 * @param message what was found and, for a problem, the way out
 */
public record CaptureFinding(Severity severity, String subject, String message) {

  /** How much a finding matters. */
  public enum Severity {
    OK,
    INFO,
    WARN,
    ERROR
  }

  public static CaptureFinding ok(String subject, String message) {
    return new CaptureFinding(Severity.OK, subject, message);
  }

  public static CaptureFinding info(String subject, String message) {
    return new CaptureFinding(Severity.INFO, subject, message);
  }

  public static CaptureFinding warn(String subject, String message) {
    return new CaptureFinding(Severity.WARN, subject, message);
  }

  public static CaptureFinding error(String subject, String message) {
    return new CaptureFinding(Severity.ERROR, subject, message);
  }

  /** Whether this finding stops {@code serve}. */
  public boolean stopsServe() {
    return severity == Severity.ERROR;
  }

  /** {@code ERROR subject: message}, the line {@code tablecast check} prints. */
  @Override
  public String toString() {
    return String.format("%-5s %s: %s", severity, subject, message);
  }

  /** Problems that stop a start, as one message naming each with its way out. */
  public static String listing(List<CaptureFinding> problems) {
    return listing(
        "Tablecast cannot serve this configuration (`tablecast check` prints the same)", problems);
  }

  /** The problems as one message: a headline, then one indented line per problem. */
  static String listing(String headline, List<CaptureFinding> problems) {
    return headline
        + " ("
        + problems.size()
        + (problems.size() == 1 ? " problem" : " problems")
        + "):"
        + problems.stream()
            .map(p -> "\n  - " + p.subject() + ": " + p.message())
            .collect(Collectors.joining());
  }
}

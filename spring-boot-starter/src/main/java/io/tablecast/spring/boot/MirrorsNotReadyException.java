package io.tablecast.spring.boot;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.boot.convert.DurationStyle;

/**
 * Startup failed: mirror beans were not ready within {@code tablecast.client.ready-timeout}, or the
 * server refused their tables. The message names each such mirror, its table and why.
 */
public class MirrorsNotReadyException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final transient Map<String, String> notReady;
  private final transient Duration timeout;

  /**
   * @param timeout how long startup waited
   * @param notReady why each mirror is not ready, by table ("UNKNOWN_TABLE: ...", "no snapshot
   *     yet")
   * @param connection what is known of the connection, for the message
   */
  public MirrorsNotReadyException(
      Duration timeout, Map<String, String> notReady, String connection) {
    super(message(timeout, notReady, connection));
    this.timeout = timeout;
    this.notReady = Map.copyOf(new LinkedHashMap<>(notReady));
  }

  /** Why each mirror is not ready, by qualified table name. */
  public Map<String, String> notReady() {
    return notReady;
  }

  /** How long startup waited ({@code tablecast.client.ready-timeout}). */
  public Duration timeout() {
    return timeout;
  }

  private static String message(Duration timeout, Map<String, String> notReady, String connection) {
    ChronoUnit unit =
        timeout.toMillis() % 1000 == 0 ? ChronoUnit.SECONDS : ChronoUnit.MILLIS; // 30s, 300ms
    return "Tablecast mirrors not ready within "
        + DurationStyle.SIMPLE.print(timeout, unit)
        + " (tablecast.client.ready-timeout): "
        + notReady.entrySet().stream()
            .map(e -> e.getKey() + " (" + e.getValue() + ")")
            .collect(Collectors.joining(", "))
        + "; connection: "
        + connection;
  }
}

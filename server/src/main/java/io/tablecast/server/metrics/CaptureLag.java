package io.tablecast.server.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The gauge {@code tablecast.capture.lag{table}} (Prometheus {@code
 * tablecast_capture_lag_seconds}): for the last batch that carried changes of the table, from their
 * capture in the database (the outbox row's {@code created_at}) to the server fanning them out,
 * held for {@link #HOLD_MILLIS}; after that long without a change of the table it reads 0, so an
 * idle table shows no lag instead of the last value for ever. (A tail that is stuck reading shows
 * in {@code tablecast_tail_caught_up_age_seconds}.) Thread-safe.
 */
final class CaptureLag {
  /** How long a batch's lag is shown; then 0 until the table's next change. */
  static final long HOLD_MILLIS = 1_000;

  /** Per table: {lag ms, when it was published (clock ms)}. */
  private final Map<String, long[]> last = new ConcurrentHashMap<>();

  private final LongSupplier clock;

  CaptureLag(LongSupplier clockMillis) {
    this.clock = clockMillis;
  }

  /** Registers the table's gauge (at 0). */
  void register(MeterRegistry registry, String table) {
    Gauge.builder("tablecast.capture.lag", () -> seconds(table))
        .tag("table", table)
        .baseUnit("seconds")
        .description("capture to fan-out of the table's last changes; 0 once idle for 1 s")
        .register(registry);
  }

  /** Changes of {@code table} captured at {@code captureMillis} (wall clock) were fanned out. */
  void published(String table, long captureMillis) {
    long now = clock.getAsLong();
    last.put(table, new long[] {Math.max(0, now - captureMillis), now});
  }

  /** The gauge's value. */
  double seconds(String table) {
    long[] l = last.get(table);
    if (l == null || clock.getAsLong() - l[1] >= HOLD_MILLIS) {
      return 0;
    }
    return l[0] / 1000.0;
  }
}

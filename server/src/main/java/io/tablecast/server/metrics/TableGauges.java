package io.tablecast.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-table gauges of {@link MicrometerServerMetrics}, each registered at its table's first
 * value and set in place after: {@code tablecast.table.stale} and {@code tablecast.duplicate.keys}.
 */
final class TableGauges {
  private final MeterRegistry registry;
  private final Map<String, AtomicLong> stale = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> duplicateKeys = new ConcurrentHashMap<>();

  TableGauges(MeterRegistry registry) {
    this.registry = registry;
  }

  void stale(String table, boolean isStale) {
    gauge(stale, "tablecast.table.stale", table).set(isStale ? 1 : 0);
  }

  void duplicateKeyRows(String table, long rows) {
    gauge(duplicateKeys, "tablecast.duplicate.keys", table).set(rows);
  }

  /** Rows beyond one per key found by the last whole reads, all tables. */
  long duplicateKeyRows() {
    return duplicateKeys.values().stream().mapToLong(AtomicLong::get).sum();
  }

  private AtomicLong gauge(Map<String, AtomicLong> byTable, String name, String table) {
    return byTable.computeIfAbsent(
        table, t -> registry.gauge(name, Tags.of("table", t), new AtomicLong()));
  }
}

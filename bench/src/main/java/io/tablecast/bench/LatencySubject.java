package io.tablecast.bench;

/**
 * A system whose commit-to-visible latency figure 1 measures: it keeps an in-JVM copy of {@code
 * bench_rows} of its own schema and says when each written version becomes visible there.
 * Implementations: {@link TablecastSubject} (server + {@code TableMirror}) and {@link
 * DebeziumMirror} (Debezium's embedded engine feeding a {@code ConcurrentHashMap}).
 */
interface LatencySubject extends AutoCloseable {
  /** Name in the report: {@code Tablecast} or {@code Debezium}. */
  String system();

  /** The schema whose {@code bench_rows} the writers update. */
  Db.Schema schema();

  /**
   * Calls {@code listener} with the {@code version} column of every changed row, right after the
   * change became visible in the in-JVM copy, until the returned handle is closed.
   */
  AutoCloseable onVisible(VisibleListener listener);

  /** Stops the system and drops its schema. */
  @Override
  void close();

  /** Receives visible versions. */
  @FunctionalInterface
  interface VisibleListener {
    void visible(long version, long nanoTime);
  }
}

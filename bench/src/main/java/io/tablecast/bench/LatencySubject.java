package io.tablecast.bench;

/**
 * A system whose commit-to-visible latency figure 1 measures: it keeps an in-JVM copy of {@code
 * bench_rows} of its own schema and says when each written version becomes visible there.
 * Implementations: {@link TablecastSubject} (server + {@code TableMirror}), {@link LineFedSubject}
 * (server + a client outside this JVM) and {@link DebeziumMirror} (Debezium's embedded engine
 * feeding a {@code ConcurrentHashMap}).
 */
interface LatencySubject extends AutoCloseable {
  /** Name in the report: {@code Tablecast}, {@code Debezium}, {@code Tablecast, Node client}... */
  String system();

  /** The schema whose {@code bench_rows} the writers update. */
  Db.Schema schema();

  /**
   * Calls {@code listener} with the {@code version} column of every changed row, right after the
   * change became visible in the in-JVM copy, until the returned handle is closed.
   */
  AutoCloseable onVisible(VisibleListener listener);

  /**
   * Throws when the system failed on its own (a client process that exited, a line it should not
   * have sent); figure 1 asks while it measures.
   */
  default void check() {}

  /** What the report should add to this system's result line (empty by default). */
  default String note() {
    return "";
  }

  /** Stops the system and drops its schema. */
  @Override
  void close();

  /** Receives visible versions. */
  @FunctionalInterface
  interface VisibleListener {
    void visible(long version, long nanoTime);
  }
}

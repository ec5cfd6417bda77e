package io.tablecast.bench;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The alternative of figure 1: Debezium's embedded engine (log-based CDC: the MariaDB connector
 * reading the binlog, the PostgreSQL connector reading a {@code pgoutput} logical replication slot)
 * feeding a {@code ConcurrentHashMap} in this JVM, as a user would build a cache from it. The table
 * gets no triggers. Configuration: {@link #properties}.
 */
final class DebeziumMirror implements LatencySubject {
  /** Debezium's default {@code poll.interval.ms}; the bench lowers it (see {@link #properties}). */
  static final int DEFAULT_POLL_INTERVAL_MS = 500;

  private final Db.Schema schema;
  private final int pollIntervalMs;
  private final String suffix =
      Long.toString(ProcessHandle.current().pid(), 36)
          + "_"
          + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 30), 36);
  private final Map<Object, Map<String, Object>> rows = new ConcurrentHashMap<>();
  private final AtomicLong streamed = new AtomicLong();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private volatile VisibleListener listener;
  private DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private ExecutorService executor;

  private DebeziumMirror(Db.Schema schema, int pollIntervalMs) {
    this.schema = schema;
    this.pollIntervalMs = pollIntervalMs;
  }

  /**
   * A fresh schema with {@code keys} rows, and an engine that has snapshotted them into the map and
   * is streaming (a probe update has arrived).
   */
  static DebeziumMirror start(Db db, int keys, int pollIntervalMs, Duration timeout)
      throws InterruptedException {
    checkLogBasedCaptureEnabled(db);
    Db.Schema s = db.isolated("latency_debezium");
    DebeziumMirror m = new DebeziumMirror(s, pollIntervalMs);
    try {
      BenchTable.create(s, keys, n -> {});
      m.startEngine();
      m.awaitStreaming(keys, timeout);
      return m;
    } catch (InterruptedException | RuntimeException e) {
      m.close();
      throw e;
    }
  }

  /**
   * The engine and connector settings. Low-latency tuning, from Debezium's documentation of the
   * connector properties and the engine: {@code poll.interval.ms} is how long the connector's queue
   * waits for more events before handing a batch to the engine (default 500 ms; its {@code
   * ChangeEventQueue.poll} returns early only when {@code max.batch.size} events are queued), and
   * the PostgreSQL connector also sleeps that long when the replication stream has nothing pending:
   * we lower it. Offsets go to {@code MemoryOffsetBackingStore}: a cache re- snapshots on start, so
   * it needs no durable offsets, and the engine's periodic offset commit ({@code
   * offset.flush.interval.ms}) touches no disk. The schema history of the MariaDB connector stays
   * in memory for the same reason.
   */
  Properties properties() {
    String baseUrl = schema.db().baseUrl();
    JdbcEndpoint ep = JdbcEndpoint.parse(baseUrl, schema.db().mysqlFamily() ? 3306 : 5432);
    Properties p = new Properties();
    p.setProperty("name", "tablecast-bench-" + suffix);
    p.setProperty("topic.prefix", "tcbench");
    p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    p.setProperty("offset.flush.interval.ms", "60000");
    p.setProperty("poll.interval.ms", Integer.toString(pollIntervalMs));
    p.setProperty("snapshot.mode", "initial");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("errors.max.retries", "0");
    p.setProperty("database.hostname", ep.host());
    p.setProperty("database.port", Integer.toString(ep.port()));
    p.setProperty("database.user", ep.user());
    p.setProperty("database.password", ep.password());
    p.setProperty("table.include.list", schema.name() + "\\." + BenchTable.NAME);
    if (schema.db().mysqlFamily()) {
      p.setProperty("connector.class", "io.debezium.connector.mariadb.MariaDbConnector");
      p.setProperty(
          "database.server.id",
          Integer.toString(100_000 + ThreadLocalRandom.current().nextInt(1_000_000)));
      p.setProperty("database.include.list", schema.name());
      p.setProperty("database.ssl.mode", "disable");
      p.setProperty("include.schema.changes", "false");
      p.setProperty(
          "schema.history.internal", "io.debezium.relational.history.MemorySchemaHistory");
    } else {
      p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
      p.setProperty("plugin.name", "pgoutput");
      p.setProperty("database.dbname", ep.database());
      p.setProperty("schema.include.list", schema.name());
      p.setProperty("slot.name", slotName());
      p.setProperty("slot.drop.on.stop", "true");
      p.setProperty("publication.name", publicationName());
      p.setProperty("publication.autocreate.mode", "filtered");
    }
    return p;
  }

  /** The settings that differ from Debezium's defaults or matter for latency, for the report. */
  static List<String> reportedSettings(int pollIntervalMs) {
    return List.of(
        "poll.interval.ms=" + pollIntervalMs + " (default " + DEFAULT_POLL_INTERVAL_MS + ")",
        "max.batch.size=2048 (default)",
        "offset.storage=MemoryOffsetBackingStore",
        "offset.flush.interval.ms=60000 (default)",
        "snapshot.mode=initial",
        "MariaDB: schema.history.internal=MemorySchemaHistory",
        "PostgreSQL: plugin.name=pgoutput, "
            + "publication.autocreate.mode=filtered, slot.drop.on.stop=true");
  }

  private String slotName() {
    return "tcbench_" + suffix;
  }

  private String publicationName() {
    return "tcbench_pub_" + suffix;
  }

  private void startEngine() {
    engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(properties())
            .notifying(this::handleBatch)
            .using(
                (success, message, error) -> {
                  if (!success || error != null) {
                    failure.compareAndSet(
                        null, error != null ? error : new IllegalStateException(message));
                  }
                })
            .build();
    executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "debezium-bench-engine");
              t.setDaemon(true);
              return t;
            });
    executor.execute(engine);
  }

  private void handleBatch(
      List<RecordChangeEvent<SourceRecord>> batch,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    for (RecordChangeEvent<SourceRecord> event : batch) {
      if (event.record().value() instanceof Struct value && value.schema().field("op") != null) {
        String op = value.getString("op");
        Struct after = value.getStruct("after");
        if (after != null) {
          Map<String, Object> row = toMap(after);
          rows.put(row.get("id"), row);
          if (!"r".equals(op)) {
            long now = System.nanoTime();
            streamed.incrementAndGet();
            VisibleListener l = listener;
            if (l != null && row.get("version") instanceof Number v) {
              l.visible(v.longValue(), now);
            }
          }
        } else if ("d".equals(op) && value.getStruct("before") != null) {
          rows.remove(value.getStruct("before").get("id"));
        }
      }
      committer.markProcessed(event);
    }
    committer.markBatchFinished();
  }

  private static Map<String, Object> toMap(Struct s) {
    Map<String, Object> m = new HashMap<>();
    for (Field f : s.schema().fields()) {
      m.put(f.name(), s.get(f));
    }
    return m;
  }

  private void awaitStreaming(int keys, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (rows.size() < keys) {
      checkAlive(deadline, "snapshot (" + rows.size() + " of " + keys + " rows)");
      Thread.sleep(50);
    }
    long probes = 0;
    while (streamed.get() == 0) {
      if (probes++ % 20 == 0) { // every second until the stream delivers one
        schema.execute("UPDATE " + BenchTable.NAME + " SET qty = qty + 1 WHERE id = 1");
      }
      checkAlive(deadline, "streaming (no change event after the snapshot)");
      Thread.sleep(50);
    }
  }

  private void checkAlive(long deadline, String waitingFor) {
    Throwable f = failure.get();
    if (f != null) {
      throw new IllegalStateException(
          "Debezium engine on " + schema.db().label() + " failed: " + f, f);
    }
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException(
          "Debezium engine on " + schema.db().label() + " still waiting for " + waitingFor);
    }
  }

  /** Fails unless the database writes what the connector reads (binlog ROW / wal_level=logical). */
  static void checkLogBasedCaptureEnabled(Db db) {
    try (Connection c = DriverManager.getConnection(db.baseUrl());
        Statement s = c.createStatement()) {
      if (db.mysqlFamily()) {
        try (ResultSet rs = s.executeQuery("SELECT @@log_bin, @@binlog_format")) {
          rs.next();
          if (rs.getInt(1) != 1 || !"ROW".equalsIgnoreCase(rs.getString(2))) {
            throw new IllegalStateException(
                "Debezium needs the binlog in ROW format, but "
                    + db.describeSource()
                    + " has log_bin="
                    + rs.getInt(1)
                    + ", binlog_format="
                    + rs.getString(2)
                    + ": start the benchmark's own instance with bench/scripts/start-dbs.sh");
          }
        }
      } else {
        try (ResultSet rs = s.executeQuery("SHOW wal_level")) {
          rs.next();
          if (!"logical".equals(rs.getString(1))) {
            throw new IllegalStateException(
                "Debezium needs wal_level=logical, but "
                    + db.describeSource()
                    + " has "
                    + rs.getString(1)
                    + ": start the benchmark's own instance with bench/scripts/start-dbs.sh");
          }
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot check " + db.describeSource() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String system() {
    return "Debezium";
  }

  @Override
  public Db.Schema schema() {
    return schema;
  }

  @Override
  public AutoCloseable onVisible(VisibleListener l) {
    listener = l;
    return () -> listener = null;
  }

  /** Rows in the map (for checks). */
  int size() {
    return rows.size();
  }

  @Override
  public void close() {
    try {
      if (engine != null) {
        engine.close();
      }
      if (executor != null) {
        executor.shutdown();
        executor.awaitTermination(30, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      System.err.println("warning: Debezium engine did not close cleanly: " + e);
    } finally {
      if (!schema.db().mysqlFamily()) {
        dropSlotAndPublication();
      }
      schema.close();
    }
  }

  /**
   * The slot holds WAL on the server until dropped: never leave one behind, even after a failure.
   */
  private void dropSlotAndPublication() {
    try (Connection c = DriverManager.getConnection(schema.db().baseUrl());
        Statement s = c.createStatement()) {
      s.execute("DROP PUBLICATION IF EXISTS " + publicationName());
      String exists =
          "SELECT active FROM pg_replication_slots WHERE slot_name = '" + slotName() + "'";
      for (int i = 0;
          i < 100;
          i++) { // the connector's replication connection may take a moment to go
        try (ResultSet rs = s.executeQuery(exists)) {
          if (!rs.next()) {
            return;
          }
          if (!rs.getBoolean(1)) {
            s.execute("SELECT pg_drop_replication_slot('" + slotName() + "')");
            return;
          }
        }
        Thread.sleep(100);
      }
      System.err.println(
          "warning: replication slot " + slotName() + " still active; drop it by hand");
    } catch (SQLException e) {
      System.err.println(
          "warning: could not drop replication slot "
              + slotName()
              + " / publication: "
              + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

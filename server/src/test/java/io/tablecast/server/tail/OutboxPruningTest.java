package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OutboxPruningTest {
  /**
   * The pruner's rest between rounds that find less than a chunk: short, so the tests wait for
   * rounds briefly.
   */
  private static final ChangeSources.Tuning SHORT_REST =
      ChangeSources.Tuning.DEFAULT.withPruneRest(Duration.ofMillis(100));

  @ParameterizedTest
  @EnumSource(Kind.class)
  void consumedRowsArePrunedButRowsOfAnOpenTransactionAndAfterItAreKept(Kind kind)
      throws Exception {
    TestDatabases.Isolated db = kind.isolated("prune");
    db.execute("CREATE TABLE pruned (id INT PRIMARY KEY, v INT)");
    SourceConfig config =
        new SourceConfig(
            db.jdbcUrl(), null, null, List.of("pruned"), true, Duration.ofMillis(1), null);
    try (ChangeSource source =
            ChangeSources.open(config, MicrometerServerMetrics.inMemory(), SHORT_REST);
        Connection slow = db.connect()) {
      source.snapshot((t, row) -> {});
      db.execute("INSERT INTO pruned VALUES (1, 0)", "INSERT INTO pruned VALUES (2, 0)");
      List<RowEvent> events = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                events.addAll(source.poll(Duration.ofMillis(50)).events());
                return events.size() >= 2;
              });
      slow.setAutoCommit(false);
      try (Statement s = slow.createStatement()) {
        s.execute("INSERT INTO pruned VALUES (3, 0)");
      }
      db.execute("INSERT INTO pruned VALUES (4, 0)");
      List<Long> visible = outboxIds(db);
      // row 4's; the open transaction's is invisible here until the pruner has deleted the
      // consumed rows (a round every 100 ms here, a server's every 5 s)
      Long afterOpen = visible.get(visible.size() - 1);
      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () -> {
                events.addAll(source.poll(Duration.ofMillis(50)).events());
                return outboxIds(db).size() <= 1;
              });
      assertThat(outboxIds(db))
          .hasSize(1)
          .containsExactly(afterOpen); // the row after the open transaction
      slow.commit();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                events.addAll(source.poll(Duration.ofMillis(50)).events());
                return events.size() >= 4;
              });
      assertThat(events)
          .extracting(e -> Rows.after(e).get("id").asInt())
          .containsExactly(1, 2, 4, 3);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void outboxDrainsUnderSustainedWritesWithRollbacksAndOpenReaders(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("prune_load");
    db.execute("CREATE TABLE loaded (id INT PRIMARY KEY, v INT)");
    MicrometerServerMetrics metrics = MicrometerServerMetrics.inMemory();
    SourceConfig config =
        new SourceConfig(
            db.jdbcUrl(), null, null, List.of("loaded"), true, Duration.ofMillis(1), null);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicBoolean stopReading = new AtomicBoolean();
    AtomicInteger nextId = new AtomicInteger();
    AtomicInteger committedRows = new AtomicInteger();
    ExecutorService load = Executors.newFixedThreadPool(3);
    try (ChangeSource source = ChangeSources.open(config, metrics, SHORT_REST)) {
      source.snapshot((t, row) -> {});
      List<Future<?>> running = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        running.add(load.submit(() -> writeBatches(db, stop, nextId, committedRows)));
      }
      Future<?> reading =
          load.submit(() -> readInOpenTransactions(db, stopReading)); // listed in innodb_trx
      Set<Integer> delivered = new HashSet<>();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                source
                    .poll(Duration.ofMillis(20))
                    .events()
                    .forEach(e -> delivered.add(Rows.after(e).get("id").asInt()));
                return committedRows.get() >= 5 * OutboxPruner.CHUNK;
              });
      stop.set(true);
      for (Future<?> f : running) {
        f.get();
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                source
                    .poll(Duration.ofMillis(20))
                    .events()
                    .forEach(e -> delivered.add(Rows.after(e).get("id").asInt()));
                return delivered.size() == committedRows.get() && outboxIds(db).size() <= 1;
              });
      stopReading.set(true); // the readers ran until the outbox had drained
      reading.get();
      assertThat(delivered).hasSize(committedRows.get());
      // the pruner counts a chunk after its DELETE committed: the outbox can be empty a moment
      // before the counter says so
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(metrics.registry().find("tablecast.outbox.pruned").counter().count())
                      .isGreaterThanOrEqualTo(committedRows.get() - 1));
    } finally {
      stop.set(true);
      stopReading.set(true);
      load.shutdownNow();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void backlogGaugeCountsCommittedRowsTheTailHasNotReadYet(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("backlog");
    db.execute("CREATE TABLE waiting (id INT PRIMARY KEY, v INT)");
    MicrometerServerMetrics metrics = MicrometerServerMetrics.inMemory();
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("waiting"), true, null, null);
    try (ChangeSource source = ChangeSources.open(config, metrics, SHORT_REST)) {
      source.snapshot((t, row) -> {});
      for (int i = 1; i <= 30; i++) {
        db.execute(
            "INSERT INTO waiting VALUES (" + i + ", 0)"); // committed, not read: nobody polls
      }
      await().atMost(Duration.ofSeconds(15)).until(() -> metrics.outboxBacklog() == 30);
      List<RowEvent> events = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () -> {
                events.addAll(source.poll(Duration.ofMillis(50)).events());
                return events.size() == 30 && metrics.outboxBacklog() == 0;
              });
      assertThat(metrics.registry().find("tablecast.outbox.backlog").gauge().value()).isZero();
      assertThat(metrics.registry().find("tablecast.tail.rows").counter().count())
          .as("outbox rows read")
          .isEqualTo(30);
    }
  }

  /**
   * Between two rounds of a server that has run for longer than {@code outbox_retention}, nothing
   * in the outbox is old enough: the round must look at the head only. It read every row instead,
   * every five seconds (0.3-0.7 s of PostgreSQL's time, 0.2 s of MariaDB's, at 1.5 million rows).
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRoundThatFindsNothingOldEnoughReadsOnlyTheHeadOfTheOutbox(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("prune_head");
    db.execute("CREATE TABLE young (id INT PRIMARY KEY, v INT)");
    SourceConfig config = // the default retention: an hour
        new SourceConfig(db.jdbcUrl(), null, null, List.of("young"), true, null, null);
    int rows = 10 * OutboxPruner.CHUNK;
    StringBuilder insert = new StringBuilder("INSERT INTO young VALUES ");
    for (int i = 1; i <= rows; i++) {
      insert.append(i == 1 ? "" : ", ").append('(').append(i).append(", 0)");
    }
    try (ChangeSource source = ChangeSources.open(config, MicrometerServerMetrics.inMemory());
        Connection c = db.connect()) {
      source.snapshot((t, row) -> {});
      db.execute(insert.toString());
      AtomicInteger read = new AtomicInteger();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> read.addAndGet(source.poll(Duration.ofMillis(50)).events().size()) == rows);
      c.setAutoCommit(false); // PostgreSQL counts the transaction's reads until it ends
      long before = rowsRead(kind, c);
      int deleted = ((PollingChangeSource) source).pruneChunk(c, OutboxPruner.CHUNK);
      long looked = rowsRead(kind, c) - before;
      c.rollback();
      assertThat(deleted).isZero();
      assertThat(looked)
          .as("outbox rows a round read, of %d delivered and younger than the retention", rows)
          .isBetween(1L, 2L * OutboxPruner.CHUNK);
    }
  }

  /**
   * Rows of tables the session (MySQL) or the transaction (PostgreSQL) has read so far: MariaDB's
   * {@code Rows_read} (not counting temporary tables), on MySQL 8, which has none, the handler's
   * reads.
   */
  private static long rowsRead(Kind kind, Connection c) throws Exception {
    String sql =
        kind == Kind.MYSQL
            ? "SHOW SESSION STATUS WHERE Variable_name IN ('Rows_read', 'Handler_read_first',"
                + " 'Handler_read_key', 'Handler_read_next', 'Handler_read_rnd_next')"
            : "SELECT 'Rows_read', COALESCE(SUM(seq_tup_read + idx_tup_fetch), 0)"
                + " FROM pg_stat_xact_user_tables WHERE relname = 'tablecast_outbox'";
    Long rowsRead = null;
    long handlerReads = 0;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        if (rs.getString(1).equalsIgnoreCase("Rows_read")) {
          rowsRead = rs.getLong(2);
        } else {
          handlerReads += rs.getLong(2);
        }
      }
    }
    return rowsRead != null ? rowsRead : handlerReads;
  }

  /** Transactions of 20 inserts, one in four rolled back. */
  private static Void writeBatches(
      TestDatabases.Isolated db,
      AtomicBoolean stop,
      AtomicInteger nextId,
      AtomicInteger committedRows)
      throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (int tx = 0; !stop.get(); tx++) {
        for (int i = 0; i < 20; i++) {
          s.execute("INSERT INTO loaded VALUES (" + nextId.incrementAndGet() + ", " + tx + ")");
        }
        if (tx % 4 == 3) {
          c.rollback();
        } else {
          c.commit();
          committedRows.addAndGet(20);
        }
      }
    }
    return null;
  }

  private static Void readInOpenTransactions(TestDatabases.Isolated db, AtomicBoolean stop)
      throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (int i = 0; !stop.get(); i++) {
        try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM loaded")) {
          rs.next();
        }
        if (i % 50 == 49) {
          c.commit();
        }
      }
      c.commit();
    }
    return null;
  }

  private static List<Long> outboxIds(TestDatabases.Isolated db) throws Exception {
    List<Long> ids = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id FROM tablecast_outbox ORDER BY id")) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    return ids;
  }
}

package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An ALTER TABLE waits for every open transaction that has read its table, and every later
 * statement that needs the table queues behind it, a plain SELECT too. The tail reads some tables
 * itself: on MySQL/MariaDB the rows a batch changed, by key; on both databases a table read again
 * whole, and on PostgreSQL the lock of a reconciliation range's table. Behind DDL queued on one
 * table the tail waited, and no change of any other cached table reached the clients for as long as
 * the application's transaction stayed open, with nothing said (seen by hand with {@code tablecast
 * serve} on both databases: another table's insert missing from {@code tablecast dump}, the tail's
 * session "Waiting for table metadata lock", or waiting on {@code LOCK TABLE ... IN ACCESS SHARE
 * MODE}). Now the tail waits a second at most; what needed the table waits beside it until the lock
 * is granted. Every test here timed out on the old code.
 */
class DdlQueuedOnATableTest {

  private static final String ALTER = "ALTER TABLE %s ADD COLUMN x int";

  @Test
  void mysqlChangedRowsOfATableWithDdlQueuedAreKeptWhileOtherTablesFlow() throws Exception {
    TestDatabases.Isolated db = twoTables(Kind.MYSQL, "ddl_queued");
    try (PolledSource tail = open(db, null);
        Connection reader = db.connect();
        Connection writer = db.connect()) {
      tail.poll();
      writer.setAutoCommit(false);
      try (Statement s = writer.createStatement()) {
        s.executeUpdate("INSERT INTO " + db.table("altered") + " VALUES (2, 2)");
      }
      CompletableFuture<Void> alter = queueAlter(db, reader);
      writer.commit(); // a change of the table the ALTER waits on, for the tail to read
      db.execute("INSERT INTO " + db.table("other") + " VALUES (7, 7)");

      await("another table's change delivered while the DDL waits")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("other") == 1);
      await("the table with DDL queued said stale")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.saidStaleFor("altered", "metadata lock"));
      assertThat(tail.events("altered")).as("its change is kept, not read").isZero();
      db.execute("INSERT INTO " + db.table("other") + " VALUES (8, 8)");
      await("and the next").atMost(Duration.ofSeconds(15)).until(() -> tail.events("other") == 2);
      await("the sessions waiting for the lock named, the ALTER TABLE among them")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> logged("Waiting for it: [thread", String.format(ALTER, db.table("altered"))));
      assertThat(tail.events("altered")).as("still kept").isZero();

      reader.commit(); // the ALTER runs, the lock is granted
      alter.get(30, TimeUnit.SECONDS);
      await("the kept change read once the lock is granted")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.events("altered") == 1);
      await("followed again")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.saidStale("altered", false));
      db.execute("UPDATE " + db.table("altered") + " SET x = 5 WHERE id = 1");
      await("and followed").atMost(Duration.ofSeconds(30)).until(() -> tail.events("altered") == 2);
      assertThat(tail.failures).as("no read failed").isEmpty();
    }
  }

  @Test
  void postgresqlReconciliationOfATableWithDdlQueuedWaitsWhileOtherTablesFlow() throws Exception {
    TestDatabases.Isolated db = twoTables(Kind.POSTGRESQL, "ddl_waits");
    try (PolledSource tail = open(db, Duration.ofSeconds(1)); // a range every 100 ms
        Connection reader = db.connect()) {
      tail.poll();
      CompletableFuture<Void> alter = queueAlter(db, reader);
      db.execute("INSERT INTO " + db.table("other") + " VALUES (7, 7)");
      await("another table's change delivered while the DDL waits")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("other") == 1);
      await("the sessions waiting for the lock named, the ALTER TABLE among them")
          .atMost(Duration.ofSeconds(30))
          .until(() -> logged("Waiting for it: [pid", String.format(ALTER, db.table("altered"))));
      db.execute("INSERT INTO " + db.table("other") + " VALUES (8, 8)");
      await("and the next").atMost(Duration.ofSeconds(15)).until(() -> tail.events("other") == 2);
      assertThat(tail.saidStale("altered", true))
          .as("only its reconciliation waited: its mirrors lack nothing")
          .isFalse();

      reader.commit();
      alter.get(30, TimeUnit.SECONDS);
      await("its reconciliation goes on once the lock is granted")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.readWhole(
                      "altered",
                      CommittedBatch.Purpose.RECONCILE,
                      rows -> rows.size() == 1 && rows.get(0).has("x")));
      db.execute("UPDATE " + db.table("altered") + " SET x = 5");
      await("and its changes")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.events("altered") == 1);
      assertThat(tail.failures).as("no read failed").isEmpty();
    }
  }

  /**
   * The whole read of every table after the source met another database instance (a failover, a
   * restore, a restart) waited for every table's lock as long as it took.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aWholeReadAfterAFailoverLeavesATableWithDdlQueuedOut(Kind kind) throws Exception {
    TestDatabases.Isolated db = twoTables(kind, "ddl_waits_whole");
    try (PolledSource tail = open(db, Duration.ofHours(1));
        Connection reader = db.connect()) {
      tail.poll();
      CompletableFuture<Void> alter = queueAlter(db, reader);
      tail.meetAnotherInstance();
      await("the other table read whole again while the DDL waits")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.readWhole("other", CommittedBatch.Purpose.RESYNC, rows -> true));
      assertThat(tail.saidStaleFor("altered", "is to be read again whole"))
          .as("said stale with that read, and why")
          .isTrue();
      db.execute("INSERT INTO " + db.table("other") + " VALUES (7, 7)");
      await("its changes flow on")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("other") == 1);

      reader.commit();
      alter.get(30, TimeUnit.SECONDS);
      await("read again once the lock is granted")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.readWhole(
                      "altered",
                      CommittedBatch.Purpose.RESYNC,
                      rows -> rows.size() == 1 && rows.get(0).has("x")));
      await("followed again").atMost(Duration.ofSeconds(30)).until(() -> !tail.staleNow("altered"));
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aReReadOfATableWithDdlQueuedWaitsBesideTheTail(Kind kind) throws Exception {
    TestDatabases.Isolated db = twoTables(kind, "ddl_waits_reread");
    try (PolledSource tail = open(db, Duration.ofHours(1));
        Connection reader = db.connect()) {
      tail.poll();
      CompletableFuture<Void> alter = queueAlter(db, reader);
      tail.source.resync(db.table("altered")); // as a client's or the console's request does
      db.execute("INSERT INTO " + db.table("other") + " VALUES (7, 7)");
      await("another table's change delivered while the re-read waits")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("other") == 1);
      await("said stale")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.saidStaleFor("altered", "is to be read again whole"));

      reader.commit();
      alter.get(30, TimeUnit.SECONDS);
      await("re-read once the lock is granted")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.readWhole(
                      "altered", CommittedBatch.Purpose.RESYNC, rows -> rows.size() == 1));
      await("followed again")
          .atMost(Duration.ofSeconds(30))
          .until(() -> tail.saidStale("altered", false));
      assertThat(tail.failures).as("no read failed").isEmpty();
    }
  }

  /**
   * A column dropped by the DDL a re-read waited for: PostgreSQL read the table in its columns of
   * before, and the read failed ("column t.v does not exist") until the look at the catalog saw the
   * change; MySQL/MariaDB gave the re-read up, the table followed again with the dropped column in
   * its mirrors, until the capture check saw the change. Now PostgreSQL describes a table read
   * whole in the read's snapshot first, and MySQL/MariaDB compare a table whose re-read failed with
   * the catalog at once.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aReReadOfATableWhoseColumnTheDdlDroppedReadsItsNewColumns(Kind kind) throws Exception {
    TestDatabases.Isolated db = twoTables(kind, "ddl_waits_drop");
    // no look at the catalog while the test runs: the re-read itself must find the change
    try (PolledSource tail =
            PolledSource.open(
                PolledSource.config(
                    db, List.of("altered", "other"), Duration.ofHours(1), Duration.ofHours(1)),
                MicrometerServerMetrics.inMemory());
        Connection reader = db.connect()) {
      tail.poll();
      CompletableFuture<Void> alter =
          queueAlter(db, reader, "ALTER TABLE " + db.table("altered") + " DROP COLUMN v");
      tail.source.resync(db.table("altered"));
      await("said stale")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.saidStale("altered", true));
      reader.commit();
      alter.get(30, TimeUnit.SECONDS);
      await("re-read once the lock is granted")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.readWhole(
                      "altered",
                      CommittedBatch.Purpose.RESYNC,
                      rows -> rows.size() == 1 && !rows.get(0).has("v")));
      await("followed again").atMost(Duration.ofSeconds(30)).until(() -> !tail.staleNow("altered"));
      assertThat(tail.failures).as("no read failed").isEmpty();
    }
  }

  /**
   * A table PostgreSQL's tail learns it must read again whole only in the snapshot of a read, after
   * the locks of that read were taken: here an enum label of its values renamed (the look at the
   * catalog finds it), as for a column added or a partition truncated. That read waited for the
   * table's lock with no bound, behind DDL queued on the table, and no change of any other table
   * reached the clients while the DDL waited. Now it waits at most a second and the re-read waits
   * beside the tail, as any held table's.
   */
  @Test
  void postgresqlAReReadFoundInTheReadsSnapshotWaitsBesideTheTail() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("ddl_waits_late");
    String mood = db.table("mood");
    db.execute(
        "CREATE TYPE " + mood + " AS ENUM ('ok', 'sad')",
        "CREATE TABLE " + db.table("altered") + " (id int PRIMARY KEY, m " + mood + ")",
        "CREATE TABLE " + db.table("other") + " (id int PRIMARY KEY, v int)",
        "INSERT INTO " + db.table("altered") + " VALUES (1, 'ok')");
    try (PolledSource tail = open(db, Duration.ofHours(1));
        Connection reader = db.connect()) {
      tail.poll();
      CompletableFuture<Void> alter = queueAlter(db, reader);
      db.execute("ALTER TYPE " + mood + " RENAME VALUE 'ok' TO 'fine'"); // every 'ok' now 'fine'
      await("the re-read it needs said")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.saidStale("altered", true));
      db.execute("INSERT INTO " + db.table("other") + " VALUES (7, 7)");
      await("another table's change delivered while the re-read waits")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.events("other") == 1);

      reader.commit();
      alter.get(30, TimeUnit.SECONDS);
      await("re-read once the lock is granted")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tail.readWhole(
                      "altered",
                      CommittedBatch.Purpose.RESYNC,
                      rows -> rows.size() == 1 && rows.get(0).get("m").asText().equals("fine")));
      await("followed again").atMost(Duration.ofSeconds(30)).until(() -> !tail.staleNow("altered"));
      assertThat(tail.failures).as("no read failed").isEmpty();
    }
  }

  /**
   * A server started while DDL waits on a cached table: its snapshot must wait for the table (it
   * reads every one), and said only "snapshot: 0 rows, 0 rows/s" every 10 s for as long as it took.
   * Now it names who waits for the lock and who may hold it.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aSnapshotHeldUpByDdlQueuedSaysWhoWaits(Kind kind) throws Exception {
    TestDatabases.Isolated db = twoTables(kind, "ddl_waits_start");
    CompletableFuture<Void> started;
    try (ChangeSource source =
            ChangeSources.open(
                PolledSource.config(db, List.of("altered", "other"), null, null),
                MicrometerServerMetrics.inMemory()); // installs the triggers first
        Connection reader = db.connect()) {
      CompletableFuture<Void> alter = queueAlter(db, reader);
      TailLoop loop = new TailLoop(source, new SnapshotOnlySink());
      try {
        started =
            CompletableFuture.runAsync(
                () -> {
                  try {
                    loop.startAndAwaitSnapshot();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
        await("the snapshot names who waits for the lock")
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    logged("The snapshot (begun", String.format(ALTER, db.table("altered")))
                        && logged("The snapshot (begun", "who may hold it, longest open first: ["));
        assertThat(started).as("still waiting").isNotDone();
        reader.commit();
        alter.get(30, TimeUnit.SECONDS);
        started.get(60, TimeUnit.SECONDS); // once the transaction ends, the snapshot is read
      } finally {
        loop.close();
      }
    }
  }

  /** A sink that drops the snapshot and every batch. */
  private static final class SnapshotOnlySink implements TailSink {
    @Override
    public SnapshotLoad snapshotLoad(List<io.tablecast.server.capture.TableSchema> tables) {
      return new SnapshotLoad() {
        @Override
        public void row(io.tablecast.server.capture.TableSchema table, byte[] row) {}

        @Override
        public void install() {}
      };
    }

    @Override
    public java.util.Set<String> publish(CommittedBatch batch) {
      return java.util.Set.of();
    }
  }

  /** A schema with the tables {@code altered} (one row) and {@code other}. */
  private static TestDatabases.Isolated twoTables(Kind kind, String prefix) {
    TestDatabases.Isolated db = kind.isolated(prefix);
    db.execute(
        "CREATE TABLE " + db.table("altered") + " (id int PRIMARY KEY, v int)",
        "CREATE TABLE " + db.table("other") + " (id int PRIMARY KEY, v int)",
        "INSERT INTO " + db.table("altered") + " VALUES (1, 1)");
    return db;
  }

  private static PolledSource open(TestDatabases.Isolated db, Duration reconcile) throws Exception {
    return PolledSource.open(
        PolledSource.config(db, List.of("altered", "other"), reconcile, null),
        MicrometerServerMetrics.inMemory());
  }

  /** {@code reader} reads the table and stays open; an ALTER TABLE then waits for it. */
  private static CompletableFuture<Void> queueAlter(TestDatabases.Isolated db, Connection reader)
      throws Exception {
    return queueAlter(db, reader, String.format(ALTER, db.table("altered")));
  }

  private static CompletableFuture<Void> queueAlter(
      TestDatabases.Isolated db, Connection reader, String alter) throws Exception {
    reader.setAutoCommit(false);
    try (Statement s = reader.createStatement()) {
      s.executeQuery("SELECT * FROM " + db.table("altered")).close(); // holds it until it ends
    }
    CompletableFuture<Void> running = CompletableFuture.runAsync(() -> db.execute(alter));
    await("the ALTER TABLE waits for the open transaction")
        .atMost(Duration.ofSeconds(30))
        .until(() -> waitsForALock(db, alter));
    return running;
  }

  /** Whether {@code statement} runs in a session that waits for a table's lock. */
  static boolean waitsForALock(TestDatabases.Isolated db, String statement) throws Exception {
    String sql =
        db.kind() == Kind.MYSQL
            ? "SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                + " WHERE STATE = 'Waiting for table metadata lock' AND INFO = ?"
            : "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query = ?";
    try (Connection c = db.connect();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, statement);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1) > 0;
      }
    }
  }

  private static boolean logged(String text, String andText) {
    return RecentEvents.global().newestFirst().stream()
        .anyMatch(e -> e.message().contains(text) && e.message().contains(andText));
  }
}

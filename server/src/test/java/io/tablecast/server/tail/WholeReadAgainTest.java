package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The whole read of every table that follows a failover, a restore or a restart of the database
 * (met here by {@link PolledSource#meetAnotherInstance}), a PostgreSQL backend crash, or a
 * MySQL/MariaDB outbox truncated, where the tables may not be what the server last knew: one
 * dropped while serving (left out of the tail's reads and stale, GUARANTEES.md "Stale tables"), one
 * altered in a way no look at the catalog has seen yet. Each failed the whole read at every try,
 * and no change of any table reached the clients until the server was restarted.
 */
class WholeReadAgainTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aWholeReadReadsTheOtherTablesAndLeavesAGoneOneStaleUntilItIsBack(Kind kind)
      throws Exception {
    TestDatabases.Isolated db = kind.isolated("whole_read_gone");
    try (PolledSource tail = withNotesGone(db)) {
      tail.meetAnotherInstance();
      await("the other table read whole")
          .atMost(Duration.ofSeconds(20))
          .until(() -> tail.readWhole("items", CommittedBatch.Purpose.RESYNC, rows -> true));
      db.execute("INSERT INTO " + db.table("items") + " VALUES (1, 1)");
      await("and followed after it")
          .atMost(Duration.ofSeconds(10))
          .until(() -> tail.events("items") == 1);
      assertThat(tail.readWhole("notes", CommittedBatch.Purpose.RESYNC, rows -> true))
          .as("the gone table is not read (its mirrors keep their rows)")
          .isFalse();
      assertThat(tail.staleNow("notes")).isTrue();

      db.execute(
          "CREATE TABLE " + db.table("notes") + " (id int PRIMARY KEY, v int)",
          "INSERT INTO " + db.table("notes") + " VALUES (7, 7)");
      await("the table back, read whole and followed again")
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  tail.readWhole(
                          "notes",
                          CommittedBatch.Purpose.RESYNC,
                          rows -> rows.size() == 1 && rows.get(0).get("id").asInt() == 7)
                      && !tail.staleNow("notes"));
    }
  }

  /**
   * Another instance met by a read that had begun its snapshot (a busy tail reads in one, begun in
   * the same round trip as its read of the outbox): the connection, closed by the check that found
   * the other instance, went back to the pool with the snapshot still open, and every whole read
   * after it failed on it ("Transaction characteristics can't be changed while a transaction is in
   * progress"): no change of any table reached the clients again until the server was restarted.
   */
  @Test
  void mysqlAnotherInstanceMetByABusyReadIsReadWhole() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("whole_read_busy");
    db.execute("CREATE TABLE " + db.table("items") + " (id int PRIMARY KEY, v int)");
    AtomicBoolean stop = new AtomicBoolean();
    Thread writer =
        new Thread(
            () -> {
              for (int i = 1; !stop.get(); i++) {
                db.execute("INSERT INTO " + db.table("items") + " VALUES (" + i + ", " + i + ")");
              }
            });
    try (PolledSource tail =
        PolledSource.open(
            PolledSource.config(db, List.of("items"), Duration.ofHours(1), Duration.ofHours(1)),
            MicrometerServerMetrics.inMemory())) {
      tail.poll();
      writer.start();
      for (int met = 1; met <= 5; met++) { // the read that meets it may be outside a snapshot
        long events = tail.events("items");
        await("busy")
            .atMost(Duration.ofSeconds(10))
            .until(() -> tail.events("items") > events + 20);
        tail.meetAnotherInstance();
        int times = met;
        await("read whole on the instance met, time " + met)
            .atMost(Duration.ofSeconds(20))
            .until(() -> wholeReads(tail, "items") == times);
      }
      long before = tail.events("items");
      await("and followed after it")
          .atMost(Duration.ofSeconds(10))
          .until(() -> tail.events("items") > before);
    } finally {
      stop.set(true);
      writer.join();
    }
  }

  private static long wholeReads(PolledSource tail, String table) {
    return tail.batches.stream()
        .flatMap(b -> b.tableReads().stream())
        .filter(
            r ->
                r.purpose() == CommittedBatch.Purpose.RESYNC
                    && r.schema().id().name().equals(table))
        .count();
  }

  /**
   * While a cached table is gone, another table's capture trigger dropped (or disabled) is repaired
   * by a server allowed to install: on MySQL/MariaDB the repair installed every configured table,
   * the gone one too, which failed at every capture check ("the configured tables cannot be
   * captured"), logged as an ERROR each time, and the other table stayed stale.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTriggerDroppedWhileAnotherTableIsGoneIsRepaired(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("repair_beside_gone");
    try (PolledSource tail = withNotesGone(db)) {
      dropTriggers(db, "items");
      db.execute("INSERT INTO " + db.table("items") + " VALUES (1, 1)"); // not captured
      await("the other table's capture repaired, and the table re-read")
          .atMost(Duration.ofSeconds(20))
          .until(() -> tail.readWhole("items", CommittedBatch.Purpose.RESYNC, r -> r.size() == 1));
      db.execute("INSERT INTO " + db.table("items") + " VALUES (2, 2)");
      await("and followed").atMost(Duration.ofSeconds(10)).until(() -> tail.events("items") == 1);
      assertThat(tail.staleNow("items")).isFalse();
      assertThat(
              RecentEvents.global().newestFirst().stream()
                  .map(RecentEvents.Event::message)
                  .filter(m -> m.contains(db.schema() + ".") && m.contains("cannot be installed")))
          .as(
              "no install of the gone table tried again at each check (one, at most, before the"
                  + " tail found it gone)")
          .hasSizeLessThanOrEqualTo(1);
    }
  }

  /**
   * The polled source of tables {@code items} and {@code notes} (a row), created in {@code db},
   * once {@code notes} was dropped and said stale.
   */
  private static PolledSource withNotesGone(TestDatabases.Isolated db) throws Exception {
    db.execute(
        "CREATE TABLE " + db.table("items") + " (id int PRIMARY KEY, v int)",
        "CREATE TABLE " + db.table("notes") + " (id int PRIMARY KEY, v int)",
        "INSERT INTO " + db.table("notes") + " VALUES (1, 1)");
    PolledSource tail =
        PolledSource.open(
                PolledSource.config(
                    db, List.of("items", "notes"), Duration.ZERO, Duration.ofMillis(500)),
                MicrometerServerMetrics.inMemory())
            .poll();
    try {
      db.execute("DROP TABLE " + db.table("notes"));
      await("the dropped table said stale")
          .atMost(Duration.ofSeconds(15))
          .until(() -> tail.saidStaleFor("notes", "no longer exists"));
      return tail;
    } catch (RuntimeException | Error e) {
      tail.close();
      throw e;
    }
  }

  /** Drops the capture triggers of {@code table} (unqualified), as a careless migration would. */
  private static void dropTriggers(TestDatabases.Isolated db, String table) throws Exception {
    boolean pg = db.kind() == Kind.POSTGRESQL;
    List<String> drops = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                pg
                    ? "SELECT tgname FROM pg_trigger WHERE tgrelid = '"
                        + db.table(table)
                        + "'::regclass AND NOT tgisinternal"
                    : "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE"
                        + " EVENT_OBJECT_SCHEMA = '"
                        + db.schema()
                        + "' AND EVENT_OBJECT_TABLE = '"
                        + table
                        + "'")) {
      while (rs.next()) {
        drops.add(
            pg
                ? "DROP TRIGGER \"" + rs.getString(1) + "\" ON " + db.table(table)
                : "DROP TRIGGER `" + db.schema() + "`.`" + rs.getString(1) + "`");
      }
    }
    assertThat(drops).isNotEmpty();
    db.execute(drops.toArray(new String[0]));
  }

  /**
   * A whole read of every table reads each as the database it meets describes it now: a restored
   * backup, or DDL that no look at the catalog has seen yet (the capture check is an hour here, and
   * no row of the table was written since), may have dropped a column or the primary key. It read
   * them with the columns the server knew, failed at every try ("column ... does not exist"), and
   * no change of any table reached the clients; a primary key dropped was not said at all.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aWholeReadReadsEachTableAsTheDatabaseDescribesItNow(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("whole_read_altered");
    db.execute(
        "CREATE TABLE " + db.table("items") + " (id int PRIMARY KEY, v int)",
        "CREATE TABLE " + db.table("wide") + " (id int PRIMARY KEY, a int, b int)",
        "CREATE TABLE "
            + db.table("keyed")
            + " (id int NOT NULL, v int, CONSTRAINT keyed_pk"
            + " PRIMARY KEY (id))",
        "INSERT INTO " + db.table("wide") + " VALUES (1, 1, 1)",
        "INSERT INTO " + db.table("keyed") + " VALUES (1, 1)");
    try (PolledSource tail =
        PolledSource.open(
                PolledSource.config(
                    db, List.of("items", "wide", "keyed"), Duration.ZERO, Duration.ofHours(1)),
                MicrometerServerMetrics.inMemory())
            .poll()) {
      db.execute(
          "ALTER TABLE " + db.table("wide") + " DROP COLUMN b",
          kind == Kind.POSTGRESQL
              ? "ALTER TABLE " + db.table("keyed") + " DROP CONSTRAINT keyed_pk"
              : "ALTER TABLE " + db.table("keyed") + " DROP PRIMARY KEY");
      tail.meetAnotherInstance();
      await("the altered table read whole in its columns now")
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  tail.readWhole(
                      "wide",
                      CommittedBatch.Purpose.RESYNC,
                      rows -> rows.size() == 1 && !rows.get(0).has("b") && rows.get(0).has("a")));
      db.execute("INSERT INTO " + db.table("items") + " VALUES (1, 1)");
      await("the other tables followed after it")
          .atMost(Duration.ofSeconds(10))
          .until(() -> tail.events("items") == 1);
      await("the table without a key said stale, naming why")
          .atMost(Duration.ofSeconds(10))
          .until(() -> tail.saidStaleFor("keyed", "no primary key"));
    }
  }
}

package io.tablecast.it;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An operator truncates the outbox while the server serves (to free space at once, or a script that
 * re-creates it). MySQL/MariaDB then hand out outbox ids from 1 again, below the ids the tail has
 * read: before the capture check compared the outbox's next id with the last one read, the tail
 * skipped every change until the new ids passed the old ones, and only reconciliation (off here)
 * repaired them, as drift. PostgreSQL's tail follows transaction ids, not outbox ids.
 */
class OutboxTruncatedTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void changesMadeAfterTheOutboxWasTruncatedReachTheMirrors(Kind kind) {
    // outbox ids well above the few written after the truncate
    truncateWhileServing(
        kind,
        "outbox_truncated",
        Duration.ofMillis(500),
        28,
        (p, table) -> {
          p.sql("UPDATE " + table + " SET name = 'after' WHERE id = 1");
          p.sql("INSERT INTO " + table + " VALUES (100, 'after')");
          p.sql("DELETE FROM " + table + " WHERE id = 2");
        });
  }

  /**
   * Truncated, then more changes recorded before the next capture check than the tail had read: the
   * outbox's next id is above the last one read again, and only its new InnoDB table id (the
   * capture check's user has {@code PROCESS} here) tells that the ids below were handed out anew.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTruncateFollowedByMoreChangesThanTheTailHadReadIsFoundToo(Kind kind) {
    truncateWhileServing(
        kind,
        "outbox_refilled",
        Duration.ofSeconds(2),
        10,
        (p, table) -> {
          p.sql("UPDATE " + table + " SET name = 'after'"); // twelve outbox ids at once
          for (int i = 100; i <= 110; i++) {
            p.sql("INSERT INTO " + table + " VALUES (" + i + ", 'after')");
          }
        });
  }

  /**
   * A mirror of a table of two rows, {@code before} more inserted one by one (an outbox id each),
   * the outbox truncated, then {@code after} run on the table ({@code table} its qualified name):
   * the mirror must end equal to the table, and follow the next change too.
   */
  private static void truncateWhileServing(
      Kind kind,
      String name,
      Duration captureCheck,
      int before,
      BiConsumer<Pipeline, String> after) {
    List<String> ddl =
        List.of(
            "CREATE TABLE rates (id int PRIMARY KEY, name varchar(40))",
            "INSERT INTO rates VALUES (1, 'a'), (2, 'b')");
    try (Pipeline p = Pipeline.create(kind, name, ddl, "rates")) {
      p.startServer(Duration.ZERO, captureCheck);
      TableMirror<Map<String, Object>> rates = p.readyMirror(p.client("rates"), "rates");
      String table = p.db.table("rates");
      for (int i = 3; i < 3 + before; i++) {
        p.sql("INSERT INTO " + table + " VALUES (" + i + ", 'before')");
      }
      p.awaitMirrorEqualsTable(rates, "rates");

      p.sql("TRUNCATE TABLE " + p.db.table("tablecast_outbox"));
      after.accept(p, table);
      p.awaitMirrorEqualsTable(rates, "rates");

      p.sql("INSERT INTO " + table + " VALUES (1000, 'later')");
      p.awaitMirrorEqualsTable(rates, "rates");
    }
  }
}

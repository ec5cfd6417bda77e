package io.tablecast.server.tail;

import static io.tablecast.server.tail.DriftCheckTest.hex;
import static io.tablecast.server.tail.DriftCheckTest.plan;
import static io.tablecast.server.tail.DriftCheckTest.unaltered;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A reconciliation range read off the tail's path ({@link DriftCheck#readOffPath}): the batch whose
 * snapshot it is read in, and the batches after it, are handed on without waiting for it; it comes
 * with a later batch, brought forward to that batch, so that the hub, which compares it with the
 * image after that batch, finds no difference where there is none; what rows cannot describe drops
 * it and its pass starts over.
 */
class DriftCheckOffPathTest {
  /** The ranges' bound of a server of default settings. */
  private static final Duration ANSWER = SourceConfig.DEFAULT_ANSWER_TIMEOUT;

  @ParameterizedTest
  @EnumSource(Kind.class)
  void batchesAreHandedOnWhileTheRangeIsReadAndItComesBroughtForwardToALaterOne(Kind kind)
      throws Exception {
    boolean pg = kind == Kind.POSTGRESQL;
    TestDatabases.Isolated db = kind.isolated("drift_offpath");
    db.execute(
        "CREATE TABLE items (id int PRIMARY KEY, v text)",
        "INSERT INTO items VALUES (1, 'v1'), (2, 'v2'), (3, 'v3'), (4, 'v4'), (5, 'v5'), (6, 'v6')");
    CapturePlan plan = plan(db);
    TableSchema table = plan.tables().get(0);
    RowForm form = new RowForm(table.columns(), table.primaryKey());
    DriftCheck check = new DriftCheck(() -> plan, Duration.ofMillis(1), ANSWER, unaltered());
    Thread.sleep(2);
    assertThat(check.prepare()).isTrue();
    Map<Integer, byte[]> was;
    try (Connection earlier = db.connect()) {
      earlier.setAutoCommit(false);
      was = byId(form, OutboxRows.readTable(plan, earlier, table, new WholeReads()));
      earlier.rollback();
    }
    Connection c = db.connect();
    c.setAutoCommit(false);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try (Statement s = c.createStatement()) { // fixes the range's snapshot, as an outbox read does
      s.execute(pg ? "SELECT 1" : "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
    }
    // committed after the range's snapshot: an update, a delete, an insert, a key moved
    db.execute(
        "UPDATE items SET v = 'changed' WHERE id = 2",
        "DELETE FROM items WHERE id = 3",
        "INSERT INTO items VALUES (9, 'new')",
        "UPDATE items SET id = 10 WHERE id = 4");
    List<byte[]> now;
    try (Connection later = db.connect()) {
      later.setAutoCommit(false);
      now = OutboxRows.readTable(plan, later, table, new WholeReads());
      later.rollback();
    }
    Map<Integer, byte[]> is = byId(form, now);
    try (Connection locker = db.connect()) {
      locker.setAutoCommit(false);
      try (Statement s = locker.createStatement()) { // the range's read waits for it
        s.execute(pg ? "LOCK TABLE items IN ACCESS EXCLUSIVE MODE" : "LOCK TABLES items WRITE");
      }
      assertThat(check.readOffPath(c, Connection::commit, AbandonedSessions.NONE)).isTrue();
      assertThat(check.inFlight()).isTrue();
      assertThat(check.prepare()).as("no second range while one is read").isFalse();
      // as each capture reports them: PostgreSQL with the rows before, MySQL/MariaDB without
      // (a key moved is a delete of the old key there)
      List<RowEvent> events = new ArrayList<>();
      events.add(upsert(table, form, is.get(2), pg ? was.get(2) : null));
      events.add(delete(table, form, was.get(3), pg));
      events.add(upsert(table, form, is.get(9), null));
      if (!pg) {
        events.add(delete(table, form, was.get(4), false));
      }
      events.add(upsert(table, form, is.get(10), pg ? was.get(4) : null));
      events.add(new RowEvent.Truncate("other.other"));
      CommittedBatch changes = new CommittedBatch(events, 0);
      Thread.sleep(200);
      assertThat(check.follow(changes))
          .as("handed on while the range's read waits")
          .isSameAs(changes);
      try (Statement s = locker.createStatement()) {
        s.execute(pg ? "COMMIT" : "UNLOCK TABLES");
      }
    }
    CommittedBatch.TableRead read = awaitRange(check);
    assertThat(read.chunk()).isEqualTo(new CommittedBatch.Chunk(true, true));
    assertThat(hex(read.rows()))
        .as("the table as of the batch the range comes with")
        .containsExactlyInAnyOrderElementsOf(hex(now));
    assertThat(c.isClosed()).as("the reconciliation thread closed the connection").isTrue();
    assertThat(check.inFlight()).isFalse();
    check.close();
  }

  @Test
  void aTruncateOrAWholeReadOfTheTableWhileTheRangeIsReadDropsItAndThePassStartsOver()
      throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("drift_offpath_drop");
    db.execute(
        "CREATE TABLE items (id int PRIMARY KEY, v text)",
        "INSERT INTO items SELECT g, 'v' || g FROM generate_series(1, 6) g");
    CapturePlan plan = plan(db);
    TableSchema table = plan.tables().get(0);
    DriftCheck check = new DriftCheck(() -> plan, Duration.ofMillis(1), ANSWER, unaltered(), 4);
    List<CommittedBatch> drops =
        List.of(
            new CommittedBatch(List.of(new RowEvent.Truncate(table.id().qualified())), 0),
            new CommittedBatch(
                List.of(),
                0,
                List.of(
                    new CommittedBatch.TableRead(
                        table, List.of(), CommittedBatch.Purpose.RESYNC))));
    for (CommittedBatch drop : drops) {
      Thread.sleep(2);
      assertThat(check.prepare()).isTrue();
      try (Connection c = db.connect()) {
        c.setAutoCommit(false);
        check.read(c);
        c.rollback();
      }
      check.published(); // the pass is under way: its first range was read
      Thread.sleep(2);
      assertThat(check.prepare()).isTrue();
      Connection c = db.connect();
      c.setAutoCommit(false);
      assertThat(check.readOffPath(c, Connection::commit, AbandonedSessions.NONE)).isTrue();
      List<CommittedBatch.TableRead> handed = new ArrayList<>(check.follow(drop).tableReads());
      while (check.inFlight()) {
        Thread.sleep(5);
        handed.addAll(check.follow(CommittedBatch.EMPTY).tableReads());
      }
      assertThat(handed).as("dropped by %s", drop).isEqualTo(drop.tableReads());
      Thread.sleep(2);
      assertThat(check.prepare()).isTrue();
      try (Connection again = db.connect()) {
        again.setAutoCommit(false);
        assertThat(check.read(again).chunk().first()).as("a new pass").isTrue();
        again.rollback();
      }
      check.published();
    }
    check.close();
  }

  @Test
  void theBatchOfTheReadThatBeganTheRangeIsNotFollowedButTheBatchAfterAFailedReadIs()
      throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("drift_offpath_reads");
    db.execute(
        "CREATE TABLE items (id int PRIMARY KEY, v text)",
        "INSERT INTO items SELECT g, 'v' || g FROM generate_series(1, 6) g");
    CapturePlan plan = plan(db);
    TableSchema table = plan.tables().get(0);
    RowForm form = new RowForm(table.columns(), table.primaryKey());
    DriftCheck check = new DriftCheck(() -> plan, Duration.ofMillis(1), ANSWER, unaltered());

    // the read's own batch holds a TRUNCATE of the table before the range's snapshot: the range,
    // read after it, needs no following, and following it would drop the range
    Thread.sleep(2);
    assertThat(check.prepare()).isTrue();
    Connection c = db.connect();
    c.setAutoCommit(false);
    assertThat(check.readOffPath(c, Connection::commit, AbandonedSessions.NONE)).isTrue();
    CommittedBatch own =
        new CommittedBatch(List.of(new RowEvent.Truncate(table.id().qualified())), 0);
    assertThat(check.completed(own).tableReads()).isEmpty();
    assertThat(hex(awaitCompleted(check).rows()))
        .as("not dropped by the batch it was read with")
        .hasSize(6);

    // the read that began the next range fails after handing it on: the next read's batch, which
    // repeats that read's changes and holds those committed since, brings the range forward
    Thread.sleep(2);
    assertThat(check.prepare()).isTrue();
    Map<Integer, byte[]> was;
    try (Connection before = db.connect()) {
      before.setAutoCommit(false);
      was = byId(form, OutboxRows.readTable(plan, before, table, new WholeReads()));
      before.rollback();
    }
    c = db.connect();
    c.setAutoCommit(false);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try (Statement s = c.createStatement()) {
      s.execute("SELECT 1"); // the range's snapshot
    }
    db.execute("UPDATE items SET v = 'changed' WHERE id = 2");
    byte[] changed;
    try (Connection after = db.connect()) {
      after.setAutoCommit(false);
      changed = byId(form, OutboxRows.readTable(plan, after, table, new WholeReads())).get(2);
      after.rollback();
    }
    assertThat(check.readOffPath(c, Connection::commit, AbandonedSessions.NONE)).isTrue();
    // (the read fails here: completed is not called)
    assertThat(check.prepare()).isFalse();
    check.completed(new CommittedBatch(List.of(upsert(table, form, changed, was.get(2))), 0));
    Map<Integer, byte[]> range = byId(form, awaitCompleted(check).rows());
    assertThat(hex(List.of(range.get(2))))
        .as("brought forward by the batch after the failed read")
        .isEqualTo(hex(List.of(changed)));
    check.close();
  }

  /** Reads with nothing new, one after the other, until one comes with the range. */
  private static CommittedBatch.TableRead awaitCompleted(DriftCheck check) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      assertThat(check.prepare()).as("no second range while one is read").isFalse();
      CommittedBatch handed = check.completed(CommittedBatch.EMPTY);
      if (!handed.tableReads().isEmpty()) {
        return handed.tableReads().get(0);
      }
      assertThat(check.inFlight()).as("the range was dropped").isTrue();
      Thread.sleep(5);
    }
    throw new AssertionError("the range read off the path never came");
  }

  private static RowEvent upsert(TableSchema table, RowForm form, byte[] row, byte[] before) {
    return new RowEvent.Upsert(table.id().qualified(), table, form.keyOf(row), row, before);
  }

  private static RowEvent delete(TableSchema table, RowForm form, byte[] row, boolean withRow) {
    return new RowEvent.Delete(
        table.id().qualified(), table, form.keyOf(row), withRow ? row : null);
  }

  private static CommittedBatch.TableRead awaitRange(DriftCheck check) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      CommittedBatch handed = check.follow(CommittedBatch.EMPTY);
      if (!handed.tableReads().isEmpty()) {
        return handed.tableReads().get(0);
      }
      Thread.sleep(5);
    }
    throw new AssertionError("the range read off the path never came");
  }

  private static Map<Integer, byte[]> byId(RowForm form, List<byte[]> rows) {
    return rows.stream()
        .collect(
            Collectors.toMap(
                r -> ((Number) form.valueToJava(r, 0)).intValue(), Function.identity()));
  }
}

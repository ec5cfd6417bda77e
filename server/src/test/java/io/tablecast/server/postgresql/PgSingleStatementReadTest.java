package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.Op;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tail's read of the outbox in one statement ({@link PgSingleStatementRead}), on a real
 * PostgreSQL: it returns what committed since the previous snapshot with the statement's own
 * snapshot, in outbox order; a transaction that began earlier and commits later is read next time,
 * not lost; and it hands what needs a transaction (a truncate, more rows than it takes) back
 * without moving on.
 */
class PgSingleStatementReadTest {

  @Test
  void readsWhatCommittedSinceTheLastSnapshotAndALateCommitTheTimeAfter() throws Exception {
    TestDatabases.Isolated db = itemsDatabase("single_read");
    try (ChangeSource source = ChangeSources.open(itemsSource(db));
        Connection reader = db.connect();
        Connection late = db.connect()) {
      source.snapshot((t, row) -> {});
      PgSingleStatementRead read = ((PgChangeSource) source).singleStatementRead();
      String start = ((PgChangeSource) source).position();

      PgSingleStatementRead.Result nothing = read.read(reader, start, false);
      assertThat(nothing.events()).isEmpty();
      assertThat(nothing.snapshot()).isNotNull();
      assertThat(nothing.recovered()).as("not asked").isNull();
      assertThat(read.read(reader, start, true).recovered())
          .as("when the server last recovered from a crash, or was set up")
          .isNotNull();

      db.execute(
          "INSERT INTO items VALUES (1, 'a'), (2, 'b')",
          "UPDATE items SET name = 'c' WHERE id = 1");
      PgSingleStatementRead.Result first = read.read(reader, nothing.snapshot(), false);
      assertThat(first.events())
          .extracting(RowEvent::op)
          .containsExactly(Op.INSERT, Op.INSERT, Op.UPDATE);
      assertThat(Rows.after(first.events().get(2)).get("name").asText()).isEqualTo("c");
      assertThat(first.captureMillis()).isPositive();

      late.setAutoCommit(false);
      try (Statement s = late.createStatement()) {
        s.execute("INSERT INTO items VALUES (3, 'late')"); // its outbox id and txid come first
      }
      db.execute("INSERT INTO items VALUES (4, 'on time')");
      PgSingleStatementRead.Result second = read.read(reader, first.snapshot(), false);
      assertThat(second.events()).hasSize(1);
      assertThat(Rows.after(second.events().get(0)).get("id").asInt()).isEqualTo(4);
      late.commit();
      PgSingleStatementRead.Result third = read.read(reader, second.snapshot(), false);
      assertThat(third.events()).hasSize(1);
      assertThat(Rows.after(third.events().get(0)).get("id").asInt()).isEqualTo(3);
      assertThat(read.read(reader, third.snapshot(), false).events()).isEmpty();

      db.execute("TRUNCATE items");
      assertThat(read.read(reader, third.snapshot(), false))
          .as("a truncate needs a transaction")
          .isNull();
    }
  }

  @Test
  void moreRowsThanItTakesAreLeftToTheReadInATransaction() throws Exception {
    TestDatabases.Isolated db = itemsDatabase("single_read_many");
    try (ChangeSource source = ChangeSources.open(itemsSource(db));
        Connection reader = db.connect()) {
      source.snapshot((t, row) -> {});
      PgSingleStatementRead read = ((PgChangeSource) source).singleStatementRead();
      String start = ((PgChangeSource) source).position();
      int max = PgSingleStatementRead.MAX_ROWS;
      db.execute("INSERT INTO items SELECT g, 'x' FROM generate_series(1, " + max + ") g");
      PgSingleStatementRead.Result all = read.read(reader, start, false);
      assertThat(all.events()).hasSize(max);
      db.execute(
          "INSERT INTO items SELECT g, 'y' FROM generate_series("
              + (max + 1)
              + ", "
              + (2 * max + 1)
              + ") g");
      assertThat(read.read(reader, all.snapshot(), false)).isNull();
      // the source (still at the start) reads them in a transaction instead, all of them
      assertThat(source.poll(Duration.ofSeconds(5)).events()).hasSize(2 * max + 1);
    }
  }

  /** A database with an empty table {@code items}. */
  private static TestDatabases.Isolated itemsDatabase(String prefix) {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated(prefix);
    db.execute("CREATE TABLE items (id int PRIMARY KEY, name text)");
    return db;
  }

  /** A source of {@code items} that installs its capture. */
  private static SourceConfig itemsSource(TestDatabases.Isolated db) {
    return new SourceConfig(db.jdbcUrl(), null, null, List.of("items"), true, null, null);
  }
}

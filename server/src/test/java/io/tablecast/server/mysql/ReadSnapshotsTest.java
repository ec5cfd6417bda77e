package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The tail's snapshots on MariaDB: begun in one round trip, and the last read's held open after its
 * batch has left, until the next read takes it and commits it in its own first statement (or it is
 * committed and its connection given back).
 */
class ReadSnapshotsTest {

  @Test
  void aHeldSnapshotStaysOpenUntilCommittedThenItsConnectionIsGivenBack() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("readsnap");
    db.execute("CREATE TABLE items (id INT PRIMARY KEY)", "INSERT INTO items VALUES (1)");
    ReadSnapshots snapshots = new ReadSnapshots();
    Connection reader = multiStatements(db);
    try (Statement s = reader.createStatement()) {
      ReadSnapshots.begin(s);
      assertThat(count(s)).isEqualTo(1);
    }
    snapshots.hold(reader);
    db.execute("INSERT INTO items VALUES (2)"); // committed after the snapshot began
    try (Statement s = reader.createStatement()) {
      assertThat(count(s)).as("still the snapshot's view").isEqualTo(1);
    }
    snapshots.commitHeld();
    assertThat(reader.isClosed()).as("given back").isTrue();
    snapshots.commitHeld(); // nothing held: nothing to do
  }

  @Test
  void aTakenSnapshotIsEndedByTheCommitSentFirstInTheNextStatement() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("readsnap3");
    db.execute("CREATE TABLE items (id INT PRIMARY KEY)", "INSERT INTO items VALUES (1)");
    ReadSnapshots snapshots = new ReadSnapshots();
    try (Connection reader = multiStatements(db)) {
      try (Statement s = reader.createStatement()) {
        ReadSnapshots.begin(s);
        assertThat(count(s)).isEqualTo(1);
      }
      snapshots.hold(reader);
      db.execute("INSERT INTO items VALUES (2)");
      assertThat(snapshots.takeHeld()).isSameAs(reader);
      assertThat(snapshots.takeHeld()).as("taken once").isNull();
      snapshots.commitHeld(); // nothing held any more: the taker commits
      assertThat(reader.isClosed()).isFalse();
      try (Statement s = reader.createStatement()) {
        assertThat(count(s)).as("still the snapshot's view").isEqualTo(1);
        s.execute(ReadSnapshots.COMMIT + "SELECT COUNT(*) FROM items");
        assertThat(s.getMoreResults())
            .as("the commit's count first, then the read's rows")
            .isTrue();
        try (ResultSet rs = s.getResultSet()) {
          rs.next();
          assertThat(rs.getInt(1)).as("read after the commit, in the same round trip").isEqualTo(2);
        }
      }
    }
  }

  @Test
  void aConnectionHeldFromReadToReadForLongerThanItsReuseIsGivenBack() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("readsnap4");
    ReadSnapshots snapshots = new ReadSnapshots(Duration.ofMillis(200));
    Connection reader = multiStatements(db);
    snapshots.hold(reader);
    assertThat(snapshots.takeHeld()).isSameAs(reader);
    Thread.sleep(250);
    snapshots.hold(reader); // taken and held again: held since the first hold
    assertThat(snapshots.takeHeld()).as("held for longer than 200 ms: given back").isNull();
    assertThat(reader.isClosed()).isTrue();
    Connection next = multiStatements(db);
    snapshots.hold(next); // a new one: held from now
    assertThat(snapshots.takeHeld()).isSameAs(next);
    next.close();
  }

  @Test
  void holdingAnotherCommitsTheFirstAndABrokenConnectionIsNoError() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("readsnap2");
    ReadSnapshots snapshots = new ReadSnapshots();
    Connection first = multiStatements(db);
    Connection second = multiStatements(db);
    snapshots.hold(first);
    snapshots.hold(second);
    assertThat(first.isClosed()).isTrue();
    assertThat(second.isClosed()).isFalse();
    second.close(); // as a killed session: the commit fails
    snapshots.commitHeld();
  }

  private static Connection multiStatements(TestDatabases.Isolated db) throws SQLException {
    Properties p = new Properties();
    p.setProperty("allowMultiQueries", "true");
    return DriverManager.getConnection(db.jdbcUrl(), p);
  }

  private static int count(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM items")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}

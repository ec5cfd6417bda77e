package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The tail's snapshots on MariaDB: begun in one round trip, and the last read's held open until it
 * is committed after its batch has left (then its connection is given back).
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

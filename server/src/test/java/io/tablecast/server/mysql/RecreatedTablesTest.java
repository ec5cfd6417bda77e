package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import org.assertj.core.api.Condition;
import org.junit.jupiter.api.Test;

class RecreatedTablesTest {

  @Test
  void innodbNamesEncodeWhatIsNotALetterDigitOrUnderscore() {
    // as MariaDB 10.11 lists `tr-Test $x` of database test in INNODB_SYS_TABLES
    assertThat(RecreatedTables.innodbName(new TableId("test", "tr-Test $x")))
        .isEqualTo("test/tr@002dTest@0020@0024x");
    assertThat(RecreatedTables.innodbName(new TableId("shop_1", "Items_2")))
        .isEqualTo("shop_1/Items_2");
    assertThat(RecreatedTables.innodbName(new TableId("shop", "café"))).isNull();
  }

  /**
   * What the capture check relies on, in the database itself: a TRUNCATE gives the table a new
   * InnoDB id under the same creation time; a rebuild gives it a new creation time too (a second
   * later, since CREATE_TIME counts seconds), and is not taken for a TRUNCATE.
   */
  @Test
  void aTruncateIsFoundAndARebuildIsNot() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("recreated");
    db.execute(
        "CREATE TABLE `t-1` (id INT PRIMARY KEY)",
        "CREATE TABLE other (id INT PRIMARY KEY)",
        "INSERT INTO `t-1` VALUES (1), (2)");
    List<TableId> tables =
        List.of(new TableId(db.schema(), "t-1"), new TableId(db.schema(), "other"));
    try (Connection c = db.connect()) {
      RecreatedTables recreated =
          new RecreatedTables(MysqlFlavor.of(c.getMetaData().getDatabaseProductVersion()), true);
      assertThat(recreated.rowsReplaced(c, tables).keySet())
          .isEmpty(); // the first look only remembers
      db.execute("TRUNCATE TABLE `t-1`");
      assertThat(recreated.rowsReplaced(c, tables).keySet()).containsExactly(tables.get(0));
      assertThat(recreated.rowsReplaced(c, tables).keySet()).isEmpty();
      Thread.sleep(1100); // a rebuild in a later second than the creation
      db.execute("OPTIMIZE TABLE `t-1`", "ALTER TABLE other FORCE");
      assertThat(recreated.rowsReplaced(c, tables).keySet()).isEmpty();
      db.execute("TRUNCATE TABLE other");
      assertThat(recreated.rowsReplaced(c, tables).keySet()).containsExactly(tables.get(1));
    }
  }

  /**
   * Without the {@code PROCESS} privilege the InnoDB ids are unreadable: a TRUNCATE is left to
   * reconciliation (INFO), and with reconciliation off nothing would ever find it, so the start
   * says so at WARN with both ways out. Before, it was an INFO either way.
   */
  @Test
  void withoutProcessAndWithoutReconciliationATruncateIsNeverFoundAndAWarnSaysSo()
      throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("recreated_noprocess");
    String user = "tc_noprocess";
    db.execute(
        "CREATE TABLE t (id INT PRIMARY KEY)",
        "DROP USER IF EXISTS '" + user + "'@'%'",
        "CREATE USER '" + user + "'@'%' IDENTIFIED BY 'np-pw'",
        "GRANT SELECT ON `" + db.schema() + "`.* TO '" + user + "'@'%'");
    String url =
        db.jdbcUrl()
            .replaceAll("user=[^&]*", "user=" + user)
            .replaceAll("password=[^&]*", "password=np-pw");
    List<TableId> tables = List.of(new TableId(db.schema(), "t"));
    long since = System.currentTimeMillis();
    try (Connection c = DriverManager.getConnection(url)) {
      MysqlFlavor flavor = MysqlFlavor.of(c.getMetaData().getDatabaseProductVersion());
      assertThat(new RecreatedTables(flavor, true).rowsReplaced(c, tables)).isEmpty();
      assertThat(warned(since)).as("reconciliation finds it: an INFO").isEmpty();

      RecreatedTables notReconciling = new RecreatedTables(flavor, false);
      assertThat(notReconciling.rowsReplaced(c, tables)).isEmpty();
      db.execute("TRUNCATE TABLE t");
      assertThat(notReconciling.rowsReplaced(c, tables)).isEmpty();
      assertThat(warned(since))
          .singleElement()
          .asString()
          .contains("reconciliation is off (source.reconcile_interval: 0s)")
          .contains("never reaches clients")
          .contains("grant PROCESS");
    } finally {
      db.execute("DROP USER IF EXISTS '" + user + "'@'%'");
    }
  }

  /** What {@link RecreatedTables} logged at WARN since {@code since}. */
  private static List<String> warned(long since) {
    return RecentEvents.global().newestFirst().stream()
        .filter(e -> e.timeMillis() >= since && e.level().equals("WARN"))
        .filter(e -> e.logger().endsWith("RecreatedTables"))
        .map(RecentEvents.Event::message)
        .toList();
  }

  /**
   * Partition maintenance replaces rows without a trigger: a partition truncated, exchanged or
   * dropped (alone, or with a partition added in the same interval, as rotation scripts do) has the
   * table re-read; a partition added alone does not (a rebuild is re-read for nothing: see below).
   */
  @Test
  void partitionsTruncatedExchangedOrDroppedAreFoundAndAddedAreNot() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("repartitioned");
    db.execute(
        "CREATE TABLE events (id INT PRIMARY KEY) PARTITION BY RANGE (id) (PARTITION p0 VALUES"
            + " LESS THAN (10), PARTITION p1 VALUES LESS THAN (20), PARTITION p_2 VALUES LESS"
            + " THAN (30))",
        "CREATE TABLE events_load (id INT PRIMARY KEY)",
        "CREATE TABLE events1 (id INT PRIMARY KEY)",
        "INSERT INTO events VALUES (1), (11), (21)",
        "INSERT INTO events_load VALUES (5)");
    TableId events = new TableId(db.schema(), "events");
    // events1 would match `events_` as a LIKE pattern without its escape: not taken for a part
    List<TableId> tables = List.of(events, new TableId(db.schema(), "events1"));
    try (Connection c = db.connect()) {
      RecreatedTables recreated =
          new RecreatedTables(MysqlFlavor.of(c.getMetaData().getDatabaseProductVersion()), true);
      assertThat(recreated.rowsReplaced(c, tables)).isEmpty();
      db.execute("ALTER TABLE events TRUNCATE PARTITION p1");
      assertThat(recreated.rowsReplaced(c, tables))
          .containsOnlyKeys(events)
          .hasValueSatisfying(new Condition<>(m -> m.contains("partition p1"), "names p1"));
      db.execute("ALTER TABLE events EXCHANGE PARTITION p0 WITH TABLE events_load");
      assertThat(recreated.rowsReplaced(c, tables)).containsOnlyKeys(events);
      Thread.sleep(1100); // changes of the creation time, which counts seconds, are seen
      db.execute("ALTER TABLE events ADD PARTITION (PARTITION p3 VALUES LESS THAN (40))");
      assertThat(recreated.rowsReplaced(c, tables)).isEmpty();
      Thread.sleep(1100);
      db.execute("OPTIMIZE TABLE events"); // re-read for nothing: told from a truncation no better
      assertThat(recreated.rowsReplaced(c, tables)).containsOnlyKeys(events);
      Thread.sleep(1100);
      db.execute(
          "ALTER TABLE events DROP PARTITION p_2",
          "ALTER TABLE events ADD PARTITION (PARTITION p4 VALUES LESS THAN (50))");
      assertThat(recreated.rowsReplaced(c, tables))
          .containsOnlyKeys(events)
          .hasValueSatisfying(new Condition<>(m -> m.contains("partition p_2 is gone"), "p_2"));
      db.execute("TRUNCATE TABLE events");
      assertThat(recreated.rowsReplaced(c, tables)).containsOnlyKeys(events);
      assertThat(recreated.rowsReplaced(c, tables)).isEmpty();
    }
  }

  /**
   * A partition truncated, or dropped and added again under its name, beside other partition DDL
   * between two looks: that DDL gives the table a new creation time, and the partition's new id
   * used to be taken for a rebuild's, its old rows left in the mirrors until reconciliation.
   */
  @Test
  void aPartitionTruncatedOrDroppedAndAddedAgainBesideOtherPartitionDdlIsFound() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("repartitioned2");
    db.execute(
        "CREATE TABLE events (id INT PRIMARY KEY) PARTITION BY RANGE (id) (PARTITION p0 VALUES"
            + " LESS THAN (10), PARTITION p1 VALUES LESS THAN (20))",
        "INSERT INTO events VALUES (1), (11)");
    TableId events = new TableId(db.schema(), "events");
    List<TableId> tables = List.of(events);
    try (Connection c = db.connect()) {
      RecreatedTables recreated =
          new RecreatedTables(MysqlFlavor.of(c.getMetaData().getDatabaseProductVersion()), true);
      assertThat(recreated.rowsReplaced(c, tables)).isEmpty();
      Thread.sleep(1100); // the creation time, which counts seconds, changes
      db.execute(
          "ALTER TABLE events TRUNCATE PARTITION p0",
          "ALTER TABLE events ADD PARTITION (PARTITION p2 VALUES LESS THAN (30))");
      assertThat(recreated.rowsReplaced(c, tables))
          .containsOnlyKeys(events)
          .hasValueSatisfying(new Condition<>(m -> m.contains("partition p0"), "names p0"));
      db.execute("INSERT INTO events VALUES (21)");
      Thread.sleep(1100);
      db.execute(
          "ALTER TABLE events DROP PARTITION p2",
          "ALTER TABLE events ADD PARTITION (PARTITION p2 VALUES LESS THAN (30))");
      assertThat(recreated.rowsReplaced(c, tables))
          .containsOnlyKeys(events)
          .hasValueSatisfying(new Condition<>(m -> m.contains("partition p2"), "names p2"));
      assertThat(recreated.rowsReplaced(c, tables)).isEmpty();
    }
  }

  @Test
  void onlyPartitionsAndSubpartitionsAreParts() {
    assertThat(RecreatedTables.isPartition("P#p0")).isTrue();
    assertThat(RecreatedTables.isPartition("p#p0#sp#s0")).isTrue(); // MySQL 8's case
    assertThat(RecreatedTables.isPartition("P#p0#TMP#")).isFalse(); // an ALTER TABLE's work
    assertThat(RecreatedTables.isPartition("p#p0#tmp")).isFalse();
    assertThat(RecreatedTables.isPartition("TMP#")).isFalse();
  }
}

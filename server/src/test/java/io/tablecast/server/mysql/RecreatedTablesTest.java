package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.util.List;
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
          new RecreatedTables(MysqlFlavor.of(c.getMetaData().getDatabaseProductVersion()));
      assertThat(recreated.truncated(c, tables)).isEmpty(); // the first look only remembers
      db.execute("TRUNCATE TABLE `t-1`");
      assertThat(recreated.truncated(c, tables)).containsExactly(tables.get(0));
      assertThat(recreated.truncated(c, tables)).isEmpty();
      Thread.sleep(1100); // a rebuild in a later second than the creation
      db.execute("OPTIMIZE TABLE `t-1`", "ALTER TABLE other FORCE");
      assertThat(recreated.truncated(c, tables)).isEmpty();
      db.execute("TRUNCATE TABLE other");
      assertThat(recreated.truncated(c, tables)).containsExactly(tables.get(1));
    }
  }
}

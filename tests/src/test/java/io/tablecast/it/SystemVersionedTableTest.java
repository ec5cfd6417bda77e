package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * MariaDB's temporal tables, as audit-minded schemas have them: system-versioned tables (the
 * history kept by the database, with hidden or named row start and end columns, history partitions
 * added as it grows) and application-time periods, whose {@code UPDATE ... FOR PORTION OF} splits a
 * row in three. A mirror holds the current rows, what a plain {@code SELECT} returns; the history
 * stays in the database. Used to be refused at start ("is a SYSTEM VERSIONED, only base tables can
 * be cached"); a table with named row end columns then lost every DELETE, since MariaDB appends the
 * row end to each unique key and a DELETE's trigger sees it already set to the time of the delete.
 */
class SystemVersionedTableTest {

  private static final List<String> DDL =
      List.of(
          // hidden ROW START / ROW END, history in the table itself
          "CREATE TABLE prices (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(10,2))"
              + " WITH SYSTEM VERSIONING",
          "INSERT INTO prices VALUES (1, 'tea', 2.50), (2, 'coffee', 3.10), (3, 'cocoa', 2.90)",
          // named period columns, keyed by a unique index (no primary key): MariaDB lists that
          // index as (code, valid_until)
          "CREATE TABLE rates (code VARCHAR(3) NOT NULL, rate DECIMAL(10,4),"
              + " valid_since TIMESTAMP(6) GENERATED ALWAYS AS ROW START,"
              + " valid_until TIMESTAMP(6) GENERATED ALWAYS AS ROW END,"
              + " PERIOD FOR SYSTEM_TIME (valid_since, valid_until), UNIQUE (code))"
              + " WITH SYSTEM VERSIONING",
          "INSERT INTO rates (code, rate) VALUES ('EUR', 1.0000), ('USD', 1.0800), ('JPY', 161.2)",
          // history in partitions of its own, a new one each time the last holds a row
          "CREATE TABLE stock (id INT PRIMARY KEY, qty INT) WITH SYSTEM VERSIONING"
              + " PARTITION BY SYSTEM_TIME LIMIT 1 AUTO",
          "INSERT INTO stock VALUES (1, 10), (2, 20)",
          // an application-time period: the rows are the periods
          "CREATE TABLE tariffs (id INT, name VARCHAR(20), valid_from DATE, valid_to DATE,"
              + " PERIOD FOR valid (valid_from, valid_to), PRIMARY KEY (id, valid_from))",
          "INSERT INTO tariffs VALUES (1, 'base', '2026-01-01', '2027-01-01'),"
              + " (2, 'night', '2026-01-01', '2027-01-01')");

  @Test
  void temporalTablesAreCachedWithTheirCurrentRows() throws SQLException {
    try (Pipeline p =
        Pipeline.start(Kind.MYSQL, "sysversioned", DDL, "prices", "rates", "stock", "tariffs")) {
      TablecastClient c = p.client("temporal");
      TableMirror<Map<String, Object>> prices = p.readyMirror(c, "prices");
      TableMirror<Map<String, Object>> rates = p.readyMirror(c, "rates");
      TableMirror<Map<String, Object>> stock = p.readyMirror(c, "stock");
      TableMirror<Map<String, Object>> tariffs = p.readyMirror(c, "tariffs");
      assertThat(rates.primaryKey())
          .as("the unique index, without its row end")
          .containsExactly("code");

      p.sql(
          "UPDATE prices SET price = 2.75 WHERE id = 1",
          "DELETE FROM prices WHERE id = 2",
          "INSERT INTO prices VALUES (4, 'mate', 3.40)",
          "UPDATE rates SET rate = 1.0850 WHERE code = 'USD'",
          "DELETE FROM rates WHERE code = 'JPY'",
          "UPDATE stock SET qty = 9 WHERE id = 1",
          "UPDATE stock SET qty = 8 WHERE id = 1",
          "UPDATE stock SET qty = 7 WHERE id = 1",
          "DELETE FROM stock WHERE id = 2",
          "UPDATE tariffs FOR PORTION OF valid FROM '2026-06-01' TO '2026-07-01'"
              + " SET name = 'summer' WHERE id = 1",
          "DELETE FROM tariffs FOR PORTION OF valid FROM '2026-03-01' TO '2027-01-01'"
              + " WHERE id = 2");
      p.transaction(
          "UPDATE prices SET name = 'green tea' WHERE id = 1",
          "DELETE FROM prices WHERE id = 3",
          "UPDATE rates SET code = 'GBP', rate = 0.8500 WHERE code = 'EUR'");
      p.awaitMirrorEqualsTable(prices, "prices");
      p.awaitMirrorEqualsTable(rates, "rates");
      p.awaitMirrorEqualsTable(stock, "stock");
      p.awaitMirrorEqualsTable(tariffs, "tariffs");
      assertThat(prices.size()).isEqualTo(2);
      assertThat(prices.get(2)).as("deleted, only in the history").isNull();
      assertThat(rates.get("JPY")).isNull();
      assertThat(rates.get("GBP")).containsEntry("rate", "0.8500");
      assertThat(stock.get(2)).isNull();
      assertThat(tariffs.size()).as("base split in three, night cut short").isEqualTo(4);

      // the history is the database's: kept there, never in a mirror, and removing it changes
      // no current row
      try (Connection db = p.db.connect();
          Statement s = db.createStatement()) {
        assertThat(count(s, "SELECT COUNT(*) FROM prices FOR SYSTEM_TIME ALL")).isEqualTo(6);
        assertThat(
                count(
                    s,
                    "SELECT COUNT(*) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA ="
                        + " DATABASE() AND TABLE_NAME = 'stock'"))
            .as("history partitions added as it grew")
            .isGreaterThan(2);
        s.execute("DELETE HISTORY FROM prices");
      }
      p.sql("UPDATE prices SET price = 2.80 WHERE id = 1");
      p.awaitMirrorEqualsTable(prices, "prices");
      assertThat(prices.size()).isEqualTo(2);
    }
  }

  private static long count(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}

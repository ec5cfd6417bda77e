package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;

/**
 * The write statements applications and their tools use besides plain INSERT, UPDATE and DELETE,
 * each writing a cached table while a mirror follows, which must end equal to the table: on
 * PostgreSQL {@code MERGE} (every branch), {@code COPY FROM} (what bulk loaders use), a writable
 * {@code WITH}, {@code UPDATE ... FROM}; on MySQL/MariaDB {@code LOAD DATA}, {@code INSERT IGNORE},
 * {@code DELETE} and {@code UPDATE} with {@code ORDER BY ... LIMIT}, a multi-table {@code DELETE}.
 */
class WriteStatementsTest {
  private static final List<String> DDL =
      List.of(
          "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, qty INT NOT NULL)",
          "CREATE TABLE stock (id INT PRIMARY KEY, qty INT NOT NULL)",
          "INSERT INTO items VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)",
          "INSERT INTO stock VALUES (1, 10), (2, 20), (4, 40)");

  @Test
  void postgresqlMergeCopyAndWritableWith() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "write_statements", DDL, "items")) {
      p.startServer();
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("pg"), "items");
      p.sql(
          "MERGE INTO items i USING stock s ON i.id = s.id"
              + " WHEN MATCHED AND s.qty > 15 THEN DELETE"
              + " WHEN MATCHED THEN UPDATE SET qty = s.qty"
              + " WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'merged', s.qty)",
          "WITH moved AS (DELETE FROM items WHERE id = 3 RETURNING id, name, qty)"
              + " INSERT INTO items SELECT id + 100, name, qty FROM moved",
          "UPDATE items i SET qty = i.qty + s.qty FROM stock s WHERE s.id = i.id AND s.id = 4");
      try (Connection c = p.connect()) {
        long copied =
            c.unwrap(PGConnection.class)
                .getCopyAPI()
                .copyIn(
                    "COPY items FROM STDIN WITH (FORMAT csv)",
                    new StringReader("200,copied,1\n201,copied,2\n"));
        assertThat(copied).isEqualTo(2);
      }
      p.awaitMirrorEqualsTable(items, "items");
      assertThat(items.get(2)).as("merged away").isNull();
      assertThat(items.get(1)).containsEntry("qty", 10);
      assertThat(items.get(4)).containsEntry("qty", 80);
      assertThat(items.get(103)).containsEntry("name", "c");
      assertThat(items.get(201)).containsEntry("name", "copied");
    }
  }

  @Test
  void mysqlLoadDataInsertIgnoreLimitedAndMultiTableWrites(@TempDir Path dir) throws Exception {
    try (Pipeline p = Pipeline.create(Kind.MYSQL, "write_statements", DDL, "items")) {
      p.startServer();
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("my"), "items");
      p.sql(
          "INSERT IGNORE INTO items VALUES (1, 'dup', 0), (5, 'e', 5)",
          "UPDATE items SET qty = qty * 10 ORDER BY id DESC LIMIT 2",
          "DELETE FROM items ORDER BY id LIMIT 1",
          "DELETE i FROM items i JOIN stock s ON s.id = i.id WHERE s.qty = 20");
      Path file = Files.writeString(dir.resolve("items.tsv"), "300\tloaded\t1\n301\tloaded\t2\n");
      try (Connection c = DriverManager.getConnection(p.db.jdbcUrl() + "&allowLocalInfile=true");
          Statement s = c.createStatement()) {
        assertThat(
                s.executeUpdate(
                    "LOAD DATA LOCAL INFILE '"
                        + file.toString().replace("\\", "/")
                        + "' INTO TABLE items"))
            .isEqualTo(2);
      }
      p.awaitMirrorEqualsTable(items, "items");
      assertThat(items.get(1)).as("deleted by the limited DELETE").isNull();
      assertThat(items.get(2)).as("deleted by the join").isNull();
      assertThat(items.get(5)).containsEntry("qty", 50);
      assertThat(items.get(301)).containsEntry("name", "loaded");
    }
  }
}

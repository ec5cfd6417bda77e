package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.server.mysql.MysqlQueries;
import io.tablecast.server.tail.OutboxRows;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Table and column names chosen to break generated SQL: placeholders of the trigger templates,
 * quote characters, SQL after a semicolon, an attempt to run an expression, non-ASCII. The capture
 * installs, the triggers record exactly the row, and nothing else runs.
 */
class HostileIdentifierTest {
  private static final Map<Kind, TestDatabases.Isolated> DBS = new EnumMap<>(Kind.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Column names after the key column {@code id}; each holds a text value. */
  static final List<String> HOSTILE_COLUMNS =
      List.of(
          "${old_row}",
          "${new_row}",
          "${old_key}",
          "${new_key}",
          "${unknown_placeholder}",
          "@@NAME@@",
          "back`tick",
          "it's",
          "say \"hi\"",
          "x; DELETE FROM victim; --",
          "', (SELECT @tc_pwned := 1), '",
          "*/ ${old_row} /*",
          "prix €, ünï, 日本");

  /** A table name with every quote character and a statement after a semicolon. */
  static final String HOSTILE_TABLE = "odd `tab\"le' ; DROP TABLE victim; --";

  private static synchronized TestDatabases.Isolated db(Kind kind) {
    return DBS.computeIfAbsent(kind, k -> k.isolated("hostile_ids"));
  }

  private static String quote(Kind kind, String name) {
    return kind == Kind.MYSQL
        ? "`" + name.replace("`", "``") + "`"
        : "\"" + name.replace("\"", "\"\"") + "\"";
  }

  private static SourceConfig config(TestDatabases.Isolated db, String table) {
    return new SourceConfig(
        db.jdbcUrl(), null, null, List.of(db.schema() + "." + table), true, null, null);
  }

  @Test
  void renderFillsOnlyTheTemplatesOwnPlaceholdersInOnePass() {
    assertThat(SqlTemplates.fill("test", "a ${x} b ${y} c", Map.of("x", "${y}", "y", "$1\\")))
        .isEqualTo("a ${y} b $1\\ c");
  }

  @Test
  void renderRefusesAPlaceholderWithoutAValue() {
    assertThatThrownBy(() -> SqlTemplates.fill("test.sql", "a ${x} ${nope}", Map.of("x", "1")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("test.sql")
        .hasMessageContaining("${nope}");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void hostileColumnAndTableNamesAreCapturedExactlyAndRunNothing(Kind kind) throws Exception {
    TestDatabases.Isolated db = db(kind);
    StringJoiner ddl =
        new StringJoiner(", ", "CREATE TABLE " + quote(kind, HOSTILE_TABLE) + " (", ")");
    ddl.add("id INT PRIMARY KEY");
    for (String c : HOSTILE_COLUMNS) {
      ddl.add(quote(kind, c) + " VARCHAR(100)");
    }
    db.execute(
        "CREATE TABLE victim (id INT PRIMARY KEY)",
        "INSERT INTO victim VALUES (1)",
        ddl.toString());
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, HOSTILE_TABLE))) {
      TableSchema schema = installer.describe().get(0);
      assertThat(schema.id().name()).isEqualTo(HOSTILE_TABLE);
      assertThat(schema.columns())
          .extracting(ColumnInfo::name)
          .containsSubsequence(HOSTILE_COLUMNS);
      installer.install();
      installer.verifyInstalled();

      ObjectNode inserted = row(1, "v");
      ObjectNode updated = row(1, "w");
      try (Connection c = db.connect()) {
        write(c, kind, inserted, updated);
        assertThat(pwned(c, kind)).as("no expression from a name was evaluated").isNull();
        List<String[]> outbox = outbox(c);
        assertThat(outbox).hasSize(3);
        assertThat(outbox).extracting(r -> r[0]).containsExactly("I", "U", "D");
        assertThat(outbox).extracting(r -> r[1]).containsOnly(db.schema() + "." + HOSTILE_TABLE);
        if (kind == Kind.MYSQL) { // MySQL triggers record the key; rows are read by key (below)
          ObjectNode key = JSON.createObjectNode().put("id", 1);
          assertThat(json(outbox.get(0)[2])).isEqualTo(key);
          assertThat(json(outbox.get(1)[2])).isEqualTo(key);
          assertThat(json(outbox.get(2)[3])).isEqualTo(key);
        } else {
          assertThat(json(outbox.get(0)[2])).isEqualTo(inserted);
          assertThat(json(outbox.get(1)[2])).isEqualTo(updated);
          assertThat(json(outbox.get(1)[3])).isEqualTo(inserted);
          assertThat(json(outbox.get(2)[3])).isEqualTo(updated);
        }
        assertThat(count(c, "SELECT COUNT(*) FROM victim")).as("victim untouched").isEqualTo(1);

        // the snapshot query (whichever shape the dialect reads it in: every column named), and
        // MySQL's rows-by-key query, give the row the triggers record
        write(c, kind, inserted, null);
        SnapshotRead read = installer.plan().snapshotRead(schema);
        RowNormalizer normalizer = installer.plan().normalizer(schema.id().qualified());
        byte[] expected = normalizer.encode(inserted.toString());
        try (Statement s = c.createStatement();
            ResultSet rs = s.executeQuery(read.sql())) {
          assertThat(rs.next()).isTrue();
          assertThat(row(rs, read, schema, normalizer)).isEqualTo(expected);
          assertThat(rs.next()).isFalse();
        }
        if (kind == Kind.MYSQL) {
          try (PreparedStatement ps = c.prepareStatement(MysqlQueries.rowsByKey(schema, 1))) {
            ps.setString(1, "1");
            try (ResultSet rs = ps.executeQuery()) {
              assertThat(rs.next()).isTrue();
              assertThat(row(rs, read, schema, normalizer)).isEqualTo(expected);
            }
          }
          assertThat(pwned(c, kind)).isNull();
        }
      }
      installer.uninstall();
    }
  }

  @Test
  void postgresqlTableNameHoldingTheDollarQuoteTagIsRefused() throws Exception {
    TestDatabases.Isolated db = db(Kind.POSTGRESQL);
    String name = "x$tablecast$y";
    db.execute("CREATE TABLE \"" + name + "\" (id INT PRIMARY KEY)");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, name))) {
      assertThatThrownBy(installer::describe)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(name)
          .hasMessageContaining("$tablecast$");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void backslashInAColumnNameIsRefusedNamingIt(Kind kind) throws Exception {
    TestDatabases.Isolated db = db(kind);
    db.execute("CREATE TABLE slashed (id INT PRIMARY KEY, " + quote(kind, "a\\b") + " INT)");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "slashed"))) {
      assertThatThrownBy(installer::describe)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("a\\b")
          .hasMessageContaining("backslash");
    }
  }

  /** The row at the result set's cursor, read in the shape {@code read} gives, in the row form. */
  private static byte[] row(
      ResultSet rs, SnapshotRead read, TableSchema schema, RowNormalizer normalizer)
      throws SQLException {
    return OutboxRows.row(
        read.shape(), normalizer, RowTextsFetch.texts(rs, read.shape().columns(schema)));
  }

  private static ObjectNode row(int id, String prefix) {
    ObjectNode row = JSON.createObjectNode();
    row.put("id", id);
    for (int i = 0; i < HOSTILE_COLUMNS.size(); i++) {
      row.put(HOSTILE_COLUMNS.get(i), prefix + i + " '\"`;\\");
    }
    return row;
  }

  /** INSERT {@code first}; then, when {@code second} is given, UPDATE to it and DELETE. */
  private static void write(Connection c, Kind kind, ObjectNode first, ObjectNode second)
      throws SQLException {
    String table = quote(kind, HOSTILE_TABLE);
    StringJoiner cols = new StringJoiner(", ");
    StringJoiner marks = new StringJoiner(", ");
    StringJoiner sets = new StringJoiner(", ");
    List<String> names = new ArrayList<>(List.of("id"));
    names.addAll(HOSTILE_COLUMNS);
    for (String n : names) {
      cols.add(quote(kind, n));
      marks.add("?");
      if (!n.equals("id")) {
        sets.add(quote(kind, n) + " = ?");
      }
    }
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO " + table + " (" + cols + ") VALUES (" + marks + ")")) {
      ps.setInt(1, first.get("id").intValue());
      for (int i = 0; i < HOSTILE_COLUMNS.size(); i++) {
        ps.setString(i + 2, first.get(HOSTILE_COLUMNS.get(i)).textValue());
      }
      ps.executeUpdate();
    }
    if (second == null) {
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE " + table + " SET " + sets + " WHERE id = ?")) {
      for (int i = 0; i < HOSTILE_COLUMNS.size(); i++) {
        ps.setString(i + 1, second.get(HOSTILE_COLUMNS.get(i)).textValue());
      }
      ps.setInt(HOSTILE_COLUMNS.size() + 1, second.get("id").intValue());
      ps.executeUpdate();
    }
    try (Statement s = c.createStatement()) {
      s.executeUpdate("DELETE FROM " + table);
    }
  }

  /** A session variable an injected expression would have set. */
  private static String pwned(Connection c, Kind kind) throws SQLException {
    String sql =
        kind == Kind.MYSQL ? "SELECT @tc_pwned" : "SELECT current_setting('tc.pwned', true)";
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** op, table_name, new image, old image (MySQL: of the key) of every outbox row, in id order. */
  private static List<String[]> outbox(Connection c) throws SQLException {
    List<String[]> rows = new ArrayList<>();
    boolean mysql = c.getMetaData().getDatabaseProductName().matches("(?i).*(mysql|mariadb).*");
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                mysql
                    ? "SELECT op, table_name, new_key, old_key FROM tablecast_outbox ORDER BY id"
                    : "SELECT op, table_name, new_row, old_row FROM tablecast_outbox ORDER BY id")) {
      while (rs.next()) {
        rows.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)});
      }
    }
    return rows;
  }

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}

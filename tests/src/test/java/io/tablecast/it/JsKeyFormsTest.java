package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.it.KeyTypesTest.KeyedTable;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The JavaScript client's {@code get()}, in Node against a real server, with every key of {@link
 * KeyTypesTest}'s tables as a JavaScript program has it from elsewhere (the database's own text,
 * through JDBC's {@code getString}: {@code 2026-03-29 02:30:00.1} with a space, {@code 2.000} or
 * {@code 2} for a decimal; a {@code Date} for an instant; bytes for a binary string): each finds
 * its row ({@code client-js/src/key-forms.js}, docs/TYPES.md's forms as the server sends them).
 */
class JsKeyFormsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyKeyAsAJavaScriptProgramHasItFindsItsRow(Kind kind) throws Exception {
    List<KeyedTable> tables = KeyTypesTest.tables(kind);
    List<String> misses = new ArrayList<>();
    int lookups = 0;
    try (Pipeline p = KeyTypesTest.withEveryRow(kind, "jskeys", tables);
        NodeScript node = NodeScript.start("key-lookups.mjs", "ws://" + p.address() + "/ws");
        Connection c = p.connect();
        Statement s = c.createStatement()) {
      assertThat(node.next()).isEqualTo("READY");
      s.execute(kind == Kind.POSTGRESQL ? "SET TIME ZONE 'UTC'" : "SET time_zone = '+00:00'");
      for (KeyedTable t : tables) {
        String table = p.db.table(t.name());
        try (ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
          ResultSetMetaData meta = rs.getMetaData();
          while (rs.next()) {
            ArrayNode parts = NODES.arrayNode();
            for (int i = 0; i < t.keyTypes().size(); i++) {
              parts.add(asJavaScriptHasIt(rs, meta, "k" + i, kind));
            }
            ObjectNode lookup = NODES.objectNode().put("table", table).set("parts", parts);
            node.send(JSON.writeValueAsString(lookup));
            String found = node.next();
            lookups++;
            if (!String.valueOf(rs.getInt("v")).equals(found)) {
              misses.add(
                  t.name() + ": get" + parts + " gave " + found + ", not v = " + rs.getInt("v"));
            }
          }
        }
      }
    }
    assertThat(misses).as("lookups (of %s) that found no row or another one", lookups).isEmpty();
  }

  /** A key part as a JavaScript program has it: the database's text, a Date, bytes, a number. */
  private static com.fasterxml.jackson.databind.JsonNode asJavaScriptHasIt(
      ResultSet rs, ResultSetMetaData meta, String column, Kind kind) throws Exception {
    int at = rs.findColumn(column);
    String type = meta.getColumnTypeName(at).toLowerCase(java.util.Locale.ROOT);
    int sqlType = meta.getColumnType(at);
    if (type.startsWith("timestamptz") || (kind == Kind.MYSQL && type.equals("timestamp"))) {
      java.sql.Timestamp instant = rs.getTimestamp(at);
      return instant.getNanos() % 1_000_000 == 0
          ? NODES.objectNode().put("date", instant.getTime())
          : NODES.textNode(instant.toInstant().toString()); // finer than a Date holds
    }
    if (type.equals("year")) {
      return NODES.numberNode(rs.getInt(at));
    }
    if (sqlType == Types.BINARY || sqlType == Types.VARBINARY || type.equals("bytea")) {
      return NODES.objectNode().put("bytes", Base64.getEncoder().encodeToString(rs.getBytes(at)));
    }
    if (sqlType == Types.BIGINT && type.contains("unsigned")) {
      return NODES.objectNode().put("bigint", rs.getString(at));
    }
    return switch (sqlType) {
      case Types.INTEGER, Types.SMALLINT, Types.TINYINT, Types.BIGINT ->
          NODES.numberNode(rs.getLong(at));
      case Types.BIT, Types.BOOLEAN -> NODES.booleanNode(rs.getBoolean(at));
      case Types.DOUBLE, Types.FLOAT, Types.REAL -> NODES.numberNode(rs.getDouble(at));
      default -> NODES.textNode(rs.getString(at)); // dates, times, decimals, text: the database's
    };
  }
}

package io.tablecast.server.capture;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Renders the templates of {@code sql/triggers/} (classpath {@code io/tablecast/server/capture/sql/}). */
final class TriggerScripts {
  static final String TRIGGER_PREFIX = "tablecast_";
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}");
  /** Stands for the trigger's name in the body whose hash ends that name. */
  private static final String NAME_STAND_IN = "@@NAME@@";
  /** The dollar-quote tag of the PL/pgSQL in {@code postgresql/*.sql}. */
  static final String PG_DOLLAR_TAG = "$tablecast$";

  private TriggerScripts() {}

  /** A MySQL trigger to create: its unquoted name and full statement. */
  record MysqlTrigger(String name, String sql) {}

  static List<String> mysqlOutbox(Dialect dialect, String outboxTable) {
    return statements(render("mysql/outbox.sql", Map.of("outbox", outboxTable,
        "key_type", dialect == Dialect.MARIADB ? "LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" : "JSON")));
  }

  /**
   * The three triggers of a table. They record only the primary key of the changed row (new and
   * old): the tail reads the rows themselves in the same consistent snapshot as the outbox, which
   * keeps the triggers cheap and makes a column added by {@code ALTER TABLE} need no new trigger.
   * Names end with a hash of the body, so a changed primary key gets new names.
   */
  static List<MysqlTrigger> mysqlTriggers(TableSchema table, String outboxTable) {
    List<MysqlTrigger> out = new ArrayList<>();
    String[][] events = {{"INSERT", "I", "ai"}, {"UPDATE", "U", "au"}, {"DELETE", "D", "ad"}};
    List<ColumnInfo> key = keyColumns(table);
    for (String[] e : events) {
      String newKey = e[1].equals("D") ? "NULL" : mysqlJsonObject(key, "NEW");
      String oldKey = e[1].equals("I") ? "NULL" : mysqlJsonObject(key, "OLD");
      Map<String, String> values = new HashMap<>(Map.of("trigger", NAME_STAND_IN, "event", e[0],
          "table", Identifiers.quote(Dialect.MYSQL, table.id()), "outbox", outboxTable,
          "table_literal", Identifiers.literal(table.id().qualified()), "op", e[1], "new_key", newKey, "old_key", oldKey));
      String base = table.id().name();
      int room = 64 - TRIGGER_PREFIX.length() - 4 - 8;
      if (base.length() > room) {
        base = base.substring(0, room);
      }
      String name = TRIGGER_PREFIX + base + "_" + e[2] + "_" + hash8(render("mysql/trigger.sql", values));
      values.put("trigger", Identifiers.quote(Dialect.MYSQL, table.id().schema()) + "."
          + Identifiers.quote(Dialect.MYSQL, name));
      String sql = render("mysql/trigger.sql", values);
      out.add(new MysqlTrigger(name, sql));
    }
    return out;
  }

  /** MySQL/MariaDB {@code FLOAT} (single precision): sent as its exact value, shortest form. */
  static boolean isSinglePrecision(ColumnInfo c) {
    return c.kind() == ColumnKind.FLOAT && "float".equalsIgnoreCase(c.dbType());
  }

  /** The primary-key columns of {@code table}, in key order. */
  static List<ColumnInfo> keyColumns(TableSchema table) {
    List<ColumnInfo> key = new ArrayList<>();
    for (String name : table.primaryKey()) {
      key.add(table.column(name));
    }
    return key;
  }

  /** {@code JSON_OBJECT('col', expr, ...)} of every column: the row form of snapshots and fetched rows. */
  static String mysqlJsonObject(TableSchema table, String prefix) {
    return mysqlJsonObject(table.columns(), prefix);
  }

  /**
   * {@code JSON_OBJECT('col', expr, ...)}: the one generator shared by triggers (key columns of
   * {@code NEW}/{@code OLD}) and row reads, so a key reads the same in both.
   */
  static String mysqlJsonObject(List<ColumnInfo> columns, String prefix) {
    StringJoiner j = new StringJoiner(", ", "JSON_OBJECT(", ")");
    for (ColumnInfo c : columns) {
      String ref = prefix + "." + Identifiers.quote(Dialect.MYSQL, c.name());
      String expr;
      if (c.kind() == ColumnKind.BINARY) {
        expr = "REPLACE(TO_BASE64(" + ref + "), CHAR(10 USING ascii), '')";
      } else if (c.kind() == ColumnKind.TIMESTAMP_TZ) {
        expr = "UNIX_TIMESTAMP(" + ref + ")"; // independent of the session time zone
      } else if (isSinglePrecision(c)) {
        expr = "CAST(" + ref + " AS DOUBLE)"; // JSON_OBJECT prints FLOAT with 6 digits (16777217 -> 16777200)
      } else {
        expr = ref;
      }
      j.add(Identifiers.literal(c.name()) + ", " + expr);
    }
    return j.toString();
  }

  /**
   * MySQL/MariaDB: every column of the rows of {@code table} whose primary key is one of
   * {@code keys} key tuples, as {@link #mysqlJsonObject(TableSchema, String)} rows. Parameters are
   * the key values as the triggers' {@code JSON_OBJECT} printed them, as text, key by key.
   */
  static String mysqlRowsByKey(TableSchema table, int keys) {
    List<ColumnInfo> key = keyColumns(table);
    StringJoiner columns = new StringJoiner(", ", key.size() == 1 ? "" : "(", key.size() == 1 ? "" : ")");
    StringJoiner tuple = new StringJoiner(", ", key.size() == 1 ? "" : "(", key.size() == 1 ? "" : ")");
    for (ColumnInfo c : key) {
      columns.add("t." + Identifiers.quote(Dialect.MYSQL, c.name()));
      tuple.add(c.kind() == ColumnKind.BINARY ? "FROM_BASE64(?)"
          : c.kind() == ColumnKind.TIMESTAMP_TZ ? "FROM_UNIXTIME(CAST(? AS DECIMAL(20, 6)))" : "?");
    }
    StringJoiner in = new StringJoiner(", ", " IN (", ")");
    for (int i = 0; i < keys; i++) {
      in.add(tuple.toString());
    }
    return "SELECT " + mysqlJsonObject(table, "t") + " FROM " + Identifiers.quote(Dialect.MYSQL, table.id()) + " t WHERE "
        + columns + in;
  }

  static List<String> pgOutbox(String schema) {
    Identifiers.refuseDollarTag(Dialect.POSTGRESQL, "schema", schema);
    return statements(render("postgresql/outbox.sql", Map.of("schema", Identifiers.quote(Dialect.POSTGRESQL, schema))));
  }

  static String pgTrigger(String schema, TableId table) {
    Identifiers.refuseDollarTag(Dialect.POSTGRESQL, "schema", schema);
    Identifiers.refuseDollarTag(Dialect.POSTGRESQL, "schema", table.schema());
    Identifiers.refuseDollarTag(Dialect.POSTGRESQL, "table", table.name());
    String quoted = Identifiers.quote(Dialect.POSTGRESQL, table);
    return render("postgresql/trigger.sql", Map.of("schema", Identifiers.quote(Dialect.POSTGRESQL, schema),
        "table", quoted, "table_literal", Identifiers.literal(quoted)));
  }

  /** The body of the PostgreSQL capture function as {@code pg_proc.prosrc} holds it. */
  static String pgFunctionBody(String schema) {
    for (String s : pgOutbox(schema)) {
      int start = s.indexOf(PG_DOLLAR_TAG);
      if (s.startsWith("CREATE OR REPLACE FUNCTION") && start >= 0) {
        return s.substring(start + PG_DOLLAR_TAG.length(), s.lastIndexOf(PG_DOLLAR_TAG));
      }
    }
    throw new IllegalStateException("postgresql/outbox.sql defines no capture function");
  }

  static String hash8(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Loads a template, drops its leading comment block, fills {@code ${name}} placeholders ({@link #fill}). */
  static String render(String resource, Map<String, String> values) {
    String text;
    try (InputStream in = TriggerScripts.class.getResourceAsStream("sql/" + resource)) {
      if (in == null) {
        throw new IllegalStateException("trigger template io/tablecast/server/capture/sql/" + resource + " is missing");
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    StringBuilder body = new StringBuilder();
    boolean header = true;
    for (String line : text.split("\n", -1)) {
      if (header && line.startsWith("--")) {
        continue;
      }
      header = false;
      body.append(line).append('\n');
    }
    return fill(resource, body.toString().strip(), values);
  }

  /**
   * Replaces every {@code ${name}} of {@code template} by its value in one pass over the template:
   * a value is copied as is, never searched for placeholders itself (a column named
   * {@code ${old_row}} stays that name).
   *
   * @throws IllegalStateException naming the template and the placeholder that has no value
   */
  static String fill(String resource, String template, Map<String, String> values) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder(template.length() + 256);
    while (m.find()) {
      String value = values.get(m.group(1));
      if (value == null) {
        throw new IllegalStateException("template " + resource + " has the placeholder " + m.group()
            + ", which has no value; expected one of " + new TreeSet<>(values.keySet()));
      }
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Splits a rendered script into statements: each top-level statement starts a line with CREATE. */
  private static List<String> statements(String script) {
    List<String> out = new ArrayList<>();
    for (String s : script.split(";\\s*\\n(?=CREATE )")) {
      String t = s.strip();
      if (t.endsWith(";")) {
        t = t.substring(0, t.length() - 1);
      }
      if (!t.isEmpty()) {
        out.add(t);
      }
    }
    return out;
  }
}

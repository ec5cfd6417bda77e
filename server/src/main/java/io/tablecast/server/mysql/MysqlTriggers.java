package io.tablecast.server.mysql;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.server.capture.ChunkQuery;
import io.tablecast.server.capture.Identifiers;
import io.tablecast.server.capture.SnapshotRead;
import io.tablecast.server.capture.SqlTemplates;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Function;

/**
 * The MySQL/MariaDB capture SQL: the outbox, the three key-recording triggers of a table, and the
 * {@code JSON_OBJECT} row generator shared by triggers (key columns), snapshots and reads by key,
 * so a key reads the same in all three. Templates: {@code sql/triggers/mysql/}.
 */
final class MysqlTriggers {
  /** Stands for the trigger's name in the body whose hash ends that name. */
  private static final String NAME_STAND_IN = "@@NAME@@";

  private MysqlTriggers() {}

  /** A trigger to create: the table it is on, its unquoted name and its full statement. */
  record Trigger(TableId table, String name, String sql) {}

  static List<String> outbox(MysqlFlavor flavor, String outboxTable) {
    return SqlTemplates.statements(
        SqlTemplates.render(
            "mysql/outbox.sql", Map.of("outbox", outboxTable, "key_type", flavor.outboxKeyType)));
  }

  /**
   * The three triggers of a table. They record only the primary key of the changed row (new and
   * old): the tail reads the rows themselves in the same consistent snapshot as the outbox, which
   * keeps the triggers cheap and makes a column added by {@code ALTER TABLE} need no new trigger.
   * Names end with a hash of the body, so a changed primary key gets new names.
   */
  static List<Trigger> triggers(TableSchema table, String outboxTable) {
    List<Trigger> out = new ArrayList<>();
    String[][] events = {{"INSERT", "I", "ai"}, {"UPDATE", "U", "au"}, {"DELETE", "D", "ad"}};
    List<ColumnInfo> key = keyColumns(table);
    for (String[] e : events) {
      String newKey = e[1].equals("D") ? "NULL" : jsonObject(key, "NEW");
      String oldKey = e[1].equals("I") ? "NULL" : jsonObject(key, "OLD");
      Map<String, String> values =
          new HashMap<>(
              Map.of(
                  "trigger",
                  NAME_STAND_IN,
                  "event",
                  e[0],
                  "table",
                  MysqlIdentifiers.quote(table.id()),
                  "outbox",
                  outboxTable,
                  "table_literal",
                  Identifiers.literal(table.id().qualified()),
                  "op",
                  e[1],
                  "new_key",
                  newKey,
                  "old_key",
                  oldKey));
      out.add(render(table.id(), e[2], "mysql/trigger.sql", values));
    }
    return out;
  }

  /**
   * Renders a trigger template whose {@code ${trigger}} names it: {@code
   * tablecast_<table>_<suffix>_<hash8>}, the hash taken over the body with a stand-in for the name,
   * so a changed body gets a new name.
   */
  static Trigger render(TableId table, String suffix, String template, Map<String, String> values) {
    Map<String, String> filled = new HashMap<>(values);
    filled.put("trigger", NAME_STAND_IN);
    String base = table.name();
    int room = 64 - SqlTemplates.TRIGGER_PREFIX.length() - suffix.length() - 2 - 8;
    if (base.length() > room) {
      base = base.substring(0, room);
    }
    String name =
        SqlTemplates.TRIGGER_PREFIX
            + base
            + "_"
            + suffix
            + "_"
            + SqlTemplates.hash8(SqlTemplates.render(template, filled));
    filled.put(
        "trigger", MysqlIdentifiers.quote(table.schema()) + "." + MysqlIdentifiers.quote(name));
    return new Trigger(table, name, SqlTemplates.render(template, filled));
  }

  /**
   * Whether capture triggers made for {@code before} also capture {@code after}: they record only
   * the key.
   */
  static boolean sameKey(TableSchema before, TableSchema after) {
    return keyColumns(before).equals(keyColumns(after));
  }

  /** The primary-key columns of {@code table}, in key order. */
  static List<ColumnInfo> keyColumns(TableSchema table) {
    List<ColumnInfo> key = new ArrayList<>();
    for (String name : table.primaryKey()) {
      key.add(table.column(name));
    }
    return key;
  }

  /**
   * {@code JSON_OBJECT('col', expr, ...)}: the one generator shared by triggers (key columns of
   * {@code NEW}/{@code OLD}) and row reads, so a key reads the same in both.
   */
  static String jsonObject(List<ColumnInfo> columns, String prefix) {
    return jsonObject(columns, c -> prefix + "." + MysqlIdentifiers.quote(c.name()));
  }

  /**
   * {@link #jsonObject(List, String)} with each column's value read from the SQL expression {@code
   * ref} gives.
   */
  static String jsonObject(List<ColumnInfo> columns, Function<ColumnInfo, String> ref) {
    StringJoiner j = new StringJoiner(", ", "JSON_OBJECT(", ")");
    for (ColumnInfo c : columns) {
      j.add(Identifiers.literal(c.name()) + ", " + MysqlTypes.jsonValue(c, ref.apply(c)));
    }
    return j.toString();
  }

  /**
   * The select list of a row of table {@code t} in whole-table and range reads, and its shape: its
   * columns as texts when every column's JSON form is its text ({@link MysqlTypes#readAsText}),
   * else its {@code JSON_OBJECT}.
   */
  record RowSelect(String list, SnapshotRead.Shape shape) {}

  static RowSelect rowSelect(MysqlFlavor flavor, TableSchema table) {
    if (!table.columns().stream().allMatch(c -> MysqlTypes.readAsText(flavor, c))) {
      return new RowSelect(jsonObject(table.columns(), "t"), SnapshotRead.Shape.JSON_TEXT);
    }
    StringJoiner list = new StringJoiner(", ");
    for (ColumnInfo c : table.columns()) {
      list.add(MysqlTypes.textValue(c, "t." + MysqlIdentifiers.quote(c.name())));
    }
    return new RowSelect(list.toString(), SnapshotRead.Shape.COLUMN_TEXTS);
  }

  /**
   * A key range in key order ({@link io.tablecast.server.capture.Dialect#chunkQuery}). The
   * condition "after key k" is written out ({@code k1 > ? OR (k1 = ? AND k2 > ?) ...}), which
   * MariaDB's and MySQL's range optimizers turn into one range of the primary key; an ENUM or SET
   * key column is compared and ordered by its number, as ORDER BY orders it.
   */
  static ChunkQuery chunk(MysqlFlavor flavor, TableSchema table, boolean afterKey, int limit) {
    List<ColumnInfo> key = keyColumns(table);
    StringJoiner order = new StringJoiner(", ");
    StringJoiner texts = new StringJoiner("");
    StringJoiner after = new StringJoiner(" OR ");
    List<Integer> parameters = new ArrayList<>();
    for (int i = 0; i < key.size(); i++) {
      String ref = "t." + MysqlIdentifiers.quote(key.get(i).name());
      order.add(ref);
      texts.add(", " + MysqlTypes.resumeText(key.get(i), ref));
      StringJoiner term = new StringJoiner(" AND ", "(", ")");
      for (int j = 0; j <= i; j++) {
        ColumnInfo c = key.get(j);
        String column = MysqlTypes.resumeComparable(c, "t." + MysqlIdentifiers.quote(c.name()));
        term.add(column + (j < i ? " = " : " > ") + MysqlTypes.resumeParameter(c));
        parameters.add(j);
      }
      after.add(term.toString());
    }
    RowSelect row = rowSelect(flavor, table);
    String sql =
        "SELECT "
            + row.list()
            + texts
            + " FROM "
            + MysqlIdentifiers.quote(table.id())
            + " t"
            + (afterKey ? " WHERE " + after : "")
            + " ORDER BY "
            + order
            + " LIMIT "
            + limit;
    return new ChunkQuery(
        sql,
        row.shape(),
        afterKey ? parameters.stream().mapToInt(Integer::intValue).toArray() : new int[0],
        java.sql.Types.VARCHAR);
  }

  /**
   * Every column of the rows of {@code table} whose primary key is one of {@code keys} key tuples,
   * as {@link #jsonObject} rows, then the key alone as a second column. Parameters are the key
   * values as the triggers' {@code JSON_OBJECT} printed them, as text, key by key. The statement
   * waits at most {@link LockedTables#WAIT_SECONDS} for the table's metadata lock.
   */
  static String rowsByKey(MysqlFlavor flavor, TableSchema table, int keys) {
    return RowsByKey.of(flavor, table, rowSelect(flavor, table)).sql(keys);
  }

  /**
   * The statement of {@link #rowsByKey} for any number of keys: everything before the key tuples,
   * and one tuple of parameters.
   *
   * @param head the statement up to its {@code IN (}
   * @param tuple the parameters of one key
   */
  record RowsByKey(String head, String tuple) {
    static RowsByKey of(MysqlFlavor flavor, TableSchema table, RowSelect row) {
      List<ColumnInfo> key = keyColumns(table);
      StringJoiner columns =
          new StringJoiner(", ", key.size() == 1 ? "" : "(", key.size() == 1 ? "" : ")");
      StringJoiner tuple =
          new StringJoiner(", ", key.size() == 1 ? "" : "(", key.size() == 1 ? "" : ")");
      for (ColumnInfo c : key) {
        columns.add("t." + MysqlIdentifiers.quote(c.name()));
        tuple.add(MysqlTypes.keyParameter(c));
      }
      // as JSON, the key again on its own: it names a row whose JSON_OBJECT is NULL (too large)
      return new RowsByKey(
          flavor.boundedLockWait(
              "SELECT "
                  + row.list()
                  + (row.shape() == SnapshotRead.Shape.JSON_TEXT ? ", " + jsonObject(key, "t") : "")
                  + " FROM "
                  + MysqlIdentifiers.quote(table.id())
                  + " t WHERE "
                  + columns
                  + " IN (",
              LockedTables.WAIT_SECONDS),
          tuple.toString());
    }

    /** The statement for {@code keys} keys. */
    String sql(int keys) {
      StringBuilder sql = new StringBuilder(head.length() + keys * (tuple.length() + 2) + 1);
      sql.append(head);
      for (int i = 0; i < keys; i++) {
        sql.append(i == 0 ? "" : ", ").append(tuple);
      }
      return sql.append(')').toString();
    }
  }
}

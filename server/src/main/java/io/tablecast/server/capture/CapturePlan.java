package io.tablecast.server.capture;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Server-internal: what the tailer needs to read a source, produced by {@link TriggerInstaller#plan()}:
 * the dialect, how to connect, the described tables, where the outbox is, and the snapshot query
 * and {@link RowNormalizer} of each table (the snapshot uses the triggers' JSON generator).
 */
public final class CapturePlan {
  private final Dialect dialect;
  private final String jdbcUrl;
  private final Properties properties;
  private final String outboxSchema;
  private final List<TableSchema> tables;
  private final Map<String, RowNormalizer> normalizers = new LinkedHashMap<>();

  CapturePlan(Dialect dialect, String jdbcUrl, Properties properties, String outboxSchema, List<TableSchema> tables) {
    this.dialect = dialect;
    this.jdbcUrl = jdbcUrl;
    this.properties = properties;
    this.outboxSchema = outboxSchema;
    this.tables = List.copyOf(tables);
    for (TableSchema t : tables) {
      normalizers.put(t.id().qualified(), new RowNormalizer(t, dialect));
    }
  }

  public Dialect dialect() {
    return dialect;
  }

  /** The URL to give the driver ({@code jdbc:mysql:} rewritten to {@code jdbc:mariadb:}). */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** user / password when configured apart from the URL. */
  public Properties connectionProperties() {
    Properties copy = new Properties();
    copy.putAll(properties);
    return copy;
  }

  /** Opens a new connection outside any pool. */
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl, properties);
  }

  public List<TableSchema> tables() {
    return tables;
  }

  /** The outbox, quoted and qualified, for use in SQL. */
  public String outboxTable() {
    return Identifiers.quote(dialect, outboxSchema) + "." + Identifiers.quote(dialect, "tablecast_outbox");
  }

  /** This plan with {@code table}'s description replaced (after an ALTER TABLE that kept its key). */
  public CapturePlan withTable(TableSchema table) {
    List<TableSchema> replaced = new java.util.ArrayList<>();
    for (TableSchema t : tables) {
      replaced.add(t.id().equals(table.id()) ? table : t);
    }
    return new CapturePlan(dialect, jdbcUrl, properties, outboxSchema, replaced);
  }

  /** Whether capture triggers made for {@code before} also capture {@code after}: they record only the key. */
  public static boolean sameKey(TableSchema before, TableSchema after) {
    return TriggerScripts.keyColumns(before).equals(TriggerScripts.keyColumns(after));
  }

  /** The normalizer of a table by its qualified name (as stored in the outbox), or null. */
  public RowNormalizer normalizer(String qualifiedTable) {
    return normalizers.get(qualifiedTable);
  }

  /** A query returning one column: each row of the table as JSON text, from the triggers' generator. */
  public String snapshotQuery(TableSchema table) {
    String from = Identifiers.quote(dialect, table.id()) + " t";
    return dialect == Dialect.POSTGRESQL
        ? "SELECT to_jsonb(t)::text FROM " + from
        : "SELECT " + TriggerScripts.mysqlJsonObject(table, "t") + " FROM " + from;
  }

  /**
   * MySQL/MariaDB: the rows of {@code table} with one of {@code keys} primary keys, in the snapshot
   * form; bind the key values of the outbox's key images as text, key after key (see
   * {@link #keyValues}).
   */
  public String rowsByKeyQuery(TableSchema table, int keys) {
    if (dialect == Dialect.POSTGRESQL) {
      throw new IllegalStateException("PostgreSQL outbox rows carry whole row images; rows are not read by key");
    }
    return TriggerScripts.mysqlRowsByKey(table, keys);
  }

  /** The values to bind for one key image (as the triggers printed it) in {@link #rowsByKeyQuery}. */
  public static List<String> keyValues(TableSchema table, com.fasterxml.jackson.databind.JsonNode keyImage) {
    List<String> out = new java.util.ArrayList<>(table.primaryKey().size());
    for (String column : table.primaryKey()) {
      com.fasterxml.jackson.databind.JsonNode v = keyImage.get(column);
      if (v == null || v.isNull()) {
        throw new IllegalStateException("key image of " + table.id() + " lacks key column " + column + ": " + keyImage);
      }
      out.add(v.isNumber() ? v.decimalValue().toPlainString() : v.isBoolean() ? (v.asBoolean() ? "1" : "0") : v.asText());
    }
    return out;
  }

  /**
   * Describes a table from the catalog now (to detect an ALTER TABLE since the plan was made).
   *
   * @throws IllegalArgumentException when the table is gone, lost its key or gained an unsupported type
   */
  public TableSchema describe(Connection c, TableId id) throws SQLException {
    return Catalog.describe(c, dialect, id);
  }
}

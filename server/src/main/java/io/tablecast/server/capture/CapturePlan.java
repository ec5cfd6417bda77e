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

  private final Map<TableId, ColumnChoice> choices;

  CapturePlan(Dialect dialect, String jdbcUrl, Properties properties, String outboxSchema, List<TableSchema> tables,
      Map<TableId, ColumnChoice> choices) {
    this.choices = Map.copyOf(choices);
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

  /** The schema (PostgreSQL) or database (MySQL) of the outbox. */
  public String outboxSchema() {
    return outboxSchema;
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
    return new CapturePlan(dialect, jdbcUrl, properties, outboxSchema, replaced, choices);
  }

  /** Whether capture triggers made for {@code before} also capture {@code after}: they record only the key. */
  public static boolean sameKey(TableSchema before, TableSchema after) {
    return MysqlTriggers.keyColumns(before).equals(MysqlTriggers.keyColumns(after));
  }

  /**
   * Every trigger the cached tables need now (MySQL/MariaDB: their own, and their parents'
   * key-recording triggers for every foreign-key action into them), whether the catalog shows
   * it, and what cannot be captured. Costs a few indexed catalog lookups per table. A
   * MySQL/MariaDB plan's check: PostgreSQL's capture (partitions, children, trigger states) is
   * checked by {@code PgCaptureWatch}.
   *
   * @throws IllegalStateException when called on a PostgreSQL plan (a programming error)
   */
  public CaptureStatus captureStatus(Connection c) throws SQLException {
    if (!(CaptureDialect.of(dialect) instanceof MysqlCapture mysql)) {
      throw new IllegalStateException("captureStatus is the MySQL/MariaDB capture check; PostgreSQL's is "
          + "PgCaptureWatch");
    }
    return mysql.captureStatus(c, new CaptureDialect.Installation(outboxSchema, outboxTable()), tables);
  }

  /**
   * What the catalog says now about the capture of the cached tables ({@link CaptureCheck}), or
   * null when this database family has nothing to follow this way (MySQL/MariaDB).
   *
   * @param formerMembers relations that belonged to the tables at the previous check
   */
  public CaptureCheck checkCapture(Connection c, java.util.Collection<Long> formerMembers) throws SQLException {
    return CaptureDialect.of(dialect).checkCapture(c, installation(), tables, formerMembers);
  }

  /** The statements that repair {@code problems} (missing, disabled, stray triggers), for one transaction. */
  public List<String> repairStatements(Connection c, List<CaptureCheck.Problem> problems) throws SQLException {
    return CaptureDialect.of(dialect).repairStatements(c, installation(), tables, problems);
  }

  /** Statements to run first in a transaction that reads whole tables, so rows print as the triggers print them. */
  public List<String> tableReadSettings() {
    return CaptureDialect.of(dialect).tableReadSettings();
  }

  private CaptureDialect.Installation installation() {
    return new CaptureDialect.Installation(outboxSchema, outboxTable());
  }

  /** The normalizer of a table by its qualified name (as stored in the outbox), or null. */
  public RowNormalizer normalizer(String qualifiedTable) {
    return normalizers.get(qualifiedTable);
  }

  /** A query returning one column: each row of the table as JSON text, from the triggers' generator. */
  public String snapshotQuery(TableSchema table) {
    return CaptureDialect.of(dialect).snapshotQuery(table);
  }

  /** A key range of the table in key order, for reconciliation (see {@link CaptureDialect#chunkQuery}). */
  public ChunkQuery chunkQuery(TableSchema table, boolean afterKey, int limit) {
    return CaptureDialect.of(dialect).chunkQuery(table, afterKey, limit);
  }

  /**
   * MySQL/MariaDB: the rows of {@code table} with one of {@code keys} primary keys, in the snapshot
   * form; bind the key values of the outbox's key images as text, key after key (see
   * {@link #keyValues}).
   */
  public String rowsByKeyQuery(TableSchema table, int keys) {
    return CaptureDialect.of(dialect).rowsByKeyQuery(table, keys);
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
    return Catalog.describe(c, dialect, id, choices.getOrDefault(id, ColumnChoice.ALL));
  }
}

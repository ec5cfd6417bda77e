package io.tablecast.server.capture;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * Server-internal: what the tailer needs to read a source, produced by {@link
 * TriggerInstaller#plan()}: the dialect, how to connect, the described tables, where the outbox is,
 * and the snapshot query and {@link RowNormalizer} of each table (the snapshot uses the triggers'
 * JSON generator).
 */
public final class CapturePlan {
  private final Dialect dialect;
  private final String jdbcUrl;
  private final Supplier<Properties> login;
  private final String outboxSchema;
  private final List<TableSchema> tables;
  private final Map<String, RowNormalizer> normalizers = new LinkedHashMap<>();

  private final Map<TableId, ColumnChoice> choices;

  CapturePlan(
      Dialect dialect,
      String jdbcUrl,
      Supplier<Properties> login,
      String outboxSchema,
      List<TableSchema> tables,
      Map<TableId, ColumnChoice> choices) {
    this.choices = Map.copyOf(choices);
    this.dialect = dialect;
    this.jdbcUrl = jdbcUrl;
    this.login = login;
    this.outboxSchema = outboxSchema;
    this.tables = List.copyOf(tables);
    for (TableSchema t : tables) {
      normalizers.put(t.id().qualified(), new RowNormalizer(t, dialect));
    }
  }

  /** The database's dialect: one object per database, with the SQL and rules of its family. */
  public Dialect dialect() {
    return dialect;
  }

  /** The URL to give the driver ({@code jdbc:mysql:} rewritten to {@code jdbc:mariadb:}). */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /**
   * user / password when configured apart from the URL, a new copy each time: the password as
   * {@code source.password_file} holds it now.
   */
  public Properties connectionProperties() {
    return login.get();
  }

  /** Opens a new connection outside any pool, with the password of now. */
  public Connection connect() throws SQLException {
    Connection c = DriverManager.getConnection(jdbcUrl, login.get());
    try {
      return dialect.setUp(c);
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
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
    return dialect.quote(outboxSchema) + "." + dialect.quote(outboxId().name());
  }

  /** The outbox, by name. */
  public TableId outboxId() {
    return new TableId(outboxSchema, "tablecast_outbox");
  }

  /**
   * This plan with {@code table}'s description replaced (after an ALTER TABLE that kept its key).
   */
  public CapturePlan withTable(TableSchema table) {
    List<TableSchema> replaced = new ArrayList<>();
    for (TableSchema t : tables) {
      replaced.add(t.id().equals(table.id()) ? table : t);
    }
    return new CapturePlan(dialect, jdbcUrl, login, outboxSchema, replaced, choices);
  }

  /** Where this plan's outbox lives, for the dialect's statements. */
  public Dialect.Installation installation() {
    return new Dialect.Installation(outboxSchema, outboxTable());
  }

  /** The normalizer of a table by its qualified name (as stored in the outbox), or null. */
  public RowNormalizer normalizer(String qualifiedTable) {
    return normalizers.get(qualifiedTable);
  }

  /** How to read every row of the table (see {@link Dialect#snapshotRead}). */
  public SnapshotRead snapshotRead(TableSchema table) {
    return dialect.snapshotRead(table);
  }

  /** Prepares a read taken as texts (see {@link Dialect#prepareRead}). */
  public PreparedStatement prepareRead(Connection c, String sql) throws SQLException {
    return dialect.prepareRead(c, sql);
  }

  /** A key range of the table in key order, for reconciliation (see {@link Dialect#chunkQuery}). */
  public ChunkQuery chunkQuery(TableSchema table, boolean afterKey, int limit) {
    return dialect.chunkQuery(table, afterKey, limit);
  }

  /**
   * Describes a table from the catalog now (to detect an ALTER TABLE since the plan was made).
   *
   * @throws IllegalArgumentException when the table is gone, lost its key or gained an unsupported
   *     type
   */
  public TableSchema describe(Connection c, TableId id) throws SQLException {
    return Catalog.describe(c, dialect, id, choices.getOrDefault(id, ColumnChoice.ALL), false);
  }

  /**
   * The table's columns and key from the catalog now, without the table's own checks (a base table,
   * no foreign partition), which a change of columns does not touch.
   */
  public TableSchema describeLayout(Connection c, TableId id) throws SQLException {
    return Catalog.describeLayout(
        c, dialect, id, choices.getOrDefault(id, ColumnChoice.ALL), false);
  }
}

package io.tablecast.server.capture;

import io.tablecast.protocol.ColumnInfo;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What differs between database families in capture: the catalog queries that describe a
 * table, the outbox and trigger SQL, how installed triggers are found, checked and dropped, and
 * the SQL that reads rows. One implementation per family ({@link MysqlCapture} for MySQL and
 * MariaDB, {@link PgCapture} for PostgreSQL); {@link Catalog}, {@link TriggerInstaller} and
 * {@link CapturePlan} hold the shared flow and never branch on the dialect.
 */
interface CaptureDialect {

  /** Where one installation lives: the schema of the outbox, and the outbox quoted for SQL. */
  record Installation(String schema, String outbox) {}

  /** The strategy of {@code dialect}. */
  static CaptureDialect of(Dialect dialect) {
    return dialect == Dialect.POSTGRESQL ? PgCapture.INSTANCE
        : dialect == Dialect.MARIADB ? MysqlCapture.MARIADB : MysqlCapture.MYSQL;
  }

  Dialect dialect();

  // ---- catalog

  /**
   * Checks that {@code id} is a table this dialect can capture (exists, is a base table, is
   * transactional).
   *
   * @throws IllegalArgumentException naming the table and what is wrong with it
   */
  void checkTable(Connection c, TableId id) throws SQLException;

  /**
   * Every column of the table, in table order, with its kind, or, for a type that cannot be
   * captured, why not (never throws for one: the caller names them all at once).
   */
  List<CatalogColumn> columns(Connection c, TableId id) throws SQLException;

  /** The primary-key column names in key order; empty when the table has none. */
  List<String> primaryKey(Connection c, TableId id) throws SQLException;

  // ---- installation

  /** The capture triggers of this installation present in the catalog, on any table. */
  List<InstalledTrigger> installedTriggers(Connection c, Installation inst) throws SQLException;

  /** The statement that drops one installed trigger. */
  String dropSql(InstalledTrigger trigger);

  /**
   * What install runs: outbox, the triggers of {@code tables}, then drops of this installation's
   * triggers that are stale (after an ALTER TABLE) or on {@code unconfigured} tables.
   *
   * @throws IllegalStateException when a table cannot be captured as configured (e.g. a foreign
   *     key that changes it without firing triggers)
   */
  List<String> installStatements(Connection c, Installation inst, List<TableSchema> tables,
      List<InstalledTrigger> installed, List<InstalledTrigger> unconfigured) throws SQLException;

  /** Whether DDL is transactional, so install runs all its statements in one transaction. */
  boolean transactionalDdl();

  /**
   * Every way the outbox and the current capture triggers of {@code tables} are not installed:
   * one {@link CaptureFinding.Severity#ERROR} per missing or stale piece, naming its table and the
   * way out; empty when all is in place.
   */
  List<CaptureFinding> installProblems(Connection c, Installation inst, List<TableSchema> tables) throws SQLException;

  /** What uninstall runs, the outbox's drop excluded: every trigger of this installation and its functions. */
  List<String> uninstallStatements(Connection c, Installation inst, List<InstalledTrigger> installed)
      throws SQLException;

  /**
   * The tables that carry this configuration's capture triggers: the cached tables, and for
   * dialects whose foreign-key actions fire no triggers (MySQL/MariaDB) the parents whose actions
   * change them. Install never removes wanted triggers from these as "no longer configured".
   */
  default Set<TableId> triggerTables(Connection c, List<TableSchema> tables) throws SQLException {
    Set<TableId> out = new LinkedHashSet<>();
    tables.forEach(t -> out.add(t.id()));
    return out;
  }

  /** One statement of {@code print-sql}'s script, terminated so the database's own client runs it. */
  default String printable(String statement) {
    return statement + ";";
  }

  // ---- following the capture while serving

  /**
   * What the catalog says now about the capture of {@code tables}: their relations and the
   * problems of the triggers they need ({@link CaptureCheck}). Cheap enough to run every second.
   * The default, for dialects whose triggers sit on the cached tables only and are checked by
   * reconciliation instead (MySQL/MariaDB), is null: nothing to follow.
   *
   * @param formerMembers relations that belonged to the tables at the previous check, to find
   *     capture triggers left on them after they left
   */
  default CaptureCheck checkCapture(Connection c, Installation inst, List<TableSchema> tables,
      java.util.Collection<Long> formerMembers) throws SQLException {
    return null;
  }

  /**
   * The statements that repair {@code problems} found by {@link #checkCapture}, as far as
   * installing can (missing, disabled and stray triggers); run in one transaction.
   */
  default List<String> repairStatements(Connection c, Installation inst, List<TableSchema> tables,
      List<CaptureCheck.Problem> problems) throws SQLException {
    return List.of();
  }

  /**
   * Statements to run at the start of each transaction that reads whole tables (snapshot,
   * resync), so the rows print as the triggers print them.
   */
  default List<String> tableReadSettings() {
    return List.of();
  }

  /** A query with one parameter (the schema) returning a row when the outbox exists. */
  String outboxExistsQuery();

  // ---- reads

  /** A query returning one column: each row of the table as JSON text, from the triggers' generator. */
  String snapshotQuery(TableSchema table);

  /**
   * The rows of {@code table} with one of {@code keys} primary keys, in the snapshot form (dialects
   * whose outbox records keys only).
   *
   * @throws IllegalStateException when the outbox of this dialect records whole rows
   */
  String rowsByKeyQuery(TableSchema table, int keys);

  /**
   * Up to {@code limit} rows of {@code table} in primary-key order, for reconciliation
   * (see {@link ChunkQuery}). The key comparison and the ORDER BY must order keys alike (same
   * collation, same order of enum values), or a chunk would skip rows.
   */
  ChunkQuery chunkQuery(TableSchema table, boolean afterKey, int limit);
}

package io.tablecast.server.capture;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.row.InstantText;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What differs between databases in capture, owned by one object per database: identifier rules,
 * the catalog queries that describe a table, the outbox and trigger SQL and how installed triggers
 * are found, checked and dropped, the SQL that reads rows, and how the database prints some values.
 * The shared flow ({@link Catalog}, {@link TriggerInstaller}, {@link CapturePlan}, {@link
 * RowNormalizer}, {@link ConfigurationCheck}) calls it and never asks which database it is. A
 * family of databases ({@link DatabaseFamily}) lives in a package of its own ({@code
 * io.tablecast.server.mysql}, {@code io.tablecast.server.postgresql}), whose dialect also
 * implements {@code io.tablecast.server.tail.TailDialect}, which opens its change source.
 */
public interface Dialect {

  /** Where one installation lives: the schema of the outbox, and the outbox quoted for SQL. */
  record Installation(String schema, String outbox) {}

  /**
   * Runs a statement that changes nothing, rolled back: null when it ran, else the database's
   * error.
   */
  @FunctionalInterface
  interface Probe {
    String error(String sql) throws SQLException;
  }

  /**
   * The name logs and {@code tablecast check} show: {@code MARIADB}, {@code MYSQL}, {@code
   * POSTGRESQL}.
   */
  String name();

  /**
   * A statement run first on every connection the server opens to the database (its pool, the
   * installer's and the capture check's), or null: settings the server's SQL depends on that a
   * database's globals may change. MySQL/MariaDB sets {@code sql_mode}, {@code time_zone} and lifts
   * the statement limits ({@code io.tablecast.server.mysql.SessionSettings} says why); PostgreSQL
   * needs none, its whole-table reads set theirs per transaction ({@code SET LOCAL}), which a
   * pooler in transaction mode keeps.
   */
  default String sessionSetup() {
    return null;
  }

  /** Runs {@link #sessionSetup} on {@code c}, a connection just opened. */
  default Connection setUp(Connection c) throws SQLException {
    String sql = sessionSetup();
    if (sql != null) {
      try (Statement s = c.createStatement()) {
        s.execute(sql);
      }
    }
    return c;
  }

  // ---- identifiers

  /**
   * Quotes an identifier validated by {@link Identifiers#validate} so that it stays one identifier.
   */
  String quote(String identifier);

  /** {@code schema.name}, each part quoted. */
  default String quote(TableId id) {
    return quote(id.schema()) + "." + quote(id.name());
  }

  /**
   * Refuses a name longer than this database allows for an identifier.
   *
   * @param what what the name is, for the message ("table", "column", "schema")
   * @throws IllegalArgumentException naming the name and the limit
   */
  void checkLength(String what, String name);

  /** What holds the outbox, for the message when the URL names none ("database"). */
  String schemaNoun();

  /** A query returning the schema (or database) the URL's connections use, or NULL when none. */
  String currentSchemaQuery();

  // ---- catalog

  /**
   * Checks that {@code id} is a table this dialect can capture (exists, is a base table, is
   * transactional).
   *
   * @throws IllegalArgumentException naming the table and what is wrong with it
   */
  void checkTable(Connection c, TableId id) throws SQLException;

  /**
   * What keeps a table that passed {@link #checkTable} from being captured whole beside its
   * columns: each problem a sentence naming the table and the way out, reported with the column
   * problems of the same table. None by default.
   */
  default List<String> tableProblems(Connection c, TableId id) throws SQLException {
    return List.of();
  }

  /**
   * Every column of the table, in table order, with its kind, or, for a type that cannot be
   * captured, why not (never throws for one: the caller names them all at once).
   */
  List<CatalogColumn> columns(Connection c, TableId id) throws SQLException;

  /**
   * The key rows are cached by, column names in key order: the primary key or, for a table without
   * one, a unique index on NOT NULL columns (no prefix, expression or predicate; the one with the
   * fewest columns, then the first by name); empty when the table has neither.
   */
  List<String> primaryKey(Connection c, TableId id) throws SQLException;

  /**
   * The catalog's estimate of the table's row count (statistics, not a count: cheap, and off by
   * whatever changed since they were gathered), or -1 when the catalog has none. The server sizes a
   * table's image from it before reading the table (docs/GUARANTEES.md, A table bigger than the
   * heap). Unknown by default.
   */
  default long estimatedRows(Connection c, TableId id) throws SQLException {
    return -1;
  }

  // ---- installation

  /** The folder of {@code sql/triggers/} holding this dialect's templates. */
  String templates();

  /** The capture triggers of this installation present in the catalog, on any table. */
  List<InstalledTrigger> installedTriggers(Connection c, Installation inst) throws SQLException;

  /** The statement that drops one installed trigger. */
  String dropSql(InstalledTrigger trigger);

  /**
   * What install runs: outbox, the triggers of {@code tables}, then drops of this installation's
   * triggers that are stale (after an ALTER TABLE) or on {@code unconfigured} tables.
   *
   * @throws IllegalStateException when a table cannot be captured as configured (e.g. a foreign key
   *     that changes it without firing triggers)
   */
  List<String> installStatements(
      Connection c,
      Installation inst,
      List<TableSchema> tables,
      List<InstalledTrigger> installed,
      List<InstalledTrigger> unconfigured)
      throws SQLException;

  /**
   * Of an {@link #installStatements} script, the statements install runs against a database where
   * {@code installed} are present: all of them, unless creating what is there would still lock. The
   * printed script stays whole, to be run anywhere.
   */
  default List<String> toRun(List<String> script, List<InstalledTrigger> installed) {
    return script;
  }

  /** Whether DDL is transactional, so install runs all its statements in one transaction. */
  boolean transactionalDdl();

  /** How install keeps its lock waits short and names who holds a lock ({@link PatientDdl}). */
  DdlLocks ddlLocks();

  /**
   * Every way the outbox and the current capture triggers of {@code tables} are not installed: one
   * {@link CaptureFinding.Severity#ERROR} per missing or stale piece, naming its table and the way
   * out; empty when all is in place.
   */
  List<CaptureFinding> installProblems(Connection c, Installation inst, List<TableSchema> tables)
      throws SQLException;

  /**
   * What uninstall runs, the outbox's drop excluded: every trigger of this installation and its
   * functions.
   */
  List<String> uninstallStatements(
      Connection c, Installation inst, List<InstalledTrigger> installed) throws SQLException;

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

  /**
   * One statement of {@code print-sql}'s script, terminated so the database's own client runs it.
   */
  default String printable(String statement) {
    return statement + ";";
  }

  /** A query with one parameter (the schema) returning a row when the outbox exists. */
  String outboxExistsQuery();

  /**
   * What {@code tablecast check} reports about privileges serving needs beyond reading the tables
   * and the outbox, probed with {@code probe}; none by default.
   */
  default List<CaptureFinding> privilegeFindings(Probe probe) throws SQLException {
    return List.of();
  }

  /**
   * What keeps this database from being the source of capture: a replica (MySQL/MariaDB) or a
   * standby in recovery (PostgreSQL) takes its changes from another server, as row events or WAL
   * that fire no trigger, so capture there would record none of them. Errors name the server it
   * replicates from and say to point {@code source.jdbc_url} at the primary; a warning says when
   * this user may not see it. None by default.
   */
  default List<CaptureFinding> sourceFindings(Connection c) throws SQLException {
    return List.of();
  }

  // ---- reads

  /**
   * How to read every row of the table: by default one column, each row as JSON text from the
   * triggers' generator ({@link SnapshotRead.Shape#JSON_TEXT}).
   */
  SnapshotRead snapshotRead(TableSchema table);

  /** How whole-table reads ({@link #snapshotRead}) fetch their rows: by default the result set. */
  default RowTextsFetch rowTextsFetch() {
    return RowTextsFetch.RESULT_SET;
  }

  /**
   * Prepares a read whose results are taken as texts ({@link ChunkQuery}): by default as the driver
   * prepares any statement. A driver that switches a statement it saw often to binary results must
   * be kept to text here.
   */
  default PreparedStatement prepareRead(Connection c, String sql) throws SQLException {
    return c.prepareStatement(sql);
  }

  /**
   * Up to {@code limit} rows of {@code table} in primary-key order, for reconciliation (see {@link
   * ChunkQuery}). The key comparison and the ORDER BY must order keys alike (same collation, same
   * order of enum values), or a chunk would skip rows.
   */
  ChunkQuery chunkQuery(TableSchema table, boolean afterKey, int limit);

  // ---- values as this database's JSON prints them ({@link RowNormalizer})

  /** A DECIMAL value that arrived as text rather than as a JSON number, as a plain decimal. */
  default String decimal(String printed) {
    return printed;
  }

  /**
   * Whether the FLOAT values of {@code column} are single precision arriving as the exact double of
   * the float (MySQL {@code FLOAT}): they are sent in the float's shortest form, which round-trips
   * them. False by default.
   */
  default boolean singlePrecision(ColumnInfo column) {
    return false;
  }

  /** A BINARY value as this database's JSON prints it, as base64. */
  String binaryBase64(String printed);

  /**
   * A TIMESTAMP_TZ value that arrived as text, as the form of docs/TYPES.md ({@code
   * Instant.toString()}), or a text that names no instant as it is. By default ISO 8601 with an
   * offset ({@link InstantText#parse}), years 0 to 9999.
   *
   * @throws RuntimeException when it is neither (the caller names the column)
   */
  default String instant(String printed) {
    Instant instant = InstantText.parse(printed);
    if (instant == null) {
      instant = Instant.parse(printed);
    }
    return InstantText.print(instant.getEpochSecond(), instant.getNano());
  }
}

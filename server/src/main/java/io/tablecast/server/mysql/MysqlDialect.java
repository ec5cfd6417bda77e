package io.tablecast.server.mysql;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.server.capture.CaptureFinding;
import io.tablecast.server.capture.Catalog;
import io.tablecast.server.capture.CatalogColumn;
import io.tablecast.server.capture.ChunkQuery;
import io.tablecast.server.capture.DdlLocks;
import io.tablecast.server.capture.InstalledTrigger;
import io.tablecast.server.capture.RowTextsFetch;
import io.tablecast.server.capture.SnapshotRead;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.SessionProbe;
import io.tablecast.server.tail.SourceContext;
import io.tablecast.server.tail.TailDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The dialect of MariaDB 10.6+ and MySQL 8: three AFTER triggers per table record the primary key
 * of each changed row ({@link MysqlTriggers}); the tail reads the rows themselves by key in the
 * same consistent snapshot as the outbox rows ({@link MysqlChangeSource}). Catalog from {@code
 * information_schema}. Where MariaDB and MySQL differ, {@link MysqlFlavor} says.
 */
final class MysqlDialect implements TailDialect {
  private static final Logger LOG = RecentEvents.logger(MysqlDialect.class);

  private final MysqlFlavor flavor;
  private final MysqlCatalogQueries catalog;

  /** Whether the capture triggers' accounts exist, and whether this user may tell. */
  private final TriggerDefiners definers = new TriggerDefiners();

  MysqlDialect(MysqlFlavor flavor) {
    this.flavor = flavor;
    this.catalog = new MysqlCatalogQueries(flavor);
  }

  MysqlFlavor flavor() {
    return flavor;
  }

  @Override
  public String name() {
    return flavor.name();
  }

  /** {@link SessionSettings}: one session for every connection, whatever the database's globals. */
  @Override
  public String sessionSetup() {
    return SessionSettings.statement(flavor);
  }

  @Override
  public String toString() {
    return name();
  }

  // ---------------------------------------------------------------- identifiers

  @Override
  public String quote(String identifier) {
    return MysqlIdentifiers.quote(identifier);
  }

  @Override
  public void checkLength(String what, String name) {
    MysqlIdentifiers.checkLength(name(), what, name);
  }

  @Override
  public String schemaNoun() {
    return "database";
  }

  @Override
  public String currentSchemaQuery() {
    return "SELECT DATABASE()";
  }

  // ---------------------------------------------------------------- catalog (MysqlCatalogQueries)

  @Override
  public void checkTable(Connection c, TableId id) throws SQLException {
    catalog.checkTable(c, id);
  }

  @Override
  public List<CatalogColumn> columns(Connection c, TableId id) throws SQLException {
    return catalog.columns(c, id);
  }

  @Override
  public List<String> primaryKey(Connection c, TableId id) throws SQLException {
    return catalog.primaryKey(c, id);
  }

  @Override
  public long estimatedRows(Connection c, TableId id) throws SQLException {
    return catalog.estimatedRows(c, id);
  }

  // ---------------------------------------------------------------- installation

  @Override
  public String templates() {
    return "mysql";
  }

  /**
   * Triggers named {@code tablecast_*} whose statement writes to this installation's outbox, on any
   * table ({@link MysqlCatalogQueries#installedTriggers}).
   */
  @Override
  public List<InstalledTrigger> installedTriggers(Connection c, Installation inst)
      throws SQLException {
    return MysqlCatalogQueries.installedTriggers(c, inst.outbox());
  }

  @Override
  public String dropSql(InstalledTrigger t) {
    return MysqlInstallScript.drop(t);
  }

  /** New triggers before the drops of stale ones: {@link MysqlInstallScript#statements}. */
  @Override
  public List<String> installStatements(
      Connection c,
      Installation inst,
      List<TableSchema> tables,
      List<InstalledTrigger> installed,
      List<InstalledTrigger> unconfigured)
      throws SQLException {
    return MysqlInstallScript.statements(this, c, inst, tables, installed, unconfigured);
  }

  /** Without the triggers already there: {@link MysqlInstallScript#toRun}. */
  @Override
  public List<String> toRun(List<String> script, List<InstalledTrigger> installed) {
    return MysqlInstallScript.toRun(script, installed);
  }

  /** The cached tables, and the parents whose foreign-key actions change them. */
  @Override
  public Set<TableId> triggerTables(Connection c, List<TableSchema> tables) throws SQLException {
    Set<TableId> out = new LinkedHashSet<>();
    tables.forEach(t -> out.add(t.id()));
    for (MysqlCascadeTriggers.CascadeTrigger t :
        ForeignKeyCheck.check(this, c, tables, "").triggers()) {
      out.add(t.trigger().table());
    }
    return out;
  }

  /**
   * A compound trigger (BEGIN ... END, {@link MysqlCascadeTriggers}) between DELIMITER lines, as
   * the mysql client needs.
   */
  @Override
  public String printable(String statement) {
    return statement.contains("\nBEGIN\n")
        ? "DELIMITER $$\n" + statement + "$$\nDELIMITER ;"
        : statement + ";";
  }

  @Override
  public boolean transactionalDdl() {
    return false;
  }

  @Override
  public DdlLocks ddlLocks() {
    return new MysqlDdlLocks();
  }

  /**
   * A user without the TRIGGER privilege cannot see triggers: for such a user the outbox is checked
   * and the triggers are trusted, with a WARN ({@link TriggerPrivilege}).
   *
   * @throws IllegalStateException listing the foreign-key actions that cannot be captured, or
   *     naming the first trigger that is missing or stale
   */
  @Override
  public List<CaptureFinding> installProblems(
      Connection c, Installation inst, List<TableSchema> tables) throws SQLException {
    List<CaptureFinding> out = new ArrayList<>();
    CaptureStatus status = captureStatus(c, inst, tables);
    for (CaptureStatus.Problem p : status.problems()) {
      out.add(
          CaptureFinding.error(
              p.tables().stream().map(TableId::qualified).sorted().toList().toString(),
              p.message()));
    }
    if (!Catalog.exists(c, outboxExistsQuery(), inst.schema())) {
      out.add(
          CaptureFinding.error(
              "outbox",
              "the Tablecast outbox "
                  + inst.outbox()
                  + " does not exist; run "
                  + "install (or set install_triggers: true)"));
      return out;
    }
    Set<TableId> warned = new HashSet<>();
    Set<String> reported = new HashSet<>();
    for (RequiredTrigger t : status.required()) {
      if (t.presence() == RequiredTrigger.Presence.NOT_VISIBLE && warned.add(t.on())) {
        // MySQL shows triggers only to holders of TRIGGER, which the serving user should not have
        LOG.warn(
            "Cannot see the capture triggers of {}: this user lacks the TRIGGER privilege on it, as the "
                + "least-privilege serving grants intend (docs/SECURITY.md), so the server trusts that `tablecast "
                + "install` ran after the table was last created or altered. If it did not, changes of {} reach "
                + "clients only through reconciliation (source.reconcile_interval; never with 0s).",
            t.on(),
            t.cachedTable());
      } else if (t.presence() == RequiredTrigger.Presence.MISSING) {
        String message = RequiredTriggers.missing(t).getMessage();
        if (reported.add(message)) {
          out.add(CaptureFinding.error(t.cachedTable().qualified(), message));
        }
      }
    }
    for (TriggerDefiners.Gone g : TriggerDefiners.byTable(status)) {
      // nothing goes uncaptured (every write fails), but the application's writes are down
      out.add(CaptureFinding.warn(g.on().qualified(), g.problem()));
    }
    return out;
  }

  /** Whether the capture triggers' accounts exist (this dialect's server or command asks). */
  TriggerDefiners definers() {
    return definers;
  }

  /**
   * Every trigger {@code tables} need and whether the catalog shows it, and what cannot be
   * captured: the MySQL family's capture check ({@link RequiredTriggers}), which {@link
   * MysqlCaptureWatch} runs on a schedule.
   */
  CaptureStatus captureStatus(Connection c, Installation inst, List<TableSchema> tables)
      throws SQLException {
    return RequiredTriggers.status(this, c, inst, tables);
  }

  /**
   * Every trigger writing to this outbox, configured table or not: one left behind would make
   * writes fail.
   */
  @Override
  public List<String> uninstallStatements(
      Connection c, Installation inst, List<InstalledTrigger> installed) {
    List<String> out = new ArrayList<>();
    for (InstalledTrigger t : installed) {
      out.add(dropSql(t));
    }
    return out;
  }

  @Override
  public String outboxExistsQuery() {
    return "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'tablecast_outbox'";
  }

  /**
   * PROCESS, to read {@code information_schema.innodb_trx} (else lock probes, {@link
   * MysqlChangeSource}).
   */
  @Override // a replica's replicated changes fire no trigger (ReplicaCheck); Galera (GaleraWriters)
  public List<CaptureFinding> sourceFindings(Connection c) throws SQLException {
    List<CaptureFinding> out = new ArrayList<>(ReplicaCheck.findings(c, flavor));
    out.addAll(GaleraWriters.findings(c));
    return out;
  }

  @Override
  public List<CaptureFinding> privilegeFindings(Probe probe) throws SQLException {
    String process = probe.error("SELECT COUNT(*) FROM information_schema.innodb_trx");
    return List.of(
        process == null
            ? CaptureFinding.ok(
                "privileges",
                "PROCESS: skipped outbox ids are resolved from " + "information_schema.innodb_trx")
            : CaptureFinding.warn(
                "privileges",
                "cannot read information_schema.innodb_trx ("
                    + process
                    + "): grant PROCESS, or skipped outbox ids are resolved by slower lock"
                    + " probes, and a TRUNCATE of a cached table, which fires no trigger, reaches"
                    + " clients through reconciliation only (never with"
                    + " source.reconcile_interval: 0s) (docs/SECURITY.md)"));
  }

  // ---------------------------------------------------------------- reads

  @Override
  public SnapshotRead snapshotRead(TableSchema table) {
    MysqlTriggers.RowSelect row = MysqlTriggers.rowSelect(flavor, table);
    return new SnapshotRead(
        "SELECT " + row.list() + " FROM " + quote(table.id()) + " t", row.shape());
  }

  /**
   * The result set, its rows taken as the driver received them where it can: {@link RowPackets}.
   */
  @Override
  public RowTextsFetch rowTextsFetch() {
    return RowPackets.FETCH;
  }

  @Override
  public ChunkQuery chunkQuery(TableSchema table, boolean afterKey, int limit) {
    return MysqlTriggers.chunk(flavor, table, afterKey, limit);
  }

  // ---------------------------------------------------------------- values

  /** {@code FLOAT} (single precision) arrives as the exact double of the float. */
  @Override
  public boolean singlePrecision(ColumnInfo column) {
    return MysqlTypes.isSinglePrecision(column);
  }

  /** Base64 already ({@code TO_BASE64}); without the line breaks it may hold. */
  @Override
  public String binaryBase64(String printed) {
    return printed.replace("\n", "").replace("\r", "");
  }

  // ---------------------------------------------------------------- tail

  /**
   * Polls are single READ COMMITTED statements; a consistent snapshot asks for REPEATABLE READ for
   * its one transaction ({@link MysqlChangeSource}).
   */
  @Override
  public String poolIsolation() {
    return "TRANSACTION_READ_COMMITTED";
  }

  /**
   * Multi-statements: the tail begins a consistent snapshot and reads the outbox in it in one round
   * trip ({@link OutboxRead}). Every statement the tail sends is generated from quoted identifiers
   * and numbers; values travel as parameters.
   */
  @Override
  public Map<String, String> poolProperties() {
    return Map.of("allowMultiQueries", "true");
  }

  @Override
  public SessionProbe sessions() {
    return MysqlSessions.INSTANCE;
  }

  @Override
  public ChangeSource open(SourceContext source) {
    return new MysqlChangeSource(this, source);
  }
}

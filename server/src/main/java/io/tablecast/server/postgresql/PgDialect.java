package io.tablecast.server.postgresql;

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
import io.tablecast.server.postgresql.CaptureCheck.Coverage;
import io.tablecast.server.postgresql.CaptureCheck.Issue;
import io.tablecast.server.postgresql.CaptureCheck.Member;
import io.tablecast.server.postgresql.CaptureCheck.Problem;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.SessionProbe;
import io.tablecast.server.tail.SourceContext;
import io.tablecast.server.tail.TailDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The dialect of PostgreSQL 13+: generic capture functions write whole row images ({@code
 * to_jsonb}) and the transaction's {@code xid8}; every relation of a cached table (the table, its
 * partitions and inheritance children at any depth) carries a row trigger and a TRUNCATE statement
 * trigger that record its changes under the cached table's name ({@link PgTriggers}, {@link
 * PgCoverage}). Triggers are enabled ALWAYS, so sessions in {@code session_replication_role =
 * replica} are captured too. Catalog from {@code pg_catalog}; DDL is transactional, so install is
 * all or nothing.
 */
final class PgDialect implements TailDialect {
  static final PgDialect INSTANCE = new PgDialect();

  private PgDialect() {}

  @Override
  public String name() {
    return "POSTGRESQL";
  }

  @Override
  public String toString() {
    return name();
  }

  @Override // a standby replays WAL, which fires no trigger (PgCatalogQueries.standbyFindings)
  public List<CaptureFinding> sourceFindings(Connection c) throws SQLException {
    return PgCatalogQueries.standbyFindings(c);
  }

  // ---------------------------------------------------------------- identifiers

  @Override
  public String quote(String identifier) {
    return PgIdentifiers.quote(identifier);
  }

  @Override
  public void checkLength(String what, String name) {
    PgIdentifiers.checkLength(name(), what, name);
  }

  @Override
  public String schemaNoun() {
    return "existing schema in the search_path";
  }

  @Override
  public String currentSchemaQuery() {
    return "SELECT current_schema()";
  }

  // ---------------------------------------------------------------- catalog (PgCatalogQueries)

  @Override
  public void checkTable(Connection c, TableId id) throws SQLException {
    PgCatalogQueries.checkTable(c, id);
  }

  @Override
  public List<String> tableProblems(Connection c, TableId id) throws SQLException {
    return PgCatalogQueries.tableProblems(c, id);
  }

  @Override
  public List<CatalogColumn> columns(Connection c, TableId id) throws SQLException {
    return PgCatalogQueries.columns(c, id);
  }

  @Override
  public List<String> primaryKey(Connection c, TableId id) throws SQLException {
    return PgCatalogQueries.primaryKey(c, id);
  }

  @Override
  public long estimatedRows(Connection c, TableId id) throws SQLException {
    return PgCatalogQueries.estimatedRows(c, id);
  }

  // ---------------------------------------------------------------- installation

  @Override
  public String templates() {
    return "postgresql";
  }

  /**
   * Triggers that call this schema's capture functions, on any table, each with the cached table it
   * captures for (its first argument). Partitions' clones are left out: they go with their
   * parent's.
   */
  @Override
  public List<InstalledTrigger> installedTriggers(Connection c, Installation inst)
      throws SQLException {
    List<InstalledTrigger> out = new ArrayList<>();
    for (PgCoverage.Trigger t : PgCoverage.read(c, inst.schema(), List.of(), null).elsewhere()) {
      if (!t.cloned()) {
        out.add(
            new InstalledTrigger(t.on(), t.name(), t.owner() == null ? t.on() : owner(t.owner())));
      }
    }
    return out;
  }

  /** A cached table's name as a trigger argument holds it ({@link TableId#qualified()}). */
  private static TableId owner(String qualified) {
    int dot = qualified.indexOf('.');
    return dot < 0
        ? new TableId("", qualified)
        : new TableId(qualified.substring(0, dot), qualified.substring(dot + 1));
  }

  @Override
  public String dropSql(InstalledTrigger t) {
    return "DROP TRIGGER IF EXISTS "
        + PgIdentifiers.quote(t.name())
        + " ON "
        + PgIdentifiers.quote(t.table());
  }

  /**
   * Outbox and functions; for each table, on each of its relations (parents first), the row trigger
   * (own on the table and its children; on partitions the clone, enabled ALWAYS) and the TRUNCATE
   * trigger; then drops of stray triggers (left on former partitions and children, or of an earlier
   * version) and of the triggers of unconfigured tables.
   */
  @Override
  public List<String> installStatements(
      Connection c,
      Installation inst,
      List<TableSchema> tables,
      List<InstalledTrigger> installed,
      List<InstalledTrigger> unconfigured)
      throws SQLException {
    List<String> out = new ArrayList<>(PgTriggers.outbox(inst.schema()));
    out.addAll(triggerStatements(c, inst, tables, null));
    for (InstalledTrigger t : unconfigured) {
      out.add(dropSql(t));
    }
    return out;
  }

  /** The triggers of {@code only} (all tables when null) and the drops of their stray triggers. */
  private List<String> triggerStatements(
      Connection c, Installation inst, List<TableSchema> tables, Set<TableId> only)
      throws SQLException {
    refuseHashCollisions(tables);
    Map<TableId, String> functions = PgTriggers.functions(c, tables);
    PgCoverage.Snapshot snapshot = PgCoverage.read(c, inst.schema(), ids(tables), null);
    List<String> out = new ArrayList<>();
    Set<String> drops = new LinkedHashSet<>();
    for (Coverage coverage : PgCoverage.problems(snapshot, functions).tables()) {
      TableId table = coverage.table();
      if (only != null && !only.contains(table)) {
        continue;
      }
      for (Member m : coverage.members()) {
        if (snapshot.foreign().contains(m.oid())) {
          continue; // refused by checkTable; a foreign table attached since cannot carry triggers
        }
        out.add(
            m.role() == CaptureCheck.Role.PARTITION
                ? PgTriggers.enableCloneAlways(inst.schema(), table, m.id())
                : PgTriggers.rowTrigger(inst.schema(), table, m.id(), functions.get(table)));
        out.add(PgTriggers.truncateTrigger(inst.schema(), table, m.id()));
      }
      for (Problem p : coverage.problems()) {
        if (p.issue() == Issue.STRAY) {
          drops.add(dropSql(new InstalledTrigger(p.relation(), p.trigger())));
        }
      }
    }
    out.addAll(drops);
    return out;
  }

  /**
   * Trigger names end with 8 hex digits of the table's name: two cached tables must not share them.
   */
  private static void refuseHashCollisions(List<TableSchema> tables) {
    Map<String, TableId> seen = new LinkedHashMap<>();
    for (TableSchema t : tables) {
      TableId other = seen.putIfAbsent(PgTriggers.rowTrigger(t.id()), t.id());
      if (other != null) {
        throw new IllegalStateException(
            "tables "
                + other
                + " and "
                + t.id()
                + " would get the same capture trigger "
                + "name "
                + PgTriggers.rowTrigger(t.id())
                + " (a hash collision); rename one of them to cache both");
      }
    }
  }

  private static List<TableId> ids(List<TableSchema> tables) {
    return tables.stream().map(TableSchema::id).toList();
  }

  @Override
  public boolean transactionalDdl() {
    return true;
  }

  @Override
  public DdlLocks ddlLocks() {
    return new PgDdlLocks();
  }

  /**
   * The outbox and both functions are current, and every trigger each table needs, on it and on
   * every partition and child, is present and enabled ALWAYS, with none left on former members.
   *
   * <p>Every problem found is one finding naming table, relation, trigger and fix.
   */
  @Override
  public List<CaptureFinding> installProblems(
      Connection c, Installation inst, List<TableSchema> tables) throws SQLException {
    if (!PgTriggers.functionsCurrent(c, inst.schema())
        || !Catalog.exists(c, outboxExistsQuery(), inst.schema())) {
      return List.of(
          CaptureFinding.error(
              "outbox",
              "the Tablecast outbox or capture functions in schema "
                  + inst.schema()
                  + " are missing or outdated; run `tablecast install` (or set install_triggers: true)"));
    }
    CaptureCheck check =
        PgCoverage.problems(
            PgCoverage.read(c, inst.schema(), ids(tables), null), PgTriggers.functions(c, tables));
    List<CaptureFinding> out = new ArrayList<>();
    for (Problem p : check.problems()) {
      out.add(CaptureFinding.error(p.table().qualified(), p.message()));
    }
    return out;
  }

  /** The functions go with CASCADE, which drops every trigger calling them (and their clones). */
  @Override
  public List<String> uninstallStatements(
      Connection c, Installation inst, List<InstalledTrigger> installed) {
    String schema = PgIdentifiers.quote(inst.schema());
    return List.of(
        "DROP FUNCTION IF EXISTS " + schema + "." + PgTriggers.PLAIN_FUNCTION + "() CASCADE",
        "DROP FUNCTION IF EXISTS " + schema + "." + PgTriggers.PINNED_FUNCTION + "() CASCADE");
  }

  @Override
  public String outboxExistsQuery() {
    return "SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = 'tablecast_outbox'";
  }

  // ------------------------------------------------------ following the capture while serving

  /**
   * What the catalog says now about the capture of {@code tables}: their relations and the problems
   * of the triggers they need ({@link CaptureCheck}). Cheap enough to run every second ({@link
   * PgCaptureWatch}).
   *
   * @param formerMembers relations that belonged to the tables at the previous check, to find
   *     capture triggers left on them after they left
   */
  CaptureCheck checkCapture(
      Connection c, Installation inst, List<TableSchema> tables, Collection<Long> formerMembers)
      throws SQLException {
    return PgCoverage.problems(PgCoverage.read(c, inst.schema(), ids(tables), formerMembers), null);
  }

  /**
   * The outbox and functions when missing or outdated (a dropped function takes every trigger with
   * it), then the affected tables' triggers.
   */
  List<String> repairStatements(
      Connection c, Installation inst, List<TableSchema> tables, List<Problem> problems)
      throws SQLException {
    Set<TableId> affected = new LinkedHashSet<>();
    for (Problem p : problems) {
      if (p.issue().repairable()) {
        affected.add(p.table());
      }
    }
    if (affected.isEmpty()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    if (!PgTriggers.functionsCurrent(c, inst.schema())
        || !Catalog.exists(c, outboxExistsQuery(), inst.schema())) {
      out.addAll(
          PgTriggers.outbox(
              inst.schema())); // replacing current functions would re-plan every writer's trigger
    }
    // only the tables repaired are looked up: another cached table gone under its name (dropped,
    // renamed away) failed every repair of the others ("relation ... does not exist")
    List<TableSchema> repaired = tables.stream().filter(t -> affected.contains(t.id())).toList();
    out.addAll(triggerStatements(c, inst, repaired, affected));
    return out;
  }

  /** {@link PgSessionSettings#tableReads}. */
  String tableReadSettings() {
    return PgSessionSettings.tableReads();
  }

  // ---------------------------------------------------------------- reads

  @Override
  public SnapshotRead snapshotRead(TableSchema table) {
    return PgTableReads.snapshotRead(table);
  }

  /** {@code COPY ... TO STDOUT}: {@link PgCopyFetch}. */
  @Override
  public RowTextsFetch rowTextsFetch() {
    return PgCopyFetch.COPY;
  }

  @Override
  public PreparedStatement prepareRead(Connection c, String sql) throws SQLException {
    return PgTableReads.prepareRead(c, sql);
  }

  @Override
  public ChunkQuery chunkQuery(TableSchema table, boolean afterKey, int limit) {
    return PgTableReads.chunkQuery(table, afterKey, limit);
  }

  // ---------------------------------------------------------------- values

  /** {@code money} arrives as {@code lc_monetary = C} prints it: {@code -$1,234.56}. */
  @Override
  public String decimal(String printed) {
    return PgTypes.moneyDecimal(printed);
  }

  /** {@code bytea} in hex, or in escape form from a writer with {@code bytea_output = escape}. */
  @Override
  public String binaryBase64(String printed) {
    return Base64.getEncoder().encodeToString(PgTypes.bytea(printed));
  }

  /** Either of PostgreSQL's forms, any year, the infinities ({@link PgInstants}). */
  @Override
  public String instant(String printed) {
    return PgInstants.instant(printed);
  }

  // ---------------------------------------------------------------- tail

  /** {@link PgSessionSettings#pool}. */
  @Override
  public String poolSessionSetup(Map<String, String> driverOptions) {
    return PgSessionSettings.pool(PgSessionSettings.serverPrepares(driverOptions));
  }

  @Override
  public String poolIsolation() {
    return "TRANSACTION_REPEATABLE_READ";
  }

  /** Reads by snapshot ({@link PgChangeSource}). */
  @Override
  public SessionProbe sessions() {
    return PgSessions.INSTANCE;
  }

  /**
   * The server's sessions are named ({@code application_name}) unless the URL names them: a DBA
   * sees whose they are, and the tail ends only its own ({@link PgSessions#end}).
   */
  @Override
  public Map<String, String> poolDefaults() {
    return Map.of("ApplicationName", PgSessions.APPLICATION_NAME);
  }

  @Override
  public ChangeSource open(SourceContext source) {
    return new PgChangeSource(this, source);
  }
}

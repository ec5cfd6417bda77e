package io.tablecast.server.capture;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.server.capture.CaptureCheck.Coverage;
import io.tablecast.server.capture.CaptureCheck.Issue;
import io.tablecast.server.capture.CaptureCheck.Member;
import io.tablecast.server.capture.CaptureCheck.Problem;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL 13+: generic capture functions write whole row images ({@code to_jsonb}) and the
 * transaction's {@code xid8}; every relation of a cached table (the table, its partitions and
 * inheritance children at any depth) carries a row trigger and a TRUNCATE statement trigger that
 * record its changes under the cached table's name ({@link PgTriggers}, {@link PgCoverage}).
 * Triggers are enabled ALWAYS, so sessions in {@code session_replication_role = replica} are
 * captured too. Catalog from {@code pg_catalog}; DDL is transactional, so install is all or nothing.
 */
final class PgCapture implements CaptureDialect {
  static final PgCapture INSTANCE = new PgCapture();

  private PgCapture() {}

  @Override
  public Dialect dialect() {
    return Dialect.POSTGRESQL;
  }

  // ---------------------------------------------------------------- catalog

  /** Besides being a base table: no partition or child of it may be a foreign table. */
  @Override
  public void checkTable(Connection c, TableId id) throws SQLException {
    Identifiers.refuseDollarTag(Dialect.POSTGRESQL, "schema", id.schema());
    Identifiers.refuseDollarTag(Dialect.POSTGRESQL, "table", id.name());
    Catalog.requireBaseTable(id, Catalog.single(c,
        "SELECT table_type FROM information_schema.tables WHERE table_schema = ? AND table_name = ?", id));
    PgCoverage.Snapshot tree = PgCoverage.read(c, id.schema(), List.of(id), List.of());
    List<String> foreign = new ArrayList<>();
    for (Member m : tree.members().get(id)) {
      if (tree.foreign().contains(m.oid())) {
        foreign.add(m.id().qualified());
      }
    }
    if (!foreign.isEmpty()) {
      throw new IllegalArgumentException("table " + id + " has the foreign table(s) " + String.join(", ", foreign)
          + " among its partitions or inheritance children: their rows change on another server, where no trigger "
          + "of this database fires, so Tablecast cannot capture " + id + "; detach them or leave " + id
          + " out of cached_tables");
    }
  }

  /** Every column with the kind of its type ({@link PgTypes}), or why it cannot be captured. */
  @Override
  public List<CatalogColumn> columns(Connection c, TableId id) throws SQLException {
    PgTypes.Resolver types = new PgTypes.Resolver(c);
    List<CatalogColumn> columns = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT a.attname, a.atttypid, a.atttypmod, t.typname, e.typname "
        + "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid "
        + "LEFT JOIN pg_catalog.pg_type e ON e.oid = t.typelem AND t.typcategory = 'A' "
        + "WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
      ps.setString(1, Identifiers.quote(Dialect.POSTGRESQL, id));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String name = rs.getString(1);
          String dbType = rs.getString(5) != null ? rs.getString(5) + "[]" : rs.getString(4) + modifier(rs.getString(4),
              rs.getInt(3));
          PgTypes.Form form = types.form(rs.getLong(2));
          columns.add(form.kind() == null
              ? CatalogColumn.unsupported(name, dbType, "which Tablecast cannot capture: it " + form.refusal())
              : CatalogColumn.of(name, dbType, form.kind()));
        }
      }
    }
    return columns;
  }

  /** The type modifier as {@code information_schema} shows it: {@code varchar(50)}, {@code numeric(12,4)}, {@code bit(4)}. */
  private static String modifier(String type, int typmod) {
    switch (type) {
      case "varchar": case "bpchar":
        return typmod >= 4 ? "(" + (typmod - 4) + ")" : "";
      case "bit": case "varbit":
        return typmod > 0 ? "(" + typmod + ")" : "";
      case "numeric":
        return typmod >= 4 ? "(" + (((typmod - 4) >> 16) & 0xffff) + "," + ((typmod - 4) & 0xffff) + ")" : "";
      default:
        return "";
    }
  }

  /**
   * From {@code pg_catalog}, not {@code information_schema}: the latter hides constraints from a
   * user that only holds SELECT, and the server is meant to run as such a user (docs/SECURITY.md).
   */
  @Override
  public List<String> primaryKey(Connection c, TableId id) throws SQLException {
    return Catalog.strings(c, "SELECT a.attname FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid "
        + "JOIN pg_namespace n ON n.oid = t.relnamespace "
        + "JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) ON true "
        + "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
        + "WHERE n.nspname = ? AND t.relname = ? AND i.indisprimary ORDER BY k.ord", id);
  }

  // ---------------------------------------------------------------- installation

  /**
   * Triggers that call this schema's capture functions, on any table, each with the cached table
   * it captures for (its first argument). Partitions' clones are left out: they go with their parent's.
   */
  @Override
  public List<InstalledTrigger> installedTriggers(Connection c, Installation inst) throws SQLException {
    List<InstalledTrigger> out = new ArrayList<>();
    for (PgCoverage.Trigger t : PgCoverage.read(c, inst.schema(), List.of(), null).elsewhere()) {
      if (!t.cloned()) {
        out.add(new InstalledTrigger(t.on(), t.name(), t.owner() == null ? t.on() : owner(t.owner())));
      }
    }
    return out;
  }

  /** A cached table's name as a trigger argument holds it ({@link TableId#qualified()}). */
  private static TableId owner(String qualified) {
    int dot = qualified.indexOf('.');
    return dot < 0 ? new TableId("", qualified) : new TableId(qualified.substring(0, dot), qualified.substring(dot + 1));
  }

  @Override
  public String dropSql(InstalledTrigger t) {
    return "DROP TRIGGER IF EXISTS " + Identifiers.quote(Dialect.POSTGRESQL, t.name()) + " ON "
        + Identifiers.quote(Dialect.POSTGRESQL, t.table());
  }

  /**
   * Outbox and functions; for each table, on each of its relations (parents first), the row
   * trigger (own on the table and its children; on partitions the clone, enabled ALWAYS) and the
   * TRUNCATE trigger; then drops of stray triggers (left on former partitions and children, or of
   * an earlier version) and of the triggers of unconfigured tables.
   */
  @Override
  public List<String> installStatements(Connection c, Installation inst, List<TableSchema> tables,
      List<InstalledTrigger> installed, List<InstalledTrigger> unconfigured) throws SQLException {
    List<String> out = new ArrayList<>(PgTriggers.outbox(inst.schema()));
    out.addAll(triggerStatements(c, inst, tables, null));
    for (InstalledTrigger t : unconfigured) {
      out.add(dropSql(t));
    }
    return out;
  }

  /** The triggers of {@code only} (all tables when null) and the drops of their stray triggers. */
  private List<String> triggerStatements(Connection c, Installation inst, List<TableSchema> tables, Set<TableId> only)
      throws SQLException {
    refuseHashCollisions(tables);
    Map<TableId, String> functions = functions(c, tables);
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
        out.add(m.role() == CaptureCheck.Role.PARTITION ? PgTriggers.enableCloneAlways(inst.schema(), table, m.id())
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

  /** Trigger names end with 8 hex digits of the table's name: two cached tables must not share them. */
  private static void refuseHashCollisions(List<TableSchema> tables) {
    Map<String, TableId> seen = new LinkedHashMap<>();
    for (TableSchema t : tables) {
      TableId other = seen.putIfAbsent(PgTriggers.rowTrigger(t.id()), t.id());
      if (other != null) {
        throw new IllegalStateException("tables " + other + " and " + t.id() + " would get the same capture trigger "
            + "name " + PgTriggers.rowTrigger(t.id()) + " (a hash collision); rename one of them to cache both");
      }
    }
  }

  /** The capture function each table's row triggers call: pinned when a column's text depends on session settings. */
  private static Map<TableId, String> functions(Connection c, List<TableSchema> tables) throws SQLException {
    Map<TableId, String> out = new LinkedHashMap<>();
    PgTypes.Resolver types = new PgTypes.Resolver(c);
    for (TableSchema t : tables) {
      boolean pinned = false;
      try (PreparedStatement ps = c.prepareStatement("SELECT atttypid FROM pg_catalog.pg_attribute "
          + "WHERE attrelid = ?::regclass AND attnum > 0 AND NOT attisdropped")) {
        ps.setString(1, Identifiers.quote(Dialect.POSTGRESQL, t.id()));
        List<Long> typeOids = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            typeOids.add(rs.getLong(1));
          }
        }
        for (long type : typeOids) {
          pinned |= types.form(type).pinned();
        }
      }
      out.put(t.id(), pinned ? PgTriggers.PINNED_FUNCTION : PgTriggers.PLAIN_FUNCTION);
    }
    return out;
  }

  private static List<TableId> ids(List<TableSchema> tables) {
    return tables.stream().map(TableSchema::id).toList();
  }

  @Override
  public boolean transactionalDdl() {
    return true;
  }

  /**
   * The outbox and both functions are current, and every trigger each table needs, on it and on
   * every partition and child, is present and enabled ALWAYS, with none left on former members.
   *
   * Every problem found is one finding naming table, relation, trigger and fix.
   */
  @Override
  public List<CaptureFinding> installProblems(Connection c, Installation inst, List<TableSchema> tables)
      throws SQLException {
    if (!functionsCurrent(c, inst.schema()) || !Catalog.exists(c, outboxExistsQuery(), inst.schema())) {
      return List.of(CaptureFinding.error("outbox", "the Tablecast outbox or capture functions in schema "
          + inst.schema() + " are missing or outdated; run `tablecast install` (or set install_triggers: true)"));
    }
    CaptureCheck check = PgCoverage.problems(PgCoverage.read(c, inst.schema(), ids(tables), null), functions(c, tables));
    List<CaptureFinding> out = new ArrayList<>();
    for (Problem p : check.problems()) {
      out.add(CaptureFinding.error(p.table().qualified(), p.message()));
    }
    return out;
  }

  private static boolean functionsCurrent(Connection c, String schema) throws SQLException {
    Map<String, String> found = new LinkedHashMap<>();
    Map<String, String> config = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT p.proname, p.prosrc, array_to_string(p.proconfig, '|') "
        + "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ? AND p.proname IN (?, ?)")) {
      ps.setString(1, schema);
      ps.setString(2, PgTriggers.PLAIN_FUNCTION);
      ps.setString(3, PgTriggers.PINNED_FUNCTION);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.put(rs.getString(1), rs.getString(2));
          config.put(rs.getString(1), rs.getString(3) == null ? "" : rs.getString(3));
        }
      }
    }
    return PgTriggers.functionBody(schema, PgTriggers.PLAIN_FUNCTION).equals(found.get(PgTriggers.PLAIN_FUNCTION))
        && PgTriggers.functionBody(schema, PgTriggers.PINNED_FUNCTION).equals(found.get(PgTriggers.PINNED_FUNCTION))
        && String.join("|", PgTriggers.PINNED_SETTINGS).equalsIgnoreCase(config.get(PgTriggers.PINNED_FUNCTION));
  }

  /** The functions go with CASCADE, which drops every trigger calling them (and their clones). */
  @Override
  public List<String> uninstallStatements(Connection c, Installation inst, List<InstalledTrigger> installed) {
    String schema = Identifiers.quote(Dialect.POSTGRESQL, inst.schema());
    return List.of("DROP FUNCTION IF EXISTS " + schema + "." + PgTriggers.PLAIN_FUNCTION + "() CASCADE",
        "DROP FUNCTION IF EXISTS " + schema + "." + PgTriggers.PINNED_FUNCTION + "() CASCADE");
  }

  @Override
  public String outboxExistsQuery() {
    return "SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = 'tablecast_outbox'";
  }

  // ---------------------------------------------------------------- following the capture while serving

  @Override
  public CaptureCheck checkCapture(Connection c, Installation inst, List<TableSchema> tables,
      Collection<Long> formerMembers) throws SQLException {
    return PgCoverage.problems(PgCoverage.read(c, inst.schema(), ids(tables), formerMembers), null);
  }

  /**
   * The outbox and functions when missing or outdated (a dropped function takes every trigger with
   * it), then the affected tables' triggers.
   */
  @Override
  public List<String> repairStatements(Connection c, Installation inst, List<TableSchema> tables,
      List<Problem> problems) throws SQLException {
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
    if (!functionsCurrent(c, inst.schema()) || !Catalog.exists(c, outboxExistsQuery(), inst.schema())) {
      out.addAll(PgTriggers.outbox(inst.schema())); // replacing current functions would re-plan every writer's trigger
    }
    out.addAll(triggerStatements(c, inst, tables, affected));
    return out;
  }

  @Override
  public List<String> tableReadSettings() {
    List<String> out = new ArrayList<>();
    for (String s : PgTriggers.PINNED_SETTINGS) {
      int eq = s.indexOf('=');
      out.add("SET LOCAL " + s.substring(0, eq) + " = " + Identifiers.literal(s.substring(eq + 1)));
    }
    return out;
  }

  // ---------------------------------------------------------------- reads

  @Override
  public String snapshotQuery(TableSchema table) {
    return "SELECT to_jsonb(t)::text FROM " + Identifiers.quote(Dialect.POSTGRESQL, table.id()) + " t";
  }

  /**
   * Keyset pagination: {@code (k1, k2) > (?, ?)} uses the primary key's index and its ordering,
   * collation included, so the chunks tile the table whatever the key's types; the key travels
   * as text, which every type reads back exactly.
   */
  @Override
  public ChunkQuery chunkQuery(TableSchema table, boolean afterKey, int limit) {
    StringBuilder keys = new StringBuilder();
    StringBuilder keyTexts = new StringBuilder();
    StringBuilder params = new StringBuilder();
    int[] order = new int[table.primaryKey().size()];
    for (int i = 0; i < order.length; i++) {
      String quoted = "t." + Identifiers.quote(Dialect.POSTGRESQL, table.primaryKey().get(i));
      keys.append(i == 0 ? "" : ", ").append(quoted);
      keyTexts.append(", ").append(quoted).append("::text");
      params.append(i == 0 ? "?" : ", ?");
      order[i] = i;
    }
    String sql = "SELECT to_jsonb(t)::text" + keyTexts + " FROM " + Identifiers.quote(Dialect.POSTGRESQL, table.id())
        + " t" + (afterKey ? " WHERE (" + keys + ") > (" + params + ")" : "") + " ORDER BY " + keys + " LIMIT " + limit;
    // unspecified type: the server gives each parameter its column's type
    return new ChunkQuery(sql, afterKey ? order : new int[0], java.sql.Types.OTHER);
  }

  @Override
  public String rowsByKeyQuery(TableSchema table, int keys) {
    throw new IllegalStateException("PostgreSQL outbox rows carry whole row images; rows are not read by key");
  }
}

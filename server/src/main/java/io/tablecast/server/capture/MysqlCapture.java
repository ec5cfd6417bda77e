package io.tablecast.server.capture;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MySQL 8 and MariaDB 10.6+: three AFTER triggers per table record the primary key of each
 * changed row ({@link MysqlTriggers}); the tail reads the rows themselves by key in the same
 * consistent snapshot as the outbox rows. Catalog from {@code information_schema}.
 */
final class MysqlCapture implements CaptureDialect {
  static final MysqlCapture MYSQL = new MysqlCapture(Dialect.MYSQL);
  static final MysqlCapture MARIADB = new MysqlCapture(Dialect.MARIADB);

  private static final Logger LOG = LoggerFactory.getLogger(MysqlCapture.class);
  private static final Pattern JSON_VALID = Pattern.compile("(?i)^\\s*json_valid\\(\\s*`((?:[^`]|``)+)`\\s*\\)\\s*$");

  private final Dialect dialect;

  private MysqlCapture(Dialect dialect) {
    this.dialect = dialect;
  }

  @Override
  public Dialect dialect() {
    return dialect;
  }

  // ---------------------------------------------------------------- catalog

  @Override
  public void checkTable(Connection c, TableId id) throws SQLException {
    String tableType = Catalog.single(c,
        "SELECT TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", id);
    Catalog.requireBaseTable(id, tableType);
    // the row change and its outbox row must commit or roll back together, and the tail's gap
    // rules rely on the row change being an InnoDB write of the same transaction
    String engine = Catalog.single(c,
        "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", id);
    if (!"InnoDB".equalsIgnoreCase(engine)) {
      throw new IllegalArgumentException("table " + id.qualified() + " uses the " + engine + " engine; Tablecast "
          + "captures only InnoDB tables (changes of a non-transactional table cannot be tied to their commit)");
    }
  }

  @Override
  public List<CatalogColumn> columns(Connection c, TableId id) throws SQLException {
    Set<String> jsonChecked = new HashSet<>();
    try (PreparedStatement ps = Catalog.prepare(c, "SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS "
        + "WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?", id); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        Matcher m = JSON_VALID.matcher(rs.getString(1));
        if (m.matches()) {
          jsonChecked.add(m.group(1).replace("``", "`"));
        }
      }
    } catch (SQLException e) {
      // MySQL 8.0.15 and older have no CHECK_CONSTRAINTS; MySQL has a real JSON type anyway.
      if (dialect == Dialect.MARIADB) {
        throw e;
      }
    }
    List<CatalogColumn> columns = new ArrayList<>();
    try (PreparedStatement ps = Catalog.prepare(c, "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE FROM "
        + "information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", id);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String name = rs.getString(1);
        String dataType = rs.getString(2);
        String columnType = rs.getString(3);
        ColumnKind kind = MysqlTypes.kind(dataType, columnType, jsonChecked.contains(name));
        if (kind == null) {
          throw MysqlTypes.unsupported(id, name, columnType);
        }
        columns.add(CatalogColumn.of(name, MysqlTypes.dbType(dataType, columnType, kind), kind));
      }
    }
    return columns;
  }

  /**
   * @throws IllegalArgumentException naming the column, when a spatial column is part of the key:
   *     its GeoJSON form cannot be bound back to find the row by key
   */
  @Override
  public List<String> primaryKey(Connection c, TableId id) throws SQLException {
    try (PreparedStatement ps = Catalog.prepare(c, "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS "
        + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_KEY = 'PRI'", id); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (MysqlTypes.isSpatial(rs.getString(2))) {
          throw new IllegalArgumentException("column " + id.qualified() + "." + rs.getString(1) + " has type "
              + rs.getString(2) + " and is part of the primary key, which Tablecast cannot read rows back by "
              + "(it sends spatial values as GeoJSON); give the table a key without spatial columns to cache it");
        }
      }
    }
    return Catalog.strings(c, "SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? "
        + "AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION", id);
  }

  // ---------------------------------------------------------------- installation

  /**
   * Triggers named {@code tablecast_*} whose statement writes to this installation's outbox, on
   * any table: found by what they do, so triggers of tables since removed from
   * {@code cached_tables} are found too.
   */
  @Override
  public List<InstalledTrigger> installedTriggers(Connection c, Installation inst) throws SQLException {
    List<InstalledTrigger> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT EVENT_OBJECT_SCHEMA, EVENT_OBJECT_TABLE, TRIGGER_NAME, "
        + "ACTION_STATEMENT FROM information_schema.TRIGGERS WHERE TRIGGER_NAME LIKE 'tablecast\\_%' ORDER BY 1, 2, 3");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String statement = rs.getString(4);
        if (statement != null && statement.contains(inst.outbox())) {
          out.add(new InstalledTrigger(new TableId(rs.getString(1), rs.getString(2)), rs.getString(3)));
        }
      }
    }
    return out;
  }

  @Override
  public String dropSql(InstalledTrigger t) {
    return "DROP TRIGGER IF EXISTS " + Identifiers.quote(dialect, t.table().schema()) + "."
        + Identifiers.quote(dialect, t.name());
  }

  /**
   * New triggers first (the cached tables' own, then their parents' key-recording triggers), then
   * the drops of stale ones: no write goes uncaptured in between.
   *
   * @throws IllegalStateException listing every foreign-key action that cannot be captured
   */
  @Override
  public List<String> installStatements(Connection c, Installation inst, List<TableSchema> tables,
      List<InstalledTrigger> installed, List<InstalledTrigger> unconfigured) throws SQLException {
    List<MysqlTriggers.Trigger> wanted = wanted(c, inst, tables);
    List<String> out = new ArrayList<>(MysqlTriggers.outbox(dialect, inst.outbox()));
    Map<TableId, Set<String>> wantedNames = new LinkedHashMap<>();
    for (MysqlTriggers.Trigger trigger : wanted) {
      out.add(trigger.sql());
      wantedNames.computeIfAbsent(trigger.table(), t -> new HashSet<>()).add(trigger.name());
    }
    for (InstalledTrigger existing : installed) { // stale ones go only after their replacements exist
      Set<String> names = wantedNames.get(existing.table());
      if (names != null && !names.contains(existing.name())) {
        out.add(dropSql(existing));
      }
    }
    for (InstalledTrigger t : unconfigured) {
      out.add(dropSql(t));
    }
    return out;
  }

  /** The cached tables, and the parents whose foreign-key actions change them. */
  @Override
  public Set<TableId> triggerTables(Connection c, List<TableSchema> tables) throws SQLException {
    Set<TableId> out = new LinkedHashSet<>();
    tables.forEach(t -> out.add(t.id()));
    for (MysqlCascadeTriggers.CascadeTrigger t : ForeignKeyCheck.check(c, tables, "").triggers()) {
      out.add(t.trigger().table());
    }
    return out;
  }

  /** A compound trigger (BEGIN ... END, {@link MysqlCascadeTriggers}) between DELIMITER lines, as the mysql client needs. */
  @Override
  public String printable(String statement) {
    return statement.contains("\nBEGIN\n") ? "DELIMITER $$\n" + statement + "$$\nDELIMITER ;" : statement + ";";
  }

  @Override
  public boolean transactionalDdl() {
    return false;
  }

  /**
   * A user without the TRIGGER privilege cannot see triggers: for such a user the outbox is
   * checked and the triggers are trusted, with a WARN ({@link TriggerPrivilege}).
   *
   * @throws IllegalStateException listing the foreign-key actions that cannot be captured, or
   *     naming the first trigger that is missing or stale
   */
  @Override
  public List<CaptureFinding> installProblems(Connection c, Installation inst, List<TableSchema> tables)
      throws SQLException {
    List<CaptureFinding> out = new ArrayList<>();
    CaptureStatus status = captureStatus(c, inst, tables);
    for (CaptureStatus.Problem p : status.problems()) {
      out.add(CaptureFinding.error(p.tables().stream().map(TableId::qualified).sorted().toList().toString(),
          p.message()));
    }
    if (!Catalog.exists(c, outboxExistsQuery(), inst.schema())) {
      out.add(CaptureFinding.error("outbox", "the Tablecast outbox " + inst.outbox() + " does not exist; run "
          + "install (or set install_triggers: true)"));
      return out;
    }
    Set<TableId> warned = new HashSet<>();
    Set<String> reported = new HashSet<>();
    for (RequiredTrigger t : status.required()) {
      if (t.presence() == RequiredTrigger.Presence.NOT_VISIBLE && warned.add(t.on())) {
        // MySQL shows triggers only to holders of TRIGGER, which the serving user should not have
        LOG.warn("Cannot see the capture triggers of {}: this user lacks the TRIGGER privilege on it, as the "
            + "least-privilege serving grants intend (docs/SECURITY.md), so the server trusts that `tablecast "
            + "install` ran after the table was last created or altered. If it did not, changes of {} reach "
            + "clients only through reconciliation (source.reconcile_interval).", t.on(), t.cachedTable());
      } else if (t.presence() == RequiredTrigger.Presence.MISSING) {
        String message = missing(t).getMessage();
        if (reported.add(message)) {
          out.add(CaptureFinding.error(t.cachedTable().qualified(), message));
        }
      }
    }
    return out;
  }

  /** The error for a required trigger the catalog does not show. */
  static IllegalStateException missing(RequiredTrigger t) {
    if (!t.recordsCascades()) {
      return TriggerInstaller.missing(t.cachedTable());
    }
    return new IllegalStateException("capture trigger " + t.name() + " on " + t.on() + ", which records the rows "
        + "of cached table " + t.cachedTable() + " that the actions of foreign key(s) " + String.join(", ",
        t.foreignKeys()) + " change, is missing or stale (was a foreign key added or changed?); run install (or set "
        + "install_triggers: true)");
  }

  /**
   * Every trigger the cached tables need, found by name on each table that carries them. A table
   * without any visible {@code tablecast_*} trigger whose triggers this user may not see counts
   * as {@link RequiredTrigger.Presence#NOT_VISIBLE}. MySQL/MariaDB's capture check, which
   * {@code MysqlCaptureWatch} runs on a schedule (PostgreSQL's is {@code PgCaptureWatch}).
   */
  public CaptureStatus captureStatus(Connection c, Installation inst, List<TableSchema> tables) throws SQLException {
    List<RequiredTrigger> required = new ArrayList<>();
    PresentTriggers present = new PresentTriggers(c);
    for (TableSchema t : tables) {
      for (MysqlTriggers.Trigger own : MysqlTriggers.triggers(t, inst.outbox())) {
        required.add(new RequiredTrigger(t.id(), t.id(), own.name(), List.of(), present.of(own)));
      }
    }
    ForeignKeyCheck.Result cascades = ForeignKeyCheck.check(c, tables, inst.outbox());
    for (MysqlCascadeTriggers.CascadeTrigger ct : cascades.triggers()) {
      RequiredTrigger.Presence presence = present.of(ct.trigger());
      ct.serves().forEach((cached, keys) ->
          required.add(new RequiredTrigger(cached, ct.trigger().table(), ct.trigger().name(), keys, presence)));
    }
    return new CaptureStatus(required, cascades.problems());
  }

  /** The {@code tablecast_*} trigger names of each table, read once per table. */
  private static final class PresentTriggers {
    private final Connection c;
    private final Map<TableId, Set<String>> names = new HashMap<>();
    private final Set<TableId> invisible = new HashSet<>();

    PresentTriggers(Connection c) {
      this.c = c;
    }

    RequiredTrigger.Presence of(MysqlTriggers.Trigger trigger) throws SQLException {
      TableId table = trigger.table();
      if (!names.containsKey(table)) {
        Set<String> found = new HashSet<>(names(c, table));
        names.put(table, found);
        if (found.isEmpty() && !TriggerPrivilege.holds(c, table)) {
          invisible.add(table);
        }
      }
      if (invisible.contains(table)) {
        return RequiredTrigger.Presence.NOT_VISIBLE;
      }
      return names.get(table).contains(trigger.name()) ? RequiredTrigger.Presence.PRESENT
          : RequiredTrigger.Presence.MISSING;
    }
  }

  /** The own triggers of the cached tables, then their parents' key-recording triggers. */
  private List<MysqlTriggers.Trigger> wanted(Connection c, Installation inst, List<TableSchema> tables)
      throws SQLException {
    List<MysqlTriggers.Trigger> out = new ArrayList<>();
    for (TableSchema t : tables) {
      out.addAll(MysqlTriggers.triggers(t, inst.outbox()));
    }
    for (MysqlCascadeTriggers.CascadeTrigger ct : ForeignKeyCheck.check(c, tables, inst.outbox()).orRefuse()) {
      out.add(ct.trigger());
    }
    return out;
  }

  /** Every trigger writing to this outbox, configured table or not: one left behind would make writes fail. */
  @Override
  public List<String> uninstallStatements(Connection c, Installation inst, List<InstalledTrigger> installed) {
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

  /** Names of the {@code tablecast_*} triggers on one table, whatever they write to. */
  static List<String> names(Connection c, TableId id) throws SQLException {
    return Catalog.strings(c, "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS "
        + "WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? AND TRIGGER_NAME LIKE 'tablecast\\_%'", id);
  }

  // ---------------------------------------------------------------- reads

  @Override
  public String snapshotQuery(TableSchema table) {
    return "SELECT " + MysqlTriggers.jsonObject(table.columns(), "t") + " FROM "
        + Identifiers.quote(dialect, table.id()) + " t";
  }

  @Override
  public String rowsByKeyQuery(TableSchema table, int keys) {
    return MysqlTriggers.rowsByKey(table, keys);
  }

  @Override
  public ChunkQuery chunkQuery(TableSchema table, boolean afterKey, int limit) {
    return MysqlTriggers.chunk(table, afterKey, limit);
  }
}

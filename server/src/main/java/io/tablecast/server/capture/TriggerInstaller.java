package io.tablecast.server.capture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs, prints and removes the outbox and capture triggers of a source. Every operation is
 * idempotent and safe to run twice. Holds one connection until {@link #close()}.
 *
 * <pre>{@code
 * try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
 *   System.out.println(installer.printSql());
 *   installer.install();
 * }
 * }</pre>
 */
public final class TriggerInstaller implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TriggerInstaller.class);

  private final SourceConfig config;
  private final Connection connection;
  private final Dialect dialect;
  private final String jdbcUrl;
  private final Properties properties;
  private final String defaultSchema;
  private List<TableSchema> tables;

  private TriggerInstaller(SourceConfig config, Connection connection, Dialect dialect, String jdbcUrl,
      Properties properties, String defaultSchema) {
    this.config = config;
    this.connection = connection;
    this.dialect = dialect;
    this.jdbcUrl = jdbcUrl;
    this.properties = properties;
    this.defaultSchema = defaultSchema;
  }

  /**
   * Connects to the source and detects its dialect (URL, then {@code SELECT VERSION()}).
   *
   * @throws SQLException when the database cannot be reached
   * @throws IllegalArgumentException when the URL names no database (MySQL) or schema
   */
  public static TriggerInstaller connect(SourceConfig config) throws SQLException {
    String url = config.jdbcUrl().startsWith("jdbc:mysql:")
        ? "jdbc:mariadb:" + config.jdbcUrl().substring("jdbc:mysql:".length()) : config.jdbcUrl();
    Properties props = new Properties();
    if (config.user() != null) {
      props.setProperty("user", config.user());
    }
    if (config.password() != null) {
      props.setProperty("password", config.password());
    }
    Connection c = java.sql.DriverManager.getConnection(url, props);
    try {
      Dialect dialect;
      String schema;
      try (Statement s = c.createStatement()) {
        if (!config.isMysqlFamily()) {
          dialect = Dialect.POSTGRESQL;
          schema = scalar(s, "SELECT current_schema()");
        } else {
          String version = scalar(s, "SELECT VERSION()");
          dialect = version != null && version.contains("MariaDB") ? Dialect.MARIADB : Dialect.MYSQL;
          schema = scalar(s, "SELECT DATABASE()");
        }
      }
      if (schema == null) {
        throw new IllegalArgumentException("source.jdbc_url " + config + " names no "
            + (dialect == Dialect.POSTGRESQL ? "existing schema in the search_path" : "database")
            + "; the outbox is created there");
      }
      Identifiers.validate(dialect, "schema", schema);
      return new TriggerInstaller(config, c, dialect, url, props, schema);
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  public Dialect dialect() {
    return dialect;
  }

  /**
   * Describes and validates the configured tables from the catalog.
   *
   * @throws IllegalArgumentException naming the table (unknown, no primary key, bad name) or
   *     table.column and type (unsupported type)
   */
  public synchronized List<TableSchema> describe() throws SQLException {
    if (tables == null) {
      List<TableSchema> out = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (String name : config.cachedTables()) {
        TableSchema t = Catalog.describe(connection, dialect, TableId.parse(name, defaultSchema));
        if (seen.add(t.id().qualified())) {
          out.add(t);
        }
      }
      tables = List.copyOf(out);
    }
    return tables;
  }

  /** What the tailer needs; describes the tables first. */
  public CapturePlan plan() throws SQLException {
    return new CapturePlan(dialect, jdbcUrl, properties, defaultSchema, describe());
  }

  /** The full install script: exactly the statements {@link #install()} would run now. */
  public String printSql() throws SQLException {
    StringBuilder sb = new StringBuilder("-- Tablecast capture for ").append(dialect).append(", outbox ")
        .append(outbox()).append('\n');
    for (String s : installStatements(installedTriggers())) {
      sb.append('\n').append(s).append(";\n");
    }
    return sb.toString();
  }

  /**
   * Creates the outbox and the capture triggers, replacing stale MySQL triggers (after ALTER
   * TABLE) by creating the new ones before dropping the old, so no write goes uncaptured.
   *
   * @throws IllegalStateException naming the constraint, when a MySQL foreign key would change a
   *     cached table by cascade (cascades fire no triggers there)
   */
  public void install() throws SQLException {
    List<InstalledTrigger> installed = installedTriggers();
    List<String> statements = installStatements(installed);
    boolean pg = dialect == Dialect.POSTGRESQL;
    connection.setAutoCommit(!pg); // PostgreSQL DDL is transactional: all or nothing
    try (Statement s = connection.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
      if (pg) {
        connection.commit();
      }
    } catch (SQLException | RuntimeException e) {
      if (pg) {
        connection.rollback();
      }
      throw e;
    } finally {
      connection.setAutoCommit(true);
    }
    for (TableSchema t : tables) {
      LOG.info("Capture installed on {} ({} columns, key {}), outbox {}", t.id(), t.columns().size(), t.primaryKey(), outbox());
    }
    for (TableId id : unconfigured(installed).stream().map(InstalledTrigger::table).distinct().toList()) {
      LOG.warn("Capture removed from {}: it is no longer in cached_tables (its triggers wrote to outbox {})", id, outbox());
    }
  }

  /**
   * Drops the triggers, the PostgreSQL function and the outbox. Needs no table to still exist.
   * On MySQL/MariaDB every Tablecast trigger that writes to this outbox is dropped, also on tables
   * no longer in {@code cached_tables}.
   */
  public void uninstall() throws SQLException {
    try (Statement s = connection.createStatement()) {
      if (dialect == Dialect.POSTGRESQL) {
        Set<TableId> attached = new java.util.LinkedHashSet<>();
        for (InstalledTrigger t : installedTriggers()) {
          attached.add(t.table());
        }
        s.execute("DROP FUNCTION IF EXISTS " + Identifiers.quote(dialect, defaultSchema) + ".tablecast_capture() CASCADE");
        for (TableId t : attached) {
          LOG.info("Capture removed from {}", t);
        }
      } else {
        // every trigger writing to this outbox, configured table or not: a trigger left behind
        // would make writes to its table fail once the outbox is gone
        Set<TableId> removedFrom = new java.util.LinkedHashSet<>();
        for (InstalledTrigger t : installedTriggers()) {
          s.execute(t.dropSql(dialect));
          removedFrom.add(t.table());
        }
        for (TableId id : removedFrom) {
          LOG.info("Capture removed from {}", id);
        }
      }
      s.execute("DROP TABLE IF EXISTS " + outbox());
      LOG.info("Outbox {} dropped", outbox());
    }
  }

  /**
   * Checks that the outbox and current triggers are installed on every table. On MySQL/MariaDB a
   * user without the TRIGGER privilege cannot see triggers: for such a user the outbox is checked
   * and the triggers are trusted, with a WARN ({@link TriggerPrivilege}).
   *
   * @throws IllegalStateException naming the first table whose capture is missing or stale
   */
  public void verifyInstalled() throws SQLException {
    describe();
    if (dialect == Dialect.POSTGRESQL) {
      String prosrc = null;
      try (PreparedStatement ps = connection.prepareStatement("SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n "
          + "ON n.oid = p.pronamespace WHERE n.nspname = ? AND p.proname = 'tablecast_capture'")) {
        ps.setString(1, defaultSchema);
        try (ResultSet rs = ps.executeQuery()) {
          prosrc = rs.next() ? rs.getString(1) : null;
        }
      }
      if (prosrc == null || !prosrc.equals(TriggerScripts.pgFunctionBody(defaultSchema)) || !outboxExists()) {
        throw new IllegalStateException("the Tablecast outbox or capture function in schema " + defaultSchema
            + " is missing or outdated; run install (or set install_triggers: true)");
      }
      for (TableSchema t : tables) {
        try (PreparedStatement ps = connection.prepareStatement("SELECT count(*) FROM pg_trigger WHERE tgrelid = ?::regclass "
            + "AND tgname IN ('tablecast_capture', 'tablecast_truncate')")) {
          ps.setString(1, Identifiers.quote(dialect, t.id()));
          try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next() || rs.getInt(1) != 2) {
              throw missing(t.id());
            }
          }
        }
      }
      return;
    }
    ForeignKeyCheck.refuseCascadesIntoCachedTables(connection, tables);
    if (!outboxExists()) {
      throw new IllegalStateException("the Tablecast outbox " + outbox() + " does not exist; run install "
          + "(or set install_triggers: true)");
    }
    for (TableSchema t : tables) {
      Set<String> present = new HashSet<>(mysqlTriggerNames(t.id()));
      if (present.isEmpty() && !TriggerPrivilege.holds(connection, t.id())) {
        // MySQL shows triggers only to holders of TRIGGER, which the serving user should not have
        LOG.warn("Cannot see the capture triggers of {}: this user lacks the TRIGGER privilege on it, as the "
            + "least-privilege serving grants intend (docs/SECURITY.md), so the server trusts that `tablecast "
            + "install` ran after the table was last created or altered. If it did not, changes of {} reach "
            + "clients only through reconciliation (source.reconcile_interval).", t.id(), t.id());
        continue;
      }
      for (TriggerScripts.MysqlTrigger trigger : TriggerScripts.mysqlTriggers(t, outbox())) {
        if (!present.contains(trigger.name())) {
          throw missing(t.id());
        }
      }
    }
  }

  private IllegalStateException missing(TableId id) {
    return new IllegalStateException("capture triggers on table " + id + " are missing or stale (was the table "
        + "altered?); run install (or set install_triggers: true)");
  }

  private boolean outboxExists() throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(dialect == Dialect.POSTGRESQL
        ? "SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = 'tablecast_outbox'"
        : "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'tablecast_outbox'")) {
      ps.setString(1, defaultSchema);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** Of this installation's triggers, those on tables no longer in {@code cached_tables}. */
  private List<InstalledTrigger> unconfigured(List<InstalledTrigger> installed) throws SQLException {
    Set<TableId> configured = new HashSet<>();
    for (TableSchema t : describe()) {
      configured.add(t.id());
    }
    List<InstalledTrigger> out = new ArrayList<>();
    for (InstalledTrigger t : installed) {
      if (!configured.contains(t.table())) {
        out.add(t);
      }
    }
    return out;
  }

  /**
   * What install runs: outbox, triggers of the configured tables, then drops of this
   * installation's triggers that are stale (MySQL, after ALTER TABLE) or on unconfigured tables.
   */
  private List<String> installStatements(List<InstalledTrigger> installed) throws SQLException {
    describe();
    List<InstalledTrigger> unconfigured = unconfigured(installed);
    List<String> out = new ArrayList<>();
    if (dialect == Dialect.POSTGRESQL) {
      out.addAll(TriggerScripts.pgOutbox(defaultSchema));
      for (TableSchema t : tables) {
        out.add(TriggerScripts.pgTrigger(defaultSchema, t.id()));
      }
      for (InstalledTrigger t : unconfigured) {
        out.add(t.dropSql(dialect));
      }
      return out;
    }
    ForeignKeyCheck.refuseCascadesIntoCachedTables(connection, tables);
    out.addAll(TriggerScripts.mysqlOutbox(dialect, outbox()));
    List<String> drops = new ArrayList<>();
    for (TableSchema t : tables) {
      Set<String> wanted = new HashSet<>();
      for (TriggerScripts.MysqlTrigger trigger : TriggerScripts.mysqlTriggers(t, outbox())) {
        out.add(trigger.sql());
        wanted.add(trigger.name());
      }
      for (InstalledTrigger existing : installed) {
        if (existing.table().equals(t.id()) && !wanted.contains(existing.name())) {
          drops.add(existing.dropSql(dialect));
        }
      }
    }
    out.addAll(drops); // stale triggers go only after their replacements exist
    for (InstalledTrigger t : unconfigured) {
      out.add(t.dropSql(dialect));
    }
    return out;
  }

  private List<InstalledTrigger> installedTriggers() throws SQLException {
    return InstalledTrigger.find(connection, dialect, defaultSchema, outbox());
  }

  private List<String> mysqlTriggerNames(TableId id) throws SQLException {
    return InstalledTrigger.mysqlNames(connection, id);
  }

  private String outbox() {
    return Identifiers.quote(dialect, defaultSchema) + "." + Identifiers.quote(dialect, "tablecast_outbox");
  }

  private static String scalar(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.debug("closing installer connection failed", e);
    }
  }
}

package io.tablecast.server.capture;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.progress.Progress;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * Installs, prints and removes the outbox and capture triggers of a source. Every operation is
 * idempotent and safe to run twice. Holds one connection until {@link #close()}, whose statements
 * fail when their answer has not come within {@link #answerWithin}.
 *
 * <pre>{@code
 * try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
 *   System.out.println(installer.printSql());
 *   installer.install();
 * }
 * }</pre>
 */
public final class TriggerInstaller implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(TriggerInstaller.class);

  private final SourceConfig config;
  private final Connection connection;
  private final Dialect dialect;
  private final String jdbcUrl;
  private final Supplier<Properties> login;
  private final String defaultSchema;
  private List<TableSchema> tables;

  private TriggerInstaller(
      SourceConfig config,
      Connection connection,
      Dialect dialect,
      String jdbcUrl,
      Supplier<Properties> login,
      String defaultSchema) {
    this.config = config;
    this.connection = connection;
    this.dialect = dialect;
    this.jdbcUrl = jdbcUrl;
    this.login = login;
    this.defaultSchema = defaultSchema;
  }

  /**
   * Connects to the source and detects its dialect: the family by the URL's prefix, then the
   * dialect by what the connected database says of itself ({@link DatabaseFamily#detect}).
   *
   * @throws SQLException when the database cannot be reached
   * @throws IllegalArgumentException when the URL names no database (MySQL) or schema
   */
  public static TriggerInstaller connect(SourceConfig config) throws SQLException {
    DatabaseFamily family = Dialects.forUrl(config.jdbcUrl());
    String url = family.driverUrl(config.jdbcUrl());
    Duration within = answerWithin(config);
    Properties props = SourceConnection.properties(config, family, url, within);
    Connection c = SourceConnection.open(config, url, props, within);
    try {
      Dialect dialect = family.detect(c);
      dialect.setUp(c);
      String schema;
      try (Statement s = c.createStatement()) {
        schema = scalar(s, dialect.currentSchemaQuery());
      }
      if (schema == null) {
        throw new IllegalArgumentException(
            "source.jdbc_url "
                + config.database()
                + " names no "
                + dialect.schemaNoun()
                + "; the outbox is created there");
      }
      Identifiers.validate(dialect, "schema", schema);
      return new TriggerInstaller(
          config, c, dialect, url, SourceConnection.login(config, props), schema);
    } catch (SQLException e) {
      c.close();
      throw BoundedAnswers.sayingUnanswered(e, "the connection's set-up", within);
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * How long a statement of an installer may wait for its answer: beyond its lock wait ({@link
   * PatientDdl} tries short ones again), three times {@code source.answer_timeout}, as the other
   * statements that may take long by design. An installer whose database stopped answering without
   * closing the connection fails after it, where it waited for ever: a start frozen, or the
   * MySQL/MariaDB capture check's thread held.
   */
  public static Duration answerWithin(SourceConfig config) {
    return DdlLocks.LOCK_WAIT.plus(config.longAnswerTimeout());
  }

  /** This installer's connection: which database session it is can be asked on it. */
  public Connection connection() {
    return connection;
  }

  /** A new connection as this installer's, with {@code more} driver properties. */
  public Connection connectAgain(Map<String, String> more) throws SQLException {
    Properties props = login.get();
    props.putAll(more);
    return java.sql.DriverManager.getConnection(jdbcUrl, props);
  }

  /** The dialect of the connected database. */
  public Dialect dialect() {
    return dialect;
  }

  /**
   * Describes and validates the configured tables from the catalog.
   *
   * @throws IllegalArgumentException listing every table that cannot be captured, each named with
   *     what is wrong (unknown, no primary key, bad name, table.column and an unsupported type) and
   *     the way out
   */
  public synchronized List<TableSchema> describe() throws SQLException {
    if (tables == null) {
      List<TableSchema> out = new ArrayList<>();
      List<CaptureFinding> problems = new ArrayList<>();
      for (CaptureFinding f : dialect.sourceFindings(connection)) {
        if (f.stopsServe()) {
          problems.add(f);
        } else {
          LOG.warn("{}: {}", f.subject(), f.message());
        }
      }
      RepeatedEntries repeated = new RepeatedEntries();
      try (Progress progress =
          Progress.start("catalog", "tables", config.tableNames().size(), LOG)) {
        for (CachedTable entry : config.cachedTables()) {
          String name = entry.table();
          progress.detail(name);
          try {
            TableSchema t = describeOne(name);
            CaptureFinding again = repeated.repeated(t.id(), entry);
            if (again == null) {
              out.add(t);
            } else if (again.stopsServe()) {
              problems.add(again);
            } else {
              LOG.warn("{}: {}", again.subject(), again.message());
            }
          } catch (IllegalArgumentException e) {
            problems.add(CaptureFinding.error(subject(name), e.getMessage()));
          }
          progress.advance(1);
        }
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(
            CaptureFinding.listing("the configured tables cannot be captured", problems));
      }
      tables = List.copyOf(out);
    }
    return tables;
  }

  /** One configured table, described. */
  TableSchema describeOne(String name) throws SQLException {
    return Catalog.describe(
        connection, dialect, TableId.parse(name, defaultSchema), config.columnChoice(name));
  }

  /** How a configured table name is shown in findings: qualified when it parses. */
  String subject(String name) {
    try {
      return TableId.parse(name, defaultSchema).qualified();
    } catch (IllegalArgumentException e) {
      return name;
    }
  }

  /**
   * Everything {@code tablecast check} reports: each table, the outbox and the capture of each
   * table, the privileges serving needs, and the running servers that share this outbox. Never
   * throws for a problem it can name; {@link CaptureFinding#stopsServe()} tells which stop a start.
   */
  public List<CaptureFinding> check() throws SQLException {
    return check(described -> List.of());
  }

  /**
   * As {@link #check()}, with the findings {@code more} adds about the tables it could describe
   * (what the access policies name that they do not have, say), read from the catalog once.
   */
  public List<CaptureFinding> check(Function<List<TableSchema>, List<CaptureFinding>> more)
      throws SQLException {
    return new ConfigurationCheck(this, connection, dialect, installation(), config, more).run();
  }

  /** The configured entries, as written. */
  List<CachedTable> configuredEntries() {
    return config.cachedTables();
  }

  /** What the tailer needs; describes the tables first. */
  public CapturePlan plan() throws SQLException {
    Map<TableId, ColumnChoice> choices = new HashMap<>();
    for (String name : config.tableNames()) {
      choices.put(TableId.parse(name, defaultSchema), config.columnChoice(name));
    }
    return new CapturePlan(dialect, jdbcUrl, login, defaultSchema, describe(), choices);
  }

  /**
   * The full install script, to run by hand: the statements {@link #install()} runs, and the
   * creation of what is already in place (idempotent), which install skips.
   */
  public String printSql() throws SQLException {
    StringBuilder sb =
        new StringBuilder("-- Tablecast capture for ")
            .append(dialect)
            .append(", outbox ")
            .append(outbox())
            .append('\n');
    if (dialect.sessionSetup() != null) { // the session the server installs in
      sb.append('\n').append(dialect.sessionSetup()).append(";\n");
    }
    for (String s : installStatements(installedTriggers())) {
      sb.append('\n').append(dialect.printable(s)).append('\n');
    }
    return sb.toString();
  }

  /**
   * Creates the outbox, the consumer registry and the capture triggers, replacing stale MySQL
   * triggers (after ALTER TABLE) by creating the new ones before dropping the old, so no write goes
   * uncaptured. Never removes the capture of a table that is not configured here: another server
   * may need it ({@link ConsumerRegistry}); {@link #uninstall(Set, boolean)} removes it.
   *
   * @throws IllegalStateException naming the constraint, when a MySQL foreign key would change a
   *     cached table by cascade (cascades fire no triggers there)
   */
  public void install() throws SQLException {
    List<InstalledTrigger> installed = installedTriggers();
    execute("install", dialect.toRun(installStatements(installed), installed));
    for (TableSchema t : tables) {
      LOG.info(
          "Capture installed on {} ({} columns, key {}), outbox {}",
          t.id(),
          t.columns().size(),
          t.primaryKey(),
          outbox());
    }
    List<Registrations.Consumer> live = Registrations.live(connection, dialect, defaultSchema);
    for (TableId id :
        unconfigured(installed).stream().map(InstalledTrigger::owner).distinct().toList()) {
      List<Registrations.Consumer> needing = needing(live, id);
      if (needing.isEmpty()) {
        LOG.warn(
            "Capture of {} kept although neither this configuration nor a running server needs it; "
                + "`tablecast uninstall --table {}` removes it",
            id,
            id);
      } else {
        LOG.info("Capture of {} kept: {} needs it", id, needing);
      }
    }
  }

  /**
   * Runs statements in order, all or nothing where DDL is transactional (PostgreSQL), with short
   * lock waits tried again until the tables' locks are free ({@link PatientDdl}).
   */
  void execute(String task, List<String> statements) throws SQLException {
    execute(
        task,
        statements,
        tables == null ? List.of() : tables.stream().map(TableSchema::id).toList());
  }

  /** As {@link #execute(String, List)}, naming the holders of locks on {@code on}. */
  void execute(String task, List<String> statements, List<TableId> on) throws SQLException {
    new PatientDdl(connection, dialect, on, PatientDdl.GIVE_UP_AFTER).run(task, statements);
  }

  /**
   * As {@link #uninstall(Set, boolean)} of everything, refused while a server runs on this outbox.
   */
  public void uninstall() throws SQLException {
    uninstall(Set.of(), false);
  }

  /**
   * Removes capture. With no {@code tables}: every Tablecast trigger that writes to this outbox
   * (also on tables no longer in {@code cached_tables}, so no trigger is left writing to a dropped
   * outbox), the PostgreSQL function, the registry and the outbox; needs no table to still exist.
   * With {@code tables}: only the capture of those tables (qualified or in the outbox's schema);
   * the outbox stays.
   *
   * @param force remove even what a running server needs (it then stops receiving changes)
   * @return what was done, for the command line: which tables lost their capture, and which asked
   *     for had none
   * @throws IllegalStateException naming every running server that needs what would be removed,
   *     unless {@code force}
   */
  public String uninstall(Set<String> tables, boolean force) throws SQLException {
    return new CaptureRemoval(this, connection, dialect, defaultSchema)
        .uninstall(tables, force)
        .said(tables.isEmpty());
  }

  private List<Registrations.Consumer> needing(List<Registrations.Consumer> live, TableId table) {
    return live.stream()
        .filter(
            c -> c.tables().stream().anyMatch(t -> TableId.parse(t, defaultSchema).equals(table)))
        .toList();
  }

  /**
   * Checks that the outbox and current triggers are installed on every table. On MySQL/MariaDB a
   * user without the TRIGGER privilege cannot see triggers: for such a user the outbox is checked
   * and the triggers are trusted, with a WARN (see {@link Dialect#installProblems}).
   *
   * @throws IllegalStateException naming the first table whose capture is missing or stale
   */
  public void verifyInstalled() throws SQLException {
    List<CaptureFinding> problems = installProblems(describe());
    if (!problems.isEmpty()) {
      throw new IllegalStateException(
          CaptureFinding.listing("the capture is not installed as configured", problems));
    }
  }

  /**
   * The installation problems of the tables (outbox, triggers missing or stale: not what install
   * would create for them as described), every one.
   */
  public List<CaptureFinding> installProblems(List<TableSchema> described) throws SQLException {
    return dialect.installProblems(connection, installation(), described);
  }

  /**
   * Of this installation's triggers, those capturing tables no longer in {@code cached_tables} (by
   * owner: a PostgreSQL partition or child carries the triggers of its cached ancestor).
   */
  private List<InstalledTrigger> unconfigured(List<InstalledTrigger> installed)
      throws SQLException {
    // the cached tables, and (MySQL) the parents whose key-recording triggers they need
    Set<TableId> configured = dialect.triggerTables(connection, describe());
    List<InstalledTrigger> out = new ArrayList<>();
    for (InstalledTrigger t : installed) {
      if (!configured.contains(t.owner())) {
        out.add(t);
      }
    }
    return out;
  }

  /**
   * What install runs: outbox, triggers of the configured tables, drops of this installation's
   * triggers that are stale (MySQL, after ALTER TABLE), and the consumer registry.
   */
  private List<String> installStatements(List<InstalledTrigger> installed) throws SQLException {
    List<String> out =
        new ArrayList<>(
            dialect.installStatements(
                connection, installation(), describe(), installed, List.of()));
    out.addAll(Registrations.createStatements(dialect, defaultSchema));
    out.addAll(Registrations.upgradeStatements(connection, dialect, defaultSchema));
    return out;
  }

  List<InstalledTrigger> installedTriggers() throws SQLException {
    return dialect.installedTriggers(connection, installation());
  }

  Dialect.Installation installation() {
    return new Dialect.Installation(defaultSchema, outbox());
  }

  String outbox() {
    return dialect.quote(defaultSchema) + "." + dialect.quote("tablecast_outbox");
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

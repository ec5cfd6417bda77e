package io.tablecast.it;

import static org.awaitility.Awaitility.await;

import io.tablecast.client.Column;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.assertj.core.api.Assertions;

/**
 * The whole path for one test: a fresh schema on a real database, tables created by the test, a
 * server with triggers installed, and clients. Closes everything it started.
 */
final class Pipeline implements AutoCloseable {
  static final Duration READY = Duration.ofSeconds(30);

  /** Ten key ranges per interval: one range a second, as before ranges were a tenth as large. */
  static final Duration RECONCILE_EVERY = Duration.ofSeconds(10);

  /**
   * MySQL/MariaDB: how often the server checks that every capture trigger the tables need is there.
   */
  static final Duration CAPTURE_CHECK_EVERY = Duration.ofSeconds(1);

  final TestDatabases.Isolated db;
  private final List<String> tables;
  private TablecastServer server;
  private final List<TablecastClient> clients = new ArrayList<>();
  private double expectedRepairs;
  private double allowedRepairs;

  private Pipeline(TestDatabases.Isolated db, List<String> tables) {
    this.db = db;
    this.tables = tables;
  }

  /**
   * Creates a schema, runs the DDL (table names unqualified), starts a server caching {@code
   * tables}.
   */
  static Pipeline start(TestDatabases.Kind kind, String name, List<String> ddl, String... tables) {
    Pipeline p = create(kind, name, ddl, tables);
    p.startServer();
    return p;
  }

  /** Like {@link #start} but without starting the server. */
  static Pipeline create(TestDatabases.Kind kind, String name, List<String> ddl, String... tables) {
    return create(kind.isolated(name), ddl, tables);
  }

  /** Like {@link #create(TestDatabases.Kind, String, List, String...)} in {@code db}. */
  static Pipeline create(TestDatabases.Isolated db, List<String> ddl, String... tables) {
    db.execute(ddl.toArray(new String[0]));
    List<String> qualified = new ArrayList<>();
    for (String t : tables) {
      qualified.add(db.table(t));
    }
    return new Pipeline(db, qualified);
  }

  /**
   * Reconciliation every second (a key range of up to 10,000 rows: every table of these tests
   * whole, one table a second): it runs often under the tests' concurrent writes, and {@link
   * #stopServer()} fails the test if it ever had to repair a row, so a lost or doubled event cannot
   * hide behind a repair. The capture check runs every second too.
   */
  SourceConfig sourceConfig() {
    return new SourceConfig(
        db.jdbcUrl(), null, null, tables, true, null, null, RECONCILE_EVERY, CAPTURE_CHECK_EVERY);
  }

  /**
   * Installs the capture now and returns a source that may not repair it ({@code install_triggers}
   * off) and does not reconcile, so that only the capture check tells what became of it: a trigger
   * disabled or dropped makes the table stale until someone installs the capture again.
   */
  SourceConfig installedSourceThatDoesNotRepair() throws java.sql.SQLException {
    SourceConfig installing = sourceConfig();
    installCapture(installing);
    return new SourceConfig(
        installing.jdbcUrl(),
        null,
        null,
        installing.tableNames(),
        false,
        null,
        null,
        Duration.ZERO,
        CAPTURE_CHECK_EVERY);
  }

  /** Runs {@code tablecast install} for {@code config}, as an operator would. */
  static void installCapture(SourceConfig config) throws java.sql.SQLException {
    try (io.tablecast.server.capture.TriggerInstaller installer =
        io.tablecast.server.capture.TriggerInstaller.connect(config)) {
      installer.describe();
      installer.install();
    }
  }

  ServerConfig serverConfig() {
    return ServerConfig.builder()
        .set("server_name", "it-" + db.schema())
        .listen("127.0.0.1", 0)
        .source(sourceConfig())
        .build();
  }

  TablecastServer startServer() {
    try {
      server = TablecastServer.start(serverConfig());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted starting the server", e);
    }
    return server;
  }

  /**
   * Starts the server with its own reconciliation and capture check intervals (a test that needs
   * one of them alone to find what it looks for).
   */
  TablecastServer startServer(Duration reconcileInterval, Duration captureCheckInterval) {
    return startServer(sourceConfig().jdbcUrl(), reconcileInterval, captureCheckInterval);
  }

  /**
   * Starts the server with {@code options} appended to its JDBC URL ({@code &name=value...}): what
   * the server's database user would get from its role or database (a timeout, a session variable).
   */
  TablecastServer startServerWithUrlOptions(String options) {
    return startServer(sourceConfig().jdbcUrl() + options, RECONCILE_EVERY, CAPTURE_CHECK_EVERY);
  }

  private TablecastServer startServer(String url, Duration reconcile, Duration captureCheck) {
    return startServer(
        b ->
            b.source(
                new SourceConfig(
                    url,
                    null,
                    null,
                    true,
                    null,
                    null,
                    reconcile,
                    captureCheck,
                    sourceConfig().cachedTables())));
  }

  /** Starts the server with extra settings on top of {@link #serverConfig()}. */
  TablecastServer startServer(java.util.function.Consumer<ServerConfig.Builder> settings) {
    ServerConfig.Builder b = serverConfig().toBuilder();
    settings.accept(b);
    try {
      server = TablecastServer.start(b.build());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted starting the server", e);
    }
    return server;
  }

  /** Starts the server with authentication: one principal, with its password and policy. */
  TablecastServer startServerWithPrincipal(
      String name, String password, io.tablecast.server.auth.AccessPolicy policy) {
    return startServer(
        b ->
            b.set(
                "auth",
                new io.tablecast.server.auth.ConfigAuthenticator(
                    List.of(
                        new io.tablecast.server.auth.ConfigAuthenticator.PrincipalEntry(
                            name,
                            io.tablecast.server.auth.PasswordHasher.hash(password.toCharArray()),
                            policy)),
                    null,
                    null)));
  }

  /**
   * Stops the server; fails when its reconciliation repaired anything (the stream missed a change)
   * other than the repairs a test caused on purpose ({@link #expectRepairs}).
   */
  void stopServer() {
    if (server != null) {
      double repairs = server.metrics().reconcileRepairs();
      server.close();
      server = null;
      Assertions.assertThat(repairs)
          .as(
              "rows repaired by reconciliation on %s: the stream lost or doubled a change; %s",
              db.kind(), repairsLogged())
          .isBetween(expectedRepairs, expectedRepairs + allowedRepairs);
    }
  }

  /**
   * The server's WARN lines of this pipeline's repairs, newest first (they name the table and the
   * first keys): what a failed {@link #stopServer} shows, so that a CI log says what drifted.
   */
  private List<String> repairsLogged() {
    return io.tablecast.server.log.RecentEvents.global().newestFirst().stream()
        .map(io.tablecast.server.log.RecentEvents.Event::message)
        .filter(m -> m.startsWith("reconciliation repaired") && m.contains(db.schema() + "."))
        .limit(5)
        .toList();
  }

  /**
   * Waits until the server's capture check has dropped its triggers from {@code table}
   * (unqualified), a partition or child that left the cached table: until then the table's changes
   * still reach the cached table's mirrors (GUARANTEES.md, Limits).
   */
  void awaitCaptureTriggersDropped(String table) {
    String sql =
        "SELECT count(*) FROM pg_trigger WHERE tgrelid = '"
            + db.table(table)
            + "'::regclass AND NOT tgisinternal AND tgname LIKE 'tablecast\\_%'";
    await()
        .atMost(Duration.ofSeconds(30))
        .alias("the capture triggers of " + table + " dropped")
        .until(
            () -> {
              try (Connection c = db.connect();
                  Statement s = c.createStatement();
                  ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1) == 0;
              }
            });
  }

  /**
   * The test moves at most {@code rows} rows in or out of a cached table by DDL (ATTACH or DETACH
   * PARTITION, INHERIT, NO INHERIT, a new child written before its triggers): the capture check
   * re-reads the table for them within {@code capture_check_interval}, but a reconciliation pass
   * that reads the table first repairs them instead (GUARANTEES.md, Limits), so up to {@code rows}
   * repairs are not a lost change.
   */
  void allowRepairs(int rows) {
    allowedRepairs = rows;
  }

  /**
   * The test changed rows behind the capture's back: the server must repair exactly {@code rows}.
   */
  void expectRepairs(int rows) {
    expectedRepairs = rows;
  }

  TablecastServer server() {
    return server;
  }

  String address() {
    return "127.0.0.1:" + server.port();
  }

  TablecastClient client(String name) {
    TablecastClient c =
        TablecastClient.builder()
            .servers(address())
            .clientName(name)
            .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
            .build();
    clients.add(c);
    return c;
  }

  /** A generic mirror of {@code table} (unqualified), ready. */
  TableMirror<Map<String, Object>> readyMirror(TablecastClient client, String table) {
    return readyMirror(client, table, READY);
  }

  /**
   * A generic mirror of {@code table} (unqualified), ready within {@code timeout}: a long one for a
   * table of a million rows, whose snapshot takes 4 s on a quiet machine and 30 s on a busy one.
   */
  TableMirror<Map<String, Object>> readyMirror(
      TablecastClient client, String table, Duration timeout) {
    TableMirror<Map<String, Object>> m = client.mirror(db.table(table));
    try {
      Assertions.assertThat(m.awaitReady(timeout)).as("mirror of %s ready", table).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for " + table, e);
    }
    return m;
  }

  /** A connection to the test database, for reads a test makes itself. */
  Connection connect() throws SQLException {
    return db.connect();
  }

  void sql(String... statements) {
    db.execute(statements);
  }

  /** Runs statements in one transaction and commits. */
  void transaction(String... statements) {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (String q : statements) {
        s.execute(q);
      }
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException("transaction failed: " + e.getMessage(), e);
    }
  }

  /** Runs statements in one transaction and rolls it back. */
  void rolledBack(String... statements) {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (String q : statements) {
        s.execute(q);
      }
      c.rollback();
    } catch (SQLException e) {
      throw new IllegalStateException("transaction failed: " + e.getMessage(), e);
    }
  }

  /**
   * {@code SELECT *} of a table, each value as the text of its JSON form (docs/TYPES.md), read per
   * {@code columns}' kinds with the JDBC getter that fits (see {@link ExactValues}): key = the
   * primary key values joined by '|', value = column name → text (null stays null).
   */
  Map<String, Map<String, String>> tableContents(
      String table, List<Column> columns, String... primaryKey) {
    Map<String, Column> byName = byName(columns);
    boolean postgres = db.kind() == TestDatabases.Kind.POSTGRESQL;
    Map<String, Map<String, String>> rows = new TreeMap<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      // MySQL: TIMESTAMP columns read as UTC; PostgreSQL: timestamptz inside ranges print in UTC
      // (ExactValues)
      s.execute(postgres ? "SET TIME ZONE 'UTC'" : "SET time_zone = '+00:00'");
      // PostgreSQL: the row's to_jsonb too, the documented form of composite values (ExactValues)
      try (ResultSet rs =
          s.executeQuery(
              postgres
                  ? "SELECT t.*, to_jsonb(t)::text FROM " + table + " t"
                  : "SELECT * FROM " + table)) {
        ResultSetMetaData meta = rs.getMetaData();
        int count = meta.getColumnCount() - (postgres ? 1 : 0);
        while (rs.next()) {
          Map<String, String> row = new TreeMap<>();
          String rowJson = postgres ? rs.getString(count + 1) : null;
          for (int i = 1; i <= count; i++) {
            String name = meta.getColumnLabel(i);
            row.put(name, ExactValues.fromDatabase(rs, i, byName.get(name), postgres, rowJson));
          }
          rows.put(keyOf(row, primaryKey), row);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read " + table + ": " + e.getMessage(), e);
    }
    return rows;
  }

  /** {@link #tableContents(String, List, String...)} with the layout and key of {@code mirror}. */
  Map<String, Map<String, String>> tableContents(String table, TableMirror<?> mirror) {
    return tableContents(table, mirror.columns(), mirror.primaryKey().toArray(new String[0]));
  }

  /** A mirror's rows in the form of {@link #tableContents}. */
  static Map<String, Map<String, String>> mirrorContents(TableMirror<Map<String, Object>> mirror) {
    Map<String, Map<String, String>> rows = new TreeMap<>();
    List<Column> columns = mirror.columns();
    String[] pk = mirror.primaryKey().toArray(new String[0]);
    for (Map<String, Object> r : mirror.rows()) {
      Map<String, String> row = exactRow(r, columns);
      rows.put(keyOf(row, pk), row);
    }
    return rows;
  }

  /** One generic row (a mirror's, or an event's image) in the form of {@link #tableContents}. */
  static Map<String, String> exactRow(Map<String, Object> r, List<Column> columns) {
    if (r == null) {
      return null;
    }
    Map<String, Column> byName = byName(columns);
    Map<String, String> row = new TreeMap<>();
    r.forEach((k, v) -> row.put(k, ExactValues.fromMirror(v, byName.get(k))));
    return row;
  }

  /** Waits until the mirror equals {@code SELECT *} of the table, value by value in exact form. */
  void awaitMirrorEqualsTable(TableMirror<Map<String, Object>> mirror, String table) {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(
            () ->
                Assertions.assertThat(mirrorContents(mirror))
                    .isEqualTo(tableContents(table, mirror)));
  }

  static String keyOf(Map<String, String> row, String... pk) {
    StringBuilder sb = new StringBuilder();
    for (String k : pk) {
      sb.append(row.get(k)).append('|');
    }
    return sb.toString();
  }

  private static Map<String, Column> byName(List<Column> columns) {
    Map<String, Column> out = new java.util.HashMap<>();
    for (Column c : columns) {
      out.put(c.name(), c);
    }
    return out;
  }

  @Override
  public void close() {
    for (TablecastClient c : clients) {
      c.close();
    }
    stopServer();
  }
}

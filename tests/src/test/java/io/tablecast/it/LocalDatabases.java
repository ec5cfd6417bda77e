package io.tablecast.it;

import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Database servers of a test's own, started from the Debian packages on free ports in temporary
 * directories, for what a test cannot do to the machine's shared servers: kill one, promote a
 * standby, restore a backup into another. A missing binary fails the test with the package to
 * install. As root (CI), PostgreSQL runs as the {@code postgres} user; MariaDB as root.
 */
final class LocalDatabases {
  private LocalDatabases() {}

  static final String PG_BIN = pgBin();

  private static String pgBin() {
    String given = System.getenv("PG_BIN");
    if (given != null) {
      return given;
    }
    for (String v : List.of("17", "16", "15", "14", "13")) {
      if (Files.isExecutable(Path.of("/usr/lib/postgresql/" + v + "/bin/initdb"))) {
        return "/usr/lib/postgresql/" + v + "/bin";
      }
    }
    return "/usr/lib/postgresql/15/bin";
  }

  /** A PostgreSQL cluster of the test's own. */
  static final class Postgres implements AutoCloseable {
    final Path dir;
    final int port;

    private Postgres(Path dir, int port) {
      this.dir = dir;
      this.port = port;
    }

    /** A new cluster (trust authentication, user postgres), started. */
    static Postgres start(String name) throws IOException {
      require(PG_BIN + "/initdb", "apt-get install -y postgresql-15 (or set PG_BIN)");
      Postgres pg = new Postgres(ownedDirectory(name), freePort());
      run(asPostgres(PG_BIN + "/initdb -D " + pg.dir + " -U postgres --auth=trust -E UTF8"));
      pg.configure();
      pg.startProcess();
      return pg;
    }

    /**
     * A streaming standby of this cluster ({@code pg_basebackup -R}), started and caught up with
     * everything committed here so far.
     */
    Postgres standby(String name) throws IOException, SQLException {
      Postgres s = new Postgres(ownedDirectory(name), freePort());
      Files.delete(s.dir);
      run(
          asPostgres(
              PG_BIN
                  + "/pg_basebackup -h 127.0.0.1 -p "
                  + port
                  + " -U postgres -D "
                  + s.dir
                  + " -R -X stream"));
      s.configure();
      s.startProcess();
      s.awaitReplayed(query("SELECT pg_current_wal_lsn()::text"));
      return s;
    }

    private void configure() throws IOException {
      Files.writeString(
          dir.resolve("postgresql.conf"),
          "\nlisten_addresses = '127.0.0.1'\nport = "
              + port
              + "\nunix_socket_directories = '"
              + dir
              + "'\nfsync = off\nmax_connections = 50\nshared_buffers = 32MB\n"
              + "max_prepared_transactions = 10\n",
          StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.APPEND);
    }

    void startProcess() throws IOException {
      run(asPostgres(PG_BIN + "/pg_ctl -D " + dir + " -l " + dir + "/server.log -w start"));
    }

    /** A clean shutdown. */
    void stop() throws IOException {
      run(asPostgres(PG_BIN + "/pg_ctl -D " + dir + " -m fast -w stop"));
    }

    /** As a crash: no shutdown checkpoint, every session cut. */
    void crash() throws IOException {
      run(asPostgres(PG_BIN + "/pg_ctl -D " + dir + " -m immediate -w stop"));
    }

    /** Ends a standby's recovery: it takes writes from now on. */
    void promote() throws IOException {
      run(asPostgres(PG_BIN + "/pg_ctl -D " + dir + " -w promote"));
    }

    private void awaitReplayed(String lsn) throws SQLException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!"t".equals(query("SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn"))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the standby on port " + port + " did not replay " + lsn);
        }
        sleep(50);
      }
    }

    String jdbcUrl() {
      return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    String query(String sql) throws SQLException {
      return LocalDatabases.query(jdbcUrl(), sql);
    }

    void execute(String... sql) throws SQLException {
      LocalDatabases.execute(jdbcUrl(), sql);
    }

    @Override
    public void close() throws IOException {
      try {
        crash();
      } catch (IOException e) {
        // not running
      }
      run("rm -rf " + dir);
    }
  }

  /**
   * The configuration of a server on {@code jdbcUrl} caching {@code table}: capture installed (or
   * not), no reconciliation (0 s: only the tail can bring mirrors to the table), the capture check
   * every second.
   */
  static ServerConfig serverConfig(String jdbcUrl, String table, boolean installTriggers) {
    SourceConfig source =
        new SourceConfig(
            jdbcUrl,
            null,
            null,
            List.of(table),
            installTriggers,
            null,
            null,
            Duration.ZERO,
            Duration.ofSeconds(1));
    return ServerConfig.builder()
        .set("server_name", "local")
        .listen("127.0.0.1", 0)
        .source(source)
        .build();
  }

  /** A server started with {@link #serverConfig}, capture installed. */
  static TablecastServer serve(String jdbcUrl, String table) throws InterruptedException {
    return TablecastServer.start(serverConfig(jdbcUrl, table, true));
  }

  /**
   * A server started with {@link #serverConfig}, capture installed, that gives a statement up once
   * it has gone {@code answerTimeout} without an answer ({@code source.answer_timeout}).
   */
  static TablecastServer serve(String jdbcUrl, String table, Duration answerTimeout)
      throws InterruptedException {
    ServerConfig config = serverConfig(jdbcUrl, table, true);
    return TablecastServer.start(
        config.toBuilder().source(config.source().withAnswerTimeout(answerTimeout)).build());
  }

  /** A client of {@code server} that reconnects quickly. */
  static TablecastClient client(TablecastServer server) {
    return TablecastClient.builder()
        .servers("127.0.0.1:" + server.port())
        .clientName("local")
        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
        .build();
  }

  /** {@code SELECT id, name FROM table}, by id. */
  static Map<Object, Object> rows(String jdbcUrl, String table) throws SQLException {
    Map<Object, Object> rows = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, name FROM " + table)) {
      while (rs.next()) {
        rows.put(rs.getInt(1), rs.getString(2));
      }
    }
    return rows;
  }

  static String query(String jdbcUrl, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  static void execute(String jdbcUrl, String... sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    }
  }

  private static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  static String asPostgres(String command) {
    return root() ? "su postgres -s /bin/bash -c '" + command + "'" : command;
  }

  /** A new directory the PostgreSQL processes may own. */
  static Path ownedDirectory(String name) throws IOException {
    Path dir = Files.createTempDirectory("tc-" + name);
    if (root()) {
      run("chown postgres:postgres " + dir + " && chmod 700 " + dir);
    }
    return dir;
  }

  static void require(String binary, String install) {
    if (!Files.isExecutable(Path.of(binary))) {
      throw new IllegalStateException(binary + " is missing: " + install);
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Runs a shell command; fails with its output when it fails. */
  static void run(String command) throws IOException {
    Process p = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (p.waitFor() != 0) {
        throw new IOException("`" + command + "` failed (" + p.exitValue() + "): " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + command, e);
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}

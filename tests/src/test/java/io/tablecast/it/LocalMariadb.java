package io.tablecast.it;

import static io.tablecast.it.LocalDatabases.freePort;
import static io.tablecast.it.LocalDatabases.require;
import static io.tablecast.it.LocalDatabases.run;
import static io.tablecast.it.LocalDatabases.sleep;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A MariaDB server of the test's own, with its own {@code server_id}. */
final class LocalMariadb implements AutoCloseable {
  final Path dir;
  final int port;
  final int serverId;
  private List<String> options;
  private String processZone;
  private Process process;

  private LocalMariadb(Path dir, int port, int serverId, List<String> options) {
    this.dir = dir;
    this.port = port;
    this.serverId = serverId;
    this.options = options;
  }

  /**
   * A new server (root without a password from 127.0.0.1), started with {@code options} beside its
   * own (e.g. {@code --log-bin}).
   */
  static LocalMariadb start(String name, int serverId, String... options) throws IOException {
    return startInZone(name, serverId, null, options);
  }

  /**
   * As {@link #start(String, int, String...)}, the server process in the time zone {@code
   * processZone} (its {@code TZ}: the host's zone as the server sees it), or the test's when null.
   */
  static LocalMariadb startInZone(String name, int serverId, String processZone, String... options)
      throws IOException {
    require("/usr/bin/mariadb-install-db", "apt-get install -y mariadb-server");
    LocalMariadb m =
        new LocalMariadb(
            Files.createTempDirectory("tc-" + name), freePort(), serverId, List.of(options));
    m.processZone = processZone;
    run(
        "mariadb-install-db --no-defaults --datadir="
            + m.dir
            + " --tmpdir="
            + m.tmpdir()
            + " --user=root --auth-root-authentication-method=normal --skip-test-db"
            + " > "
            + m.dir
            + ".install.log 2>&1");
    m.startProcess();
    run(
        "mariadb --socket="
            + m.dir
            + "/mysqld.sock -uroot -e \"CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';"
            + " GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION\"");
    return m;
  }

  /**
   * Its own temporary directory: at start (and in mariadb-install-db) a server deletes every {@code
   * #sql} file in its tmpdir, which in /tmp were the temporary tables the shared test server was
   * using at that moment (checked by hand: a {@code /tmp/#sql-...MAD} file is gone after either; a
   * CI run failed on it).
   */
  private Path tmpdir() throws IOException {
    return Files.createDirectories(Path.of(dir + "-tmp"));
  }

  private void startProcess() throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                "mariadbd",
                "--no-defaults",
                "--datadir=" + dir,
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + dir + "/mysqld.sock",
                "--pid-file=" + dir + "/mariadbd.pid",
                "--user=root",
                "--server-id=" + serverId,
                "--log-error=" + dir + "/error.log",
                "--tmpdir=" + tmpdir(),
                "--innodb-buffer-pool-size=32M",
                "--skip-name-resolve"));
    command.addAll(options);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    if (processZone != null) {
      builder.environment().put("TZ", processZone);
    }
    process = builder.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        query("SELECT 1");
        return;
      } catch (SQLException e) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IOException(
              "mariadbd on port " + port + " did not start: see " + dir + "/error.log", e);
        }
        sleep(100);
      }
    }
  }

  /** Shut down cleanly, then started again with {@code options} instead of its first ones. */
  void restartWith(String... options) throws IOException, SQLException, InterruptedException {
    execute("SHUTDOWN");
    process.waitFor();
    this.options = List.of(options);
    startProcess();
  }

  /** As a crash: killed, no shutdown. */
  void crash() throws InterruptedException {
    process.destroyForcibly().waitFor();
  }

  /**
   * Makes this server a replica of {@code primary} (which runs with {@code --log-bin}), from the
   * start of its binary log, and waits until it applied all of it so far.
   */
  void replicate(LocalMariadb primary) throws SQLException {
    execute(
        "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT="
            + primary.port
            + ", MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=no",
        "START SLAVE");
  }

  /** Copies {@code database} whole (tables, rows, triggers) into {@code other}, as a backup. */
  void copyTo(LocalMariadb other, String database) throws IOException {
    run(
        "mariadb-dump --socket="
            + dir
            + "/mysqld.sock -uroot --databases "
            + database
            + " --triggers --routines | mariadb --socket="
            + other.dir
            + "/mysqld.sock -uroot");
  }

  String jdbcUrl(String database) {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + database + "?user=root&password=";
  }

  String query(String sql) throws SQLException {
    return LocalDatabases.query(jdbcUrl(""), sql);
  }

  void execute(String... sql) throws SQLException {
    LocalDatabases.execute(jdbcUrl(""), sql);
  }

  @Override
  public void close() throws IOException {
    if (process != null) {
      process.destroyForcibly();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    run("rm -rf " + dir + " " + dir + "-tmp " + dir + ".install.log");
  }
}

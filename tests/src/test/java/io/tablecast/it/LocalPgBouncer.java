package io.tablecast.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * PgBouncer in transaction pooling mode, as production PostgreSQL is often reached: Debian's {@code
 * pgbouncer} on a free port, in front of {@code host:port} (database {@code postgres}, user {@code
 * postgres}, trust). A client's connection to it stays open while PgBouncer reconnects to the
 * server behind it, so a failover behind PgBouncer reaches the client on connections it already
 * had.
 */
final class LocalPgBouncer implements AutoCloseable {
  static final String BINARY = "/usr/sbin/pgbouncer";

  final int port;
  private final Path dir;
  private String ini;

  private LocalPgBouncer(Path dir, int port) {
    this.dir = dir;
    this.port = port;
  }

  static LocalPgBouncer start(String name, String host, int serverPort) throws IOException {
    LocalDatabases.require(BINARY, "apt-get install -y pgbouncer");
    Path dir = LocalDatabases.ownedDirectory(name);
    LocalPgBouncer b = new LocalPgBouncer(dir, LocalDatabases.freePort());
    Path users = Files.writeString(dir.resolve("users.txt"), "\"postgres\" \"\"\n");
    b.ini =
        String.join(
            "\n",
            "[databases]",
            "postgres = host=" + host + " port=" + serverPort + " dbname=postgres",
            "[pgbouncer]",
            "listen_addr = 127.0.0.1",
            "listen_port = " + b.port,
            "unix_socket_dir =",
            "auth_type = trust",
            "admin_users = postgres",
            "auth_file = " + users,
            "pool_mode = transaction",
            // what pgjdbc sends that PgBouncer does not track (its documented advice)
            "ignore_startup_parameters = extra_float_digits,search_path,options",
            "server_login_retry = 1",
            "query_wait_timeout = 2", // a test that stopped the server behind it ends fast
            "logfile = " + dir.resolve("pgbouncer.log"),
            "pidfile = " + dir.resolve("pgbouncer.pid"),
            "");
    Path ini = Files.writeString(dir.resolve("pgbouncer.ini"), b.ini, StandardCharsets.UTF_8);
    LocalDatabases.run("chmod -R a+rwX " + dir);
    LocalDatabases.run(LocalDatabases.asPostgres(BINARY + " -d " + ini));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!Files.exists(dir.resolve("pgbouncer.pid"))) {
      if (System.nanoTime() > deadline) {
        throw new IOException("pgbouncer did not start: see " + dir.resolve("pgbouncer.log"));
      }
      sleep();
    }
    return b;
  }

  /**
   * Moves the database to {@code host:serverPort} as operators do for a switchover or after a
   * failover: {@code PAUSE} (clients' queries wait), the configuration changed, {@code RELOAD},
   * {@code RESUME}. No client connection is closed.
   */
  void switchTo(String host, int serverPort, Runnable whilePaused) throws IOException {
    admin("PAUSE");
    whilePaused.run();
    ini =
        ini.replaceFirst(
            "postgres = host=\\S+ port=\\d+", "postgres = host=" + host + " port=" + serverPort);
    Files.writeString(dir.resolve("pgbouncer.ini"), ini, StandardCharsets.UTF_8);
    admin("RELOAD");
    admin("RESUME");
  }

  private void admin(String command) throws IOException {
    LocalDatabases.run(
        "psql -h 127.0.0.1 -p " + port + " -U postgres -d pgbouncer -c '" + command + "'");
  }

  /**
   * A JDBC URL through it: {@code prepareThreshold=0}, as pgjdbc's documentation says for
   * transaction pooling (named prepared statements live in one server session).
   */
  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&prepareThreshold=0";
  }

  private static void sleep() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws IOException {
    Path pid = dir.resolve("pgbouncer.pid");
    if (Files.exists(pid)) {
      LocalDatabases.run("kill " + Files.readString(pid).trim() + " || true");
    }
    LocalDatabases.run("rm -rf " + dir);
  }
}

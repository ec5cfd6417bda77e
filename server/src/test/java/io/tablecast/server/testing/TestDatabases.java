package io.tablecast.server.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The real databases tests run against. Taken from {@code TABLECAST_TEST_MYSQL_URL} and {@code
 * TABLECAST_TEST_PG_URL} (JDBC URLs with credentials as URL parameters); when unset and a Docker
 * engine is reachable, from Testcontainers (MySQL 8, PostgreSQL 16); otherwise a test fails with a
 * message saying how to provide one. Never skips silently.
 *
 * <p>Each call to {@link Kind#isolated} creates a fresh MySQL database or PostgreSQL schema, so
 * test classes do not see each other's tables or outboxes. They are dropped when the test JVM
 * exits, so the server's catalog does not grow run after run: on MariaDB a look at {@code
 * information_schema.TRIGGERS}, which the capture makes at every start, reads every database's
 * triggers. Set {@code -Dtablecast.test.keepSchemas=true} to keep them for a look after a run.
 */
public final class TestDatabases {

  public static final String MYSQL_ENV = "TABLECAST_TEST_MYSQL_URL";
  public static final String PG_ENV = "TABLECAST_TEST_PG_URL";

  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  /** The databases and schemas this JVM created, dropped when it exits. */
  private static final Queue<Isolated> CREATED = new ConcurrentLinkedQueue<>();

  static {
    if (!Boolean.getBoolean("tablecast.test.keepSchemas")) {
      Runtime.getRuntime()
          .addShutdownHook(new Thread(TestDatabases::dropCreated, "drop-test-schemas"));
    }
  }

  private static volatile String mysqlBase;
  private static volatile String pgBase;

  private TestDatabases() {}

  /** The two database families. */
  public enum Kind {
    MYSQL,
    POSTGRESQL;

    /** The JDBC URL of the shared test database (with credentials). */
    public String baseUrl() {
      return this == MYSQL ? mysqlUrl() : pgUrl();
    }

    /**
     * Creates an empty database (MySQL) or schema (PostgreSQL) named after {@code prefix} and
     * returns a JDBC URL whose default schema is it.
     */
    public Isolated isolated(String prefix) {
      String name =
          (prefix.replaceAll("[^A-Za-z0-9]", "_")
                  + "_"
                  + ProcessHandle.current().pid()
                  + "_"
                  + SEQUENCE.incrementAndGet())
              .toLowerCase(Locale.ROOT);
      if (name.length() > 60) {
        name = name.substring(name.length() - 60);
      }
      try (Connection c = DriverManager.getConnection(baseUrl());
          Statement s = c.createStatement()) {
        if (this == MYSQL) {
          s.execute("DROP DATABASE IF EXISTS `" + name + "`");
          s.execute("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
          return created(new Isolated(this, name, withDatabase(baseUrl(), name)));
        }
        s.execute("DROP SCHEMA IF EXISTS \"" + name + "\" CASCADE");
        s.execute("CREATE SCHEMA \"" + name + "\"");
        String url = baseUrl() + (baseUrl().contains("?") ? "&" : "?") + "currentSchema=" + name;
        return created(new Isolated(this, name, url));
      } catch (SQLException e) {
        throw new IllegalStateException(
            "cannot create test schema " + name + " on " + this + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * A fresh schema for one test class.
   *
   * @param schema the MySQL database or PostgreSQL schema name
   * @param jdbcUrl a URL (credentials included) whose default schema is {@code schema}
   */
  public record Isolated(Kind kind, String schema, String jdbcUrl) {
    public Connection connect() throws SQLException {
      return DriverManager.getConnection(jdbcUrl);
    }

    /** Runs statements in autocommit mode. */
    public void execute(String... sql) {
      try (Connection c = connect();
          Statement s = c.createStatement()) {
        for (String q : sql) {
          s.execute(q);
        }
      } catch (SQLException e) {
        throw new IllegalStateException("SQL failed on " + kind + ": " + e.getMessage(), e);
      }
    }

    /** Qualifies a table name with this schema, as clients and configs name it. */
    public String table(String name) {
      return schema + "." + name;
    }

    /** The names of the triggers on {@code table} of this schema, in name order. */
    public List<String> triggerNames(String table) throws SQLException {
      List<String> names = new ArrayList<>();
      try (Connection c = connect();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT DISTINCT trigger_name FROM information_schema.triggers"
                      + " WHERE event_object_schema = ? AND event_object_table = ? ORDER BY 1")) {
        ps.setString(1, schema);
        ps.setString(2, table);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            names.add(rs.getString(1));
          }
        }
      }
      return names;
    }
  }

  private static Isolated created(Isolated db) {
    CREATED.add(db);
    return db;
  }

  /** Drops what {@link Kind#isolated} created; a failure leaves that one behind, named. */
  private static void dropCreated() {
    for (Isolated db = CREATED.poll(); db != null; db = CREATED.poll()) {
      try (Connection c = DriverManager.getConnection(db.kind().baseUrl());
          Statement s = c.createStatement()) {
        // a connection this JVM left in a transaction must not make the exit wait for its locks
        s.execute(
            db.kind() == Kind.MYSQL
                ? "SET SESSION lock_wait_timeout = 5"
                : "SET lock_timeout = 5000");
        s.execute(
            db.kind() == Kind.MYSQL
                ? "DROP DATABASE IF EXISTS `" + db.schema() + "`"
                : "DROP SCHEMA IF EXISTS \"" + db.schema() + "\" CASCADE");
      } catch (SQLException e) {
        System.err.println("test schema " + db.schema() + " not dropped: " + e.getMessage());
      }
    }
  }

  static String withDatabase(String url, String database) {
    // jdbc:mariadb://host:port/db?params -> replace the path segment
    int schemeEnd = url.indexOf("//") + 2;
    int slash = url.indexOf('/', schemeEnd);
    int q = url.indexOf('?', schemeEnd);
    String hostPart = url.substring(0, slash < 0 ? (q < 0 ? url.length() : q) : slash);
    String params = q < 0 ? "" : url.substring(q);
    return hostPart + "/" + database + params;
  }

  static synchronized String mysqlUrl() {
    if (mysqlBase == null) {
      mysqlBase =
          resolve(
              "MariaDB/MySQL",
              MYSQL_ENV,
              System.getenv(MYSQL_ENV),
              "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=",
              TestDatabases::dockerAvailable,
              DockerDatabases::startMysql);
    }
    return mysqlBase;
  }

  static synchronized String pgUrl() {
    if (pgBase == null) {
      pgBase =
          resolve(
              "PostgreSQL",
              PG_ENV,
              System.getenv(PG_ENV),
              "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
              TestDatabases::dockerAvailable,
              DockerDatabases::startPostgres);
    }
    return pgBase;
  }

  /**
   * Where a test database comes from: the environment variable's value when set, else a container
   * when Docker is reachable, else a failure saying how to provide one.
   */
  static String resolve(
      String what,
      String env,
      String envValue,
      String example,
      BooleanSupplier docker,
      Supplier<String> startContainer) {
    if (envValue != null && !envValue.isBlank()) {
      return envValue.trim();
    }
    if (docker.getAsBoolean()) {
      return startContainer.get();
    }
    throw new IllegalStateException(howToProvide(what, env, example));
  }

  private static String howToProvide(String what, String env, String example) {
    return "No "
        + what
        + " database for the tests: set "
        + env
        + " to a JDBC URL with credentials, e.g. "
        + env
        + "='"
        + example
        + "', or make a Docker engine reachable so Testcontainers can start one. "
        + "See DEVELOPERS.md.";
  }

  private static boolean dockerAvailable() {
    try {
      return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable t) {
      return false;
    }
  }
}

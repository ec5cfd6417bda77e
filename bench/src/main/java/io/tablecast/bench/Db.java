package io.tablecast.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The two database families the suite runs against. The URL (credentials as URL parameters) is, in
 * this order: {@code TABLECAST_BENCH_MYSQL_URL} / {@code TABLECAST_BENCH_PG_URL} when set; the
 * benchmark's own instance started by {@code bench/scripts/start-dbs.sh} (MariaDB on 3307 with the
 * binlog, PostgreSQL on 5433 with logical decoding; ports from {@code TC_BENCH_MARIADB_PORT} /
 * {@code TC_BENCH_PG_PORT}) when it answers; else the machine's shared database (3306 / 5432),
 * where the Debezium comparison cannot run. Every run works in a fresh schema ({@link #isolated})
 * dropped when closed, so a shared database is never changed beyond that schema.
 */
@SuppressWarnings(
    "ImmutableEnumChecker") // the URL is resolved once per run and shared by every figure
public enum Db {
  MARIADB(
      "MariaDB",
      "TABLECAST_BENCH_MYSQL_URL",
      "TC_BENCH_MARIADB_PORT",
      3307,
      "jdbc:mariadb://127.0.0.1:%d/bench?user=root&password=",
      "jdbc:mariadb://127.0.0.1:3306/test?user=root&password="),
  POSTGRESQL(
      "PostgreSQL",
      "TABLECAST_BENCH_PG_URL",
      "TC_BENCH_PG_PORT",
      5433,
      "jdbc:postgresql://127.0.0.1:%d/bench?user=postgres",
      "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  private final String label;
  private final String env;
  private final String portEnv;
  private final int benchPort;
  private final String benchUrl;
  private final String sharedUrl;
  private volatile String resolved;
  private volatile String origin;

  Db(String label, String env, String portEnv, int benchPort, String benchUrl, String sharedUrl) {
    this.label = label;
    this.env = env;
    this.portEnv = portEnv;
    this.benchPort = benchPort;
    this.benchUrl = benchUrl;
    this.sharedUrl = sharedUrl;
  }

  public String label() {
    return label;
  }

  public String envVariable() {
    return env;
  }

  /** The base JDBC URL, with credentials (decided once per JVM, see the type's javadoc). */
  public String baseUrl() {
    if (resolved == null) {
      synchronized (this) {
        if (resolved == null) {
          String v = System.getenv(env);
          int port = benchPort;
          String p = System.getenv(portEnv);
          if (p != null && !p.isBlank()) {
            port = Integer.parseInt(p.trim());
          }
          if (v != null && !v.isBlank()) {
            origin = env;
            resolved = v.trim();
          } else if (answers(port)) {
            origin = "the benchmark's own instance (bench/scripts/start-dbs.sh)";
            resolved = String.format(benchUrl, port);
          } else {
            origin =
                "the machine's shared database (bench instance on port " + port + " not running)";
            resolved = sharedUrl;
          }
        }
      }
    }
    return resolved;
  }

  /** Where {@link #baseUrl()} came from, and the URL without its password, for the report. */
  public String describeSource() {
    String url = baseUrl().replaceAll("password=[^&]*", "password=***");
    return url + " (" + origin + ")";
  }

  private static boolean answers(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  public boolean mysqlFamily() {
    return this == MARIADB;
  }

  /** {@code mariadb}, {@code mysql} or {@code postgresql}/{@code pg}. */
  public static Db parse(String s) {
    String v = s.trim().toLowerCase(Locale.ROOT);
    if (v.equals("mariadb") || v.equals("mysql")) {
      return MARIADB;
    }
    if (v.equals("postgresql") || v.equals("pg") || v.equals("postgres")) {
      return POSTGRESQL;
    }
    throw new IllegalArgumentException("unknown database '" + s + "': use mariadb or postgresql");
  }

  /** {@code SELECT version()}, or a message saying why it failed. */
  public String version() {
    try (Connection c = DriverManager.getConnection(baseUrl());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT version()")) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      return "unreachable (" + e.getMessage() + ")";
    }
  }

  /** Creates an empty MySQL database / PostgreSQL schema for one run. */
  public Schema isolated(String prefix) {
    String name =
        ("bench_"
                + prefix.replaceAll("[^A-Za-z0-9]", "_")
                + "_"
                + ProcessHandle.current().pid()
                + "_"
                + SEQUENCE.incrementAndGet())
            .toLowerCase(Locale.ROOT);
    if (name.length() > 60) {
      name = name.substring(name.length() - 60);
    }
    String base = baseUrl();
    try (Connection c = DriverManager.getConnection(base);
        Statement s = c.createStatement()) {
      if (mysqlFamily()) {
        s.execute("DROP DATABASE IF EXISTS `" + name + "`");
        s.execute("CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        return new Schema(this, name, withDatabase(base, name));
      }
      s.execute("DROP SCHEMA IF EXISTS \"" + name + "\" CASCADE");
      s.execute("CREATE SCHEMA \"" + name + "\"");
      return new Schema(
          this, name, base + (base.contains("?") ? "&" : "?") + "currentSchema=" + name);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot create schema "
              + name
              + " on "
              + label
              + " ("
              + env
              + "="
              + base.replaceAll("password=[^&]*", "password=***")
              + "): "
              + e.getMessage(),
          e);
    }
  }

  static String withDatabase(String url, String database) {
    int schemeEnd = url.indexOf("//") + 2;
    int slash = url.indexOf('/', schemeEnd);
    int q = url.indexOf('?', schemeEnd);
    String hostPart = url.substring(0, slash < 0 ? (q < 0 ? url.length() : q) : slash);
    String params = q < 0 ? "" : url.substring(q);
    return hostPart + "/" + database + params;
  }

  /**
   * One run's schema; {@link #close()} drops it with everything in it (outbox, triggers, tables).
   */
  public record Schema(Db db, String name, String jdbcUrl) implements AutoCloseable {
    public Connection connect() throws SQLException {
      return DriverManager.getConnection(jdbcUrl);
    }

    public void execute(String... sql) {
      try (Connection c = connect();
          Statement s = c.createStatement()) {
        for (String q : sql) {
          s.execute(q);
        }
      } catch (SQLException e) {
        throw new IllegalStateException("SQL failed on " + db.label + ": " + e.getMessage(), e);
      }
    }

    public String table(String t) {
      return name + "." + t;
    }

    @Override
    public void close() {
      try (Connection c = DriverManager.getConnection(db.baseUrl());
          Statement s = c.createStatement()) {
        s.execute(
            db.mysqlFamily()
                ? "DROP DATABASE IF EXISTS `" + name + "`"
                : "DROP SCHEMA IF EXISTS \"" + name + "\" CASCADE");
      } catch (SQLException e) {
        System.err.println("warning: could not drop " + name + ": " + e.getMessage());
      }
    }
  }
}

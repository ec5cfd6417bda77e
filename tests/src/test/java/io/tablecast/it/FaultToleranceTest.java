package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.protocol.MessageType;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Faults on the way from the database to the mirrors: a dropped client connection (cut in a TCP
 * proxy between client and server), a resume buffer too small to resume from, killed database
 * sessions of the server, and a server process killed and restarted mid-stream. Every mirror
 * converges to the table, and listeners see only real differences.
 */
class FaultToleranceTest {
  private static final long SEED = Long.getLong("tablecast.seed", 20240611L);
  private static final Duration CONVERGE =
      Duration.ofSeconds(Long.getLong("tablecast.converge.seconds", 60L));

  private static TablecastClient clientVia(String servers, String name) {
    return TablecastClient.builder()
        .servers(servers)
        .clientName(name)
        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
        .build();
  }

  private static List<String> opsAndKeys(List<ChangeEvent<Map<String, Object>>> events) {
    return events.stream().map(e -> e.op() + " " + e.key()).collect(Collectors.toList());
  }

  // ---------------------------------------------------------------- resume after a dropped
  // connection

  @ParameterizedTest
  @EnumSource(Kind.class)
  void droppedConnectionResumesFromItsPositionWithoutASnapshot(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "resume", TransferWorkload.ddl(), "accounts");
        CuttableProxy proxy = new CuttableProxy("127.0.0.1", p.server().port());
        TablecastClient client = clientVia(proxy.address(), "resumer")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
      assertThat(proxy.frames(MessageType.SNAPSHOT_BEGIN)).isEqualTo(1);
      p.sql("UPDATE accounts SET owner = 'before the cut' WHERE id = 1");
      TransferWorkload.awaitConverged(p, m, CONVERGE);
      List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
      m.addListener(events::add);

      proxy.block(true);
      proxy.cut();
      long before = p.server().position();
      p.sql("UPDATE accounts SET balance = 5 WHERE id = 2");
      p.sql("INSERT INTO accounts VALUES (30, 'while away', 0)");
      p.sql("DELETE FROM accounts WHERE id = 3");
      p.transaction(
          "UPDATE accounts SET balance = balance - 10 WHERE id = 4",
          "UPDATE accounts SET balance = balance + 10 WHERE id = 5");
      // the server has the changes in its resume buffer before the client comes back
      await().atMost(CONVERGE).until(() -> p.server().position() > before);
      assertThat(m.get(30))
          .as("changes made while disconnected are not in the mirror yet")
          .isNull();
      proxy.block(false);

      TransferWorkload.awaitConverged(p, m, CONVERGE);
      assertThat(proxy.connections()).as("connections through the proxy").isGreaterThanOrEqualTo(2);
      assertThat(proxy.frames(MessageType.RESUMED)).as("resumed frames").isGreaterThanOrEqualTo(1);
      assertThat(proxy.frames(MessageType.SNAPSHOT_BEGIN))
          .as("snapshots after the first")
          .isEqualTo(1);
      assertThat(p.server().metrics().snapshotsServed())
          .as("server metric tablecast.snapshots.served")
          .isEqualTo(1.0);
      assertThat(p.server().metrics().resumesServed())
          .as("server metric tablecast.resumes")
          .isGreaterThanOrEqualTo(1.0);
      await().atMost(CONVERGE).until(() -> events.size() >= 5);
      assertThat(opsAndKeys(events))
          .containsExactly("UPDATE 2", "INSERT 30", "DELETE 3", "UPDATE 4", "UPDATE 5");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void droppedConnectionBeyondTheResumeBufferResnapshotsFiringOnlyRealDifferences(Kind kind)
      throws Exception {
    Pipeline p = Pipeline.create(kind, "resnap", TransferWorkload.ddl(), "accounts");
    ServerConfig config =
        p.serverConfig().toBuilder()
            .set("resume_buffer.batches", 2)
            .set("resume_buffer.bytes", 1 << 20)
            .build();
    try (p;
        TablecastServer server = TablecastServer.start(config);
        CuttableProxy proxy = new CuttableProxy("127.0.0.1", server.port());
        TablecastClient client = clientVia(proxy.address(), "resnapshotter")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
      List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
      m.addListener(events::add);

      proxy.block(true);
      proxy.cut();
      String[] statements = {
        "UPDATE accounts SET balance = 1 WHERE id = 1",
        "UPDATE accounts SET balance = 2 WHERE id = 2",
        "UPDATE accounts SET owner = 'renamed' WHERE id = 3",
        "INSERT INTO accounts VALUES (40, 'new', 0)",
        "DELETE FROM accounts WHERE id = 4",
        // changed and changed back while away: no difference, so no event
        "UPDATE accounts SET balance = balance + 7 WHERE id = 6",
        "UPDATE accounts SET balance = balance - 7 WHERE id = 6",
        "INSERT INTO accounts VALUES (41, 'short-lived', 0)",
        "DELETE FROM accounts WHERE id = 41",
      };
      for (String q : statements) {
        long before = server.position();
        p.sql(q);
        // one batch each, so the two-batch resume buffer no longer holds the client's position
        await().atMost(CONVERGE).until(() -> server.position() > before);
      }
      proxy.block(false);

      TransferWorkload.awaitConverged(p, m, CONVERGE);
      assertThat(proxy.frames(MessageType.RESUMED)).as("resumed frames").isZero();
      assertThat(proxy.frames(MessageType.SNAPSHOT_BEGIN))
          .as("snapshots: first + re-snapshot")
          .isEqualTo(2);
      assertThat(server.metrics().snapshotsServed())
          .as("server metric tablecast.snapshots.served")
          .isEqualTo(2.0);
      assertThat(server.metrics().resumesServed()).as("server metric tablecast.resumes").isZero();
      await().atMost(CONVERGE).until(() -> events.size() >= 5);
      assertThat(opsAndKeys(events))
          .containsExactlyInAnyOrder("UPDATE 1", "UPDATE 2", "UPDATE 3", "INSERT 40", "DELETE 4");
      p.sql("UPDATE accounts SET balance = 99 WHERE id = 7");
      await().atMost(CONVERGE).until(() -> events.size() >= 6);
      assertThat(opsAndKeys(events)).hasSize(6).endsWith("UPDATE 7");
      assertThat(server.metrics().reconcileRepairs())
          .as("rows repaired by reconciliation")
          .isZero();
    }
  }

  // ---------------------------------------------------------------- killed database sessions

  @ParameterizedTest
  @EnumSource(Kind.class)
  void killedDatabaseSessionsOfTheServerRecoverAndMirrorsConverge(Kind kind) throws Exception {
    Pipeline p = Pipeline.create(kind, "killdb", TransferWorkload.ddl(), "accounts");
    // PostgreSQL: the server's sessions carry this application_name.
    String appName =
        ("tablecast_" + p.db.schema()).substring(0, Math.min(63, 10 + p.db.schema().length()));
    String url =
        kind == Kind.POSTGRESQL ? p.db.jdbcUrl() + "&ApplicationName=" + appName : p.db.jdbcUrl();
    SourceConfig source =
        new SourceConfig(
            url,
            null,
            null,
            List.of(p.db.table("accounts")),
            true,
            null,
            null,
            Pipeline.RECONCILE_EVERY,
            null);
    ServerConfig config = p.serverConfig().toBuilder().source(source).build();
    try (p;
        TablecastServer server = TablecastServer.start(config);
        TablecastClient client = clientVia("127.0.0.1:" + server.port(), "survivor");
        TransferWorkload w = new TransferWorkload(p, SEED + 2)) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
      w.start(3, true);
      int killed = 0;
      for (int round = 0; round < 3; round++) {
        w.awaitCommitted(50);
        // waits for the server to have (re)opened sessions, then kills them all
        List<String[]> sessions = new ArrayList<>();
        await()
            .atMost(CONVERGE)
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> {
                  sessions.clear();
                  sessions.addAll(serverSessions(p, appName, w.sessionIds));
                  return !sessions.isEmpty();
                });
        for (String[] s : sessions) {
          kill(p, Long.parseLong(s[0]));
          killed++;
        }
      }
      w.awaitCommitted(100);
      w.stop();
      System.out.printf(
          "FaultToleranceTest %s: killed %d server sessions, %d transactions%n",
          kind, killed, w.committed.get());
      try {
        TransferWorkload.awaitConverged(p, m, CONVERGE);
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        throw new AssertionError(diagnose(p, m, server), e);
      }
      try (TablecastClient lateClient = clientVia("127.0.0.1:" + server.port(), "late")) {
        TransferWorkload.awaitConverged(p, p.readyMirror(lateClient, "accounts"), CONVERGE);
      }
      assertThat(TransferWorkload.total(m)).isEqualTo(TransferWorkload.TOTAL);
      // and the stream is live again
      p.sql("UPDATE accounts SET owner = 'after the kills' WHERE id = 1");
      TransferWorkload.awaitConverged(p, m, CONVERGE);
      assertThat(server.metrics().reconcileRepairs())
          .as("rows repaired by reconciliation")
          .isZero();
    }
  }

  /** Which rows differ between the mirror, the table and a fresh snapshot of the server's image. */
  private static String diagnose(
      Pipeline p, TableMirror<Map<String, Object>> m, TablecastServer server) {
    Map<String, Map<String, String>> table = p.tableContents("accounts", m);
    Map<String, Map<String, String>> mirror = Pipeline.mirrorContents(m);
    StringBuilder sb =
        new StringBuilder(
            "mirror at position "
                + m.position()
                + " (server at "
                + server.position()
                + ") differs from the table:");
    java.util.TreeSet<String> keys = new java.util.TreeSet<>(table.keySet());
    keys.addAll(mirror.keySet());
    for (String k : keys) {
      if (!java.util.Objects.equals(table.get(k), mirror.get(k))) {
        sb.append("\n  ")
            .append(k)
            .append(" table=")
            .append(table.get(k))
            .append(" mirror=")
            .append(mirror.get(k));
      }
    }
    try (TablecastClient fresh = clientVia("127.0.0.1:" + server.port(), "diagnose")) {
      Map<String, Map<String, String>> image =
          Pipeline.mirrorContents(p.readyMirror(fresh, "accounts"));
      sb.append("\n  a fresh snapshot of the server's image ")
          .append(
              image.equals(table)
                  ? "equals the table (the client lost it)"
                  : "differs from the table too (the server lost it)");
    }
    return sb.toString();
  }

  /** {id, current or last query} of the server's sessions, sparing the writers' sessions. */
  private static List<String[]> serverSessions(Pipeline p, String appName, Set<Long> spare)
      throws SQLException {
    List<String[]> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(p.db.kind().baseUrl())) {
      PreparedStatement ps;
      if (p.db.kind() == Kind.MYSQL) {
        // performance_schema (connection attributes) is usually off: the server's sessions are
        // those in the test's database other than the writers'.
        ps =
            c.prepareStatement(
                "SELECT ID, INFO FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()");
        ps.setString(1, p.db.schema());
      } else {
        ps =
            c.prepareStatement(
                "SELECT pid, query FROM pg_stat_activity WHERE application_name = ? AND pid <> pg_backend_pid()");
        ps.setString(1, appName);
      }
      try (ps;
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (!spare.contains(rs.getLong(1))) {
            out.add(new String[] {String.valueOf(rs.getLong(1)), rs.getString(2)});
          }
        }
      }
    }
    return out;
  }

  private static void kill(Pipeline p, long id) throws SQLException {
    try (Connection c = DriverManager.getConnection(p.db.kind().baseUrl());
        Statement s = c.createStatement()) {
      if (p.db.kind() == Kind.MYSQL) {
        s.execute("KILL " + id);
      } else {
        s.execute("SELECT pg_terminate_backend(" + id + ")");
      }
    } catch (SQLException e) {
      if (e.getErrorCode() != 1094) { // unknown thread id: it ended on its own
        throw e;
      }
    }
  }

  // ---------------------------------------------------------------- server process killed and
  // restarted

  @ParameterizedTest
  @EnumSource(Kind.class)
  void serverProcessKilledAndRestartedMidStreamKeepsClientsConverging(Kind kind) throws Exception {
    Pipeline p = Pipeline.create(kind, "killsrv", TransferWorkload.ddl(), "accounts");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    // under target/, not /tmp: the server logs are kept for a failure's reading, gone with the
    // build
    Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "tablecast-process");
    Path config = dir.resolve("tablecast.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "server_name: it-process",
            "listen: { host: 127.0.0.1, port: " + port + " }",
            "source:",
            "  jdbc_url: '" + p.db.jdbcUrl() + "'",
            "  install_triggers: true",
            "  reconcile_interval: " + Pipeline.RECONCILE_EVERY.toMillis() + "ms",
            "cached_tables: [" + p.db.table("accounts") + "]",
            ""));
    List<Path> logs = new ArrayList<>();
    ServerProcess server = null;
    String address = "127.0.0.1:" + port;
    try (p;
        TablecastClient c1 = clientVia(address, "process-1");
        TablecastClient c2 = clientVia(address, "process-2");
        TransferWorkload w = new TransferWorkload(p, SEED + 3)) {
      server = ServerProcess.start(config, port, dir, logs);
      TableMirror<Map<String, Object>> m1 = p.readyMirror(c1, "accounts");
      TableMirror<Map<String, Object>> m2 = p.readyMirror(c2, "accounts");
      w.start(3, true);
      w.awaitCommitted(100);
      server.kill();
      w.awaitCommitted(100); // written while the server is down
      server = ServerProcess.start(config, port, dir, logs);
      w.awaitCommitted(100);
      w.stop();
      TransferWorkload.awaitConverged(p, m1, CONVERGE);
      TransferWorkload.awaitConverged(p, m2, CONVERGE);
      assertThat(TransferWorkload.total(m1)).isEqualTo(TransferWorkload.TOTAL);
      assertThat(metricsText(port))
          .as("the restarted server repaired nothing by reconciliation")
          .doesNotContainPattern("tablecast_reconcile_repairs_total\\{[^}]*\\} [1-9]");
      System.out.printf(
          "FaultToleranceTest %s: server process killed and restarted, %d transactions%n",
          kind, w.committed.get());
    } catch (Throwable t) {
      for (Path log : logs) {
        System.out.println("---- " + log + " ----");
        System.out.println(Files.exists(log) ? Files.readString(log) : "(missing)");
      }
      throw t;
    } finally {
      if (server != null) {
        server.kill();
      }
    }
  }

  private static String metricsText(int port) throws Exception {
    java.net.http.HttpResponse<String> r =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  /** {@link ServeProcess} on a fixed port, started again while the port is not free yet. */
  private static final class ServerProcess {
    private final ServeProcess process;

    private ServerProcess(ServeProcess process) {
      this.process = process;
    }

    static ServerProcess start(Path config, int port, Path dir, List<Path> logs) throws Exception {
      // after a forced kill the port may need a moment before it can be bound again
      for (int attempt = 1; ; attempt++) {
        Path log = dir.resolve("server-" + (logs.size() + 1) + ".log");
        logs.add(log);
        ServeProcess process = ServeProcess.start(config, log);
        ServerProcess sp = new ServerProcess(process);
        try {
          await()
              .atMost(Duration.ofSeconds(60))
              .pollInterval(Duration.ofMillis(100))
              .until(() -> !process.isAlive() || accepts(port));
        } catch (Throwable t) {
          sp.kill();
          throw t;
        }
        if (process.isAlive()) {
          return sp;
        }
        if (attempt >= 5) {
          throw new IllegalStateException(
              "the server process exited with " + process.exitValue() + ", see " + log);
        }
        Thread.sleep(500); // pacing before the next attempt
      }
    }

    private static boolean accepts(int port) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return true;
      } catch (IOException e) {
        return false;
      }
    }

    void kill() throws InterruptedException {
      process.close();
    }
  }
}

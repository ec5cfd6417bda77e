package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A restarted capture resumes after the cursor recorded with the last batch in the stream (on
 * MySQL/MariaDB: the highest outbox id delivered and the ids below it still unresolved), so a
 * transaction that was open across the restart, holding an id below the others, is delivered once
 * when it commits, and nothing is published again; a table the capture stopped with stale is read
 * again by the next and followed again.
 */
class NatsCaptureResumeTest {
  static final Duration CONVERGE = Duration.ofSeconds(60);
  static final String DDL = "CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(40))";

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTransactionOpenAcrossACaptureRestartIsDeliveredOnceWhenItCommits(Kind kind)
      throws Exception {
    try (Pipeline p = Pipeline.create(kind, "natslate", List.of(DDL), "notes");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        Connection late = p.db.connect()) {
      StreamCapture capture = NatsScaleOutTest.capture(n, p);
      try (TablecastServer edge = NatsScaleOutTest.serve(n, p, "edge");
          TablecastClient client = NatsScaleOutTest.client("reader", "127.0.0.1:" + edge.port())) {
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "notes");
        List<String> events = new CopyOnWriteArrayList<>();
        m.addListener(e -> events.add(e.op() + " " + e.key()));

        late.setAutoCommit(false);
        try (Statement s = late.createStatement()) {
          s.execute("INSERT INTO notes VALUES (1, 'open across the restart')");
        }
        p.sql("INSERT INTO notes VALUES (2, 'committed before')");
        await().atMost(CONVERGE).until(() -> events.contains("INSERT 2"));

        capture.close();
        p.sql("INSERT INTO notes VALUES (3, 'while capture is down')");
        capture = NatsScaleOutTest.capture(n, p);
        assertThat(capture.resumed()).as("resumed after the cursor, no snapshot").isTrue();
        await().atMost(CONVERGE).until(() -> events.contains("INSERT 3"));

        late.commit();
        p.sql("INSERT INTO notes VALUES (4, 'after')");
        await().atMost(CONVERGE).until(() -> events.contains("INSERT 1") && m.size() == 4);
        p.sql("INSERT INTO notes VALUES (5, 'last')");
        await().atMost(CONVERGE).until(() -> events.contains("INSERT 5"));
        assertThat(events)
            .as("each change once, the late one included, none published again")
            .containsExactlyInAnyOrder("INSERT 1", "INSERT 2", "INSERT 3", "INSERT 4", "INSERT 5");
        assertThat(events.indexOf("INSERT 3")).isLessThan(events.indexOf("INSERT 1"));
        assertThat(edge.metrics().reconcileRepairs()).isZero();
      } finally {
        capture.close();
      }
    }
  }

  /**
   * A capture that stops while a table is stale (a read of it waits for a lock that DDL waits for:
   * on PostgreSQL the table's read again whole after an {@code ALTER TABLE}, on MySQL/MariaDB the
   * rows a transaction changed) leaves that work undone, and the next capture, which starts from
   * the catalog as it finds it, did not know of it: every server kept the table stale for as long
   * as it ran (and wrote no checkpoint), and until reconciliation came across them (off here) the
   * rows on PostgreSQL lacked the column added, and on MySQL/MariaDB the changed row was lost (the
   * last cursor lies past it). Now the servers ask the new capture to read the table again, and
   * follow it again once it has: without any write after the restart, since a resumed capture
   * publishes a group at once.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTableACaptureStoppedWithStaleIsReadAgainByTheNextAndFollowedAgain(Kind kind)
      throws Exception {
    boolean pg = kind == Kind.POSTGRESQL;
    List<String> ddl =
        List.of(
            "CREATE TABLE altered (id int PRIMARY KEY, v int)",
            "CREATE TABLE other (id int PRIMARY KEY, v int)",
            "INSERT INTO altered VALUES (1, 1)");
    try (Pipeline p = Pipeline.create(kind, "natsstale", ddl, "altered", "other");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        Connection reader = p.connect();
        Connection writer = p.connect();
        Connection locker = p.connect()) {
      SourceConfig withoutReconciliation = withoutReconciliation(p);
      StreamCapture capture =
          StreamCapture.start(withoutReconciliation, NatsScaleOutTest.nats(n, p), "first");
      try (TablecastServer edge = NatsScaleOutTest.serve(n, p, "edge");
          TablecastClient client = NatsScaleOutTest.client("c", "127.0.0.1:" + edge.port())) {
        TableMirror<Map<String, Object>> altered = p.readyMirror(client, "altered");
        TableMirror<Map<String, Object>> other = p.readyMirror(client, "other");
        if (pg) {
          p.sql("ALTER TABLE altered ADD COLUMN y int DEFAULT 3"); // found within a second
        } else {
          writer.setAutoCommit(false);
          try (Statement s = writer.createStatement()) {
            s.executeUpdate("INSERT INTO altered VALUES (2, 2)");
          }
        }
        reader.setAutoCommit(false);
        try (Statement s = reader.createStatement()) {
          s.executeQuery("SELECT * FROM altered").close();
        }
        locker.setAutoCommit(false);
        Thread queued =
            new Thread(
                () -> {
                  try (Statement s = locker.createStatement()) {
                    s.execute(
                        pg
                            ? "LOCK TABLE altered IN ACCESS EXCLUSIVE MODE"
                            : "LOCK TABLES altered WRITE"); // waits for the reader, as DDL would
                  } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                  }
                });
        queued.start();
        if (!pg) {
          await().atMost(CONVERGE).until(() -> waitsForALock(p));
          writer.commit();
        }
        p.sql("INSERT INTO other VALUES (7, 7)");
        await().atMost(CONVERGE).until(() -> other.get(7) != null);
        await("said stale").atMost(CONVERGE).until(() -> altered.staleReason() != null);

        capture.close();
        capture = StreamCapture.start(withoutReconciliation, NatsScaleOutTest.nats(n, p), "next");
        assertThat(capture.resumed()).isTrue();
        reader.commit();
        queued.join();
        if (pg) {
          locker.rollback();
        } else {
          try (Statement s = locker.createStatement()) {
            s.execute("UNLOCK TABLES");
          }
        }
        await("followed again").atMost(CONVERGE).until(() -> altered.staleReason() == null);
        p.awaitMirrorEqualsTable(altered, "altered");
        assertThat(altered.get(pg ? 1 : 2)).containsEntry(pg ? "y" : "v", pg ? 3 : 2);
        p.awaitMirrorEqualsTable(other, "other");
        assertThat(edge.metrics().reconcileRepairs()).isZero();
      } finally {
        capture.close();
      }
    }
  }

  /**
   * What changed while no capture ran and rows cannot describe: a column added with a default (no
   * row changes), a table truncated (on MySQL/MariaDB without a trigger). The next capture read the
   * catalog as it found it and resumed after the last cursor: before, the rows kept their old
   * layout and the truncated rows stayed in the mirrors, none of them stale, until reconciliation
   * came across them (off here). Now a resumed capture reads every table whole with its first poll,
   * and the clients receive the differences, nothing else.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void whatChangedWhileNoCaptureRanAndRowsCannotDescribeReachesTheMirrors(Kind kind)
      throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE altered (id int PRIMARY KEY, n int)",
            "CREATE TABLE emptied (id int PRIMARY KEY, n int)",
            "CREATE TABLE kept (id int PRIMARY KEY, n int)",
            "INSERT INTO altered VALUES (1, 1), (2, 2)",
            "INSERT INTO emptied VALUES (1, 1), (2, 2)",
            "INSERT INTO kept VALUES (1, 1), (2, 2)");
    try (Pipeline p = Pipeline.create(kind, "natsaway", ddl, "altered", "emptied", "kept");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD)) {
      SourceConfig withoutReconciliation = withoutReconciliation(p);
      StreamCapture capture =
          StreamCapture.start(withoutReconciliation, NatsScaleOutTest.nats(n, p), "first");
      try (TablecastServer edge = NatsScaleOutTest.serve(n, p, "edge");
          TablecastClient client = NatsScaleOutTest.client("c", "127.0.0.1:" + edge.port())) {
        TableMirror<Map<String, Object>> altered = p.readyMirror(client, "altered");
        TableMirror<Map<String, Object>> emptied = p.readyMirror(client, "emptied");
        TableMirror<Map<String, Object>> kept = p.readyMirror(client, "kept");
        List<String> events = new CopyOnWriteArrayList<>();
        for (TableMirror<Map<String, Object>> m : List.of(altered, emptied, kept)) {
          m.addListener(e -> events.add(m.table() + " " + e.op() + " " + e.key()));
        }

        capture.close();
        p.sql("ALTER TABLE altered ADD COLUMN c int DEFAULT 5", "TRUNCATE emptied");
        capture = StreamCapture.start(withoutReconciliation, NatsScaleOutTest.nats(n, p), "next");
        assertThat(capture.resumed()).isTrue();

        p.awaitMirrorEqualsTable(altered, "altered");
        p.awaitMirrorEqualsTable(emptied, "emptied");
        assertThat(altered.get(1)).containsEntry("c", 5);
        assertThat(emptied.size()).isZero();
        assertThat(events)
            .as("the differences, nothing of the table no one changed")
            .containsExactlyInAnyOrder(
                altered.table() + " UPDATE 1",
                altered.table() + " UPDATE 2",
                emptied.table() + " DELETE 1",
                emptied.table() + " DELETE 2");
        assertThat(altered.staleReason()).isNull();
        assertThat(edge.metrics().reconcileRepairs()).isZero();
      } finally {
        capture.close();
      }
    }
  }

  private static SourceConfig withoutReconciliation(Pipeline p) {
    SourceConfig c = p.sourceConfig();
    return new SourceConfig(
        c.jdbcUrl(),
        null,
        null,
        c.tableNames(),
        true,
        null,
        null,
        Duration.ZERO,
        Pipeline.CAPTURE_CHECK_EVERY);
  }

  /** Whether a session of the test database waits for a lock (the queued LOCK TABLES). */
  private static boolean waitsForALock(Pipeline p) throws java.sql.SQLException {
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        java.sql.ResultSet rs =
            s.executeQuery(
                "SELECT COUNT(*) FROM information_schema.processlist"
                    + " WHERE state LIKE 'Waiting for table metadata lock%' AND db = '"
                    + p.db.schema()
                    + "'")) {
      return rs.next() && rs.getInt(1) > 0;
    }
  }
}

package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
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
 * when it commits, and nothing is published again.
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
}

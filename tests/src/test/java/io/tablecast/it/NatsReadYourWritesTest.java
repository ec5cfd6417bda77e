package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.client.TablecastException;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Read-your-writes from a server that serves from the NATS stream (docs/SCALE-OUT.md): the server
 * asks the capture leader, which answers once a read of the outbox that began after the request has
 * been published; the server answers its client once it has read the stream that far. Real {@code
 * nats-server -js} processes on free ports; capture and the server in this JVM.
 */
class NatsReadYourWritesTest {
  static final int WRITES = 300;
  static final Duration SYNC_TIMEOUT = Duration.ofSeconds(30);
  static final String DDL = "CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(40))";

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aWriteCommittedBeforeSyncIsInTheEdgeServersMirrorWhenSyncReturns(Kind kind)
      throws Exception {
    try (Pipeline p = Pipeline.create(kind, "natssync", List.of(DDL), "notes");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        StreamCapture capture = NatsScaleOutTest.capture(n, p);
        TablecastServer edge = NatsScaleOutTest.serve(n, p, "edge");
        TablecastClient client = NatsScaleOutTest.client("syncing", "127.0.0.1:" + edge.port());
        Connection writer = p.db.connect();
        PreparedStatement insert = writer.prepareStatement("INSERT INTO notes VALUES (?, ?)")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "notes");
      long[] nanos = new long[WRITES];
      for (int id = 1; id <= WRITES; id++) {
        insert.setInt(1, id);
        insert.setString(2, "note " + id);
        insert.executeUpdate(); // autocommit
        long t0 = System.nanoTime();
        client.sync(SYNC_TIMEOUT);
        nanos[id - 1] = System.nanoTime() - t0;
        assertThat(m.get(id)).as("write %d read back after sync", id).isNotNull();
      }
      Arrays.sort(nanos);
      System.out.printf(
          "NatsReadYourWritesTest %s: %d writes read back after sync on an edge server;"
              + " sync p50 %.2f ms, p99 %.2f ms, max %.2f ms%n",
          kind,
          WRITES,
          nanos[WRITES / 2] / 1e6,
          nanos[WRITES * 99 / 100] / 1e6,
          nanos[WRITES - 1] / 1e6);
    }
  }

  @Test
  void withoutACaptureLeaderSyncFailsNamingWhyAndWorksAgainOnceOneLeads() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "natsnoleader", List.of(DDL), "notes");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD)) {
      StreamCapture first = NatsScaleOutTest.capture(n, p);
      try (TablecastServer edge = NatsScaleOutTest.serve(n, p, "edge");
          TablecastClient client = NatsScaleOutTest.client("syncing", "127.0.0.1:" + edge.port())) {
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "notes");
        first.close(); // no capture leads now

        assertThatThrownBy(() -> client.sync(SYNC_TIMEOUT))
            .isInstanceOf(TablecastException.class)
            .hasMessageContaining("no tablecast capture answered")
            .hasMessageContaining("tablecast.TC_" + p.db.schema() + ".sync")
            .hasMessageContaining("nats.capture_takeover");

        try (StreamCapture second = NatsScaleOutTest.capture(n, p)) {
          p.sql("INSERT INTO notes VALUES (1, 'after the takeover')");
          client.sync(SYNC_TIMEOUT);
          assertThat(m.get(1)).as("the session went on, and sync with it").isNotNull();
        }
      }
    }
  }
}

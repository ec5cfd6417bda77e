package io.tablecast.it;

import static io.tablecast.it.NatsScaleOutTest.CONVERGE;
import static io.tablecast.it.NatsScaleOutTest.MAX_PAYLOAD;
import static io.tablecast.it.NatsScaleOutTest.capture;
import static io.tablecast.it.NatsScaleOutTest.client;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Checkpoints of a stream (docs/SCALE-OUT.md, "Checkpoints and retention") against a real {@code
 * nats-server -js}: servers write their images to the stream's checkpoint bucket and trim the
 * stream to the checkpoint before; a new server starts from the checkpoint, a server cut off past
 * the trim reloads from it, and a stream whose age limit could remove a checkpoint's batches is
 * refused.
 */
class NatsCheckpointTest {
  private static final Duration OFTEN = Duration.ofMillis(500);

  private static TablecastServer serve(String natsUrl, Pipeline p, String name, Duration interval)
      throws InterruptedException {
    return TablecastServer.start(
        ServerConfig.builder()
            .set("server_name", name)
            .listen("127.0.0.1", 0)
            .set(
                "nats",
                new NatsSettings(List.of(natsUrl), stream(p), null, null, null)
                    .withCheckpointInterval(interval))
            .build());
  }

  private static String stream(Pipeline p) {
    return "TC_" + p.db.schema();
  }

  private static long firstSequence(NatsServerProcess n, String stream) throws Exception {
    try (Connection c = Nats.connect(n.url())) {
      return c.jetStreamManagement().getStreamInfo(stream).getStreamState().getFirstSequence();
    }
  }

  /** Writes one change at a time until the stream no longer holds sequence {@code sequence}. */
  private static void writeUntilTrimmedPast(NatsServerProcess n, Pipeline p, long sequence) {
    AtomicInteger balance = new AtomicInteger(100);
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(300))
        .alias("the servers' checkpoints trimmed the stream past sequence " + sequence)
        .until(
            () -> {
              p.sql("UPDATE accounts SET balance = " + balance.incrementAndGet() + " WHERE id = 5");
              return firstSequence(n, stream(p)) > sequence;
            });
  }

  @Test
  void aNewServerStartsFromTheCheckpointOfATrimmedStream() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natscp", TransferWorkload.ddl(), "accounts");
        NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD);
        StreamCapture capture = capture(n, p);
        TablecastServer writer = serve(n.url(), p, "writer", OFTEN)) {
      p.sql("UPDATE accounts SET balance = 1 WHERE id = 1");
      writeUntilTrimmedPast(n, p, 1); // the snapshot the stream began with is gone
      p.sql("INSERT INTO accounts VALUES (40, 'after the trim', 0)");

      try (TablecastServer late = serve(n.url(), p, "late", Duration.ZERO);
          TablecastClient client = client("late-reader", "127.0.0.1:" + late.port())) {
        assertThat(late.epoch()).isEqualTo(writer.epoch());
        TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
        TransferWorkload.awaitConverged(p, m, CONVERGE);
        p.sql("DELETE FROM accounts WHERE id = 4");
        TransferWorkload.awaitConverged(p, m, CONVERGE);
        assertThat(late.metrics().reconcileRepairs()).isZero();
      }
    }
  }

  @Test
  void aServerCutOffPastTheTrimReloadsFromTheCheckpoint() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natscut", TransferWorkload.ddl(), "accounts");
        NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD);
        StreamCapture capture = capture(n, p);
        TablecastServer writer = serve(n.url(), p, "writer", OFTEN);
        CuttableProxy toNats = CuttableProxy.raw("127.0.0.1", URI.create(n.url()).getPort());
        TablecastServer cutOff = serve("nats://" + toNats.address(), p, "cut-off", Duration.ZERO);
        TablecastClient client = client("reader", "127.0.0.1:" + cutOff.port())) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
      List<String> events = new CopyOnWriteArrayList<>();
      m.addListener(e -> events.add(e.op() + " " + e.key()));
      p.sql("UPDATE accounts SET balance = 1 WHERE id = 1");
      await().atMost(CONVERGE).until(() -> events.size() == 1);

      toNats.block(true);
      toNats.cut();
      long behind = cutOff.position();
      p.sql("UPDATE accounts SET balance = 2 WHERE id = 2");
      p.sql("INSERT INTO accounts VALUES (40, 'while cut off', 0)");
      p.sql("DELETE FROM accounts WHERE id = 4");
      writeUntilTrimmedPast(n, p, behind + 1);
      assertThat(events).as("nothing reached the server while it was cut off").hasSize(1);
      double resyncsBefore = cutOff.metrics().resyncs();

      toNats.block(false);
      TransferWorkload.awaitConverged(p, m, CONVERGE);
      assertThat(cutOff.metrics().resyncs())
          .as("the images were replaced by the checkpoint")
          .isGreaterThan(resyncsBefore);
      assertThat(cutOff.metrics().reconcileRepairs())
          .as("not left to capture's reconciliation to repair")
          .isZero();
      List<String> after = events.subList(1, events.size());
      assertThat(after.stream().filter(e -> !e.equals("UPDATE 5")))
          .as("the client received the rows that differ, once each")
          .containsExactlyInAnyOrder("UPDATE 2", "INSERT 40", "DELETE 4");
      assertThat(after)
          .as("row 5, updated while cut off and again after the checkpoint")
          .contains("UPDATE 5");
      p.sql("UPDATE accounts SET balance = 3 WHERE id = 3");
      TransferWorkload.awaitConverged(p, m, CONVERGE);
      assertThat(events).last().isEqualTo("UPDATE 3");
    }
  }

  /**
   * A server cut off while a table is stale, which the stream then says followed again in messages
   * trimmed before the server reads them: it reloads from the checkpoint (written once nothing was
   * stale) and follows the table again. Before, it kept the table stale for as long as it ran: only
   * the cause of its own gap was said gone.
   */
  @Test
  void aServerCutOffPastTheTrimForgetsWhatWasStaleBeforeTheCheckpoint() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "natscutstale", TransferWorkload.ddl(), "accounts");
        NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD);
        StreamCapture capture = capture(n, p);
        TablecastServer writer = serve(n.url(), p, "writer", OFTEN);
        CuttableProxy toNats = CuttableProxy.raw("127.0.0.1", URI.create(n.url()).getPort());
        TablecastServer cutOff = serve("nats://" + toNats.address(), p, "cut-off", Duration.ZERO);
        TablecastClient client = client("reader", "127.0.0.1:" + cutOff.port());
        java.sql.Connection reader = p.connect();
        java.sql.Connection locker = p.connect()) {
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
      // stale: the table is to be read again whole (a column added) and DDL waits for its lock
      p.sql("ALTER TABLE accounts ADD COLUMN tier int DEFAULT 3");
      reader.setAutoCommit(false);
      try (java.sql.Statement s = reader.createStatement()) {
        s.executeQuery("SELECT * FROM accounts").close();
      }
      locker.setAutoCommit(false);
      Thread queued =
          new Thread(
              () -> {
                try (java.sql.Statement s = locker.createStatement()) {
                  s.execute("LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE");
                } catch (java.sql.SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      queued.start();
      await("said stale").atMost(CONVERGE).until(() -> m.staleReason() != null);

      toNats.block(true);
      toNats.cut();
      long behind = cutOff.position();
      reader.commit();
      queued.join();
      locker.rollback(); // the table is read again, and followed again, while the server is away
      writeUntilTrimmedPast(n, p, behind + 1);

      toNats.block(false);
      await("followed again").atMost(CONVERGE).until(() -> m.staleReason() == null);
      p.awaitMirrorEqualsTable(m, "accounts");
      assertThat(m.get(1)).containsEntry("tier", 3);
    }
  }

  @Test
  void aStreamThatAgesOutCheckpointsIsRefused() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(MAX_PAYLOAD);
        Connection c = Nats.connect(n.url())) {
      c.jetStreamManagement()
          .addStream(
              StreamConfiguration.builder()
                  .name("TC_aging")
                  .subjects("tablecast.TC_aging")
                  .storageType(StorageType.File)
                  .maxAge(Duration.ofMinutes(1))
                  .build());
      ServerConfig config =
          ServerConfig.builder()
              .set("server_name", "aging")
              .listen("127.0.0.1", 0)
              .set(
                  "nats",
                  new NatsSettings(List.of(n.url()), "TC_aging", null, null, null)
                      .withCheckpointInterval(Duration.ofMinutes(1)))
              .build();
      assertThatThrownBy(() -> TablecastServer.start(config))
          .hasMessageContaining("TC_aging")
          .hasMessageContaining("max_age")
          .hasMessageContaining("nats.checkpoint_interval");
    }
  }
}

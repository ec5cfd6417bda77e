package io.tablecast.server;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static io.tablecast.server.hub.FakeChangeSource.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.testing.TestClient;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The whole server over real loopback sockets, with an in-memory change source. */
class TablecastServerLoopbackTest {

  private final FakeChangeSource source =
      new FakeChangeSource().withTable(table("countries"), 1500).withTable(table("products"), 3);
  private EventLoopGroup group;
  private TablecastServer server;

  @BeforeEach
  void setUp() throws Exception {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    ServerConfig config =
        ServerConfig.builder()
            .set("server_name", "loopback")
            .listen("127.0.0.1", 0)
            .set("heartbeat", Duration.ofMillis(200))
            .source(
                new SourceConfig(
                    "jdbc:postgresql://fake/app",
                    null,
                    null,
                    List.of("public.countries", "public.products"),
                    false,
                    null,
                    null))
            .build();
    server = TablecastServers.start(config, source);
  }

  @AfterEach
  void tearDown() {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private TestClient connect() throws InterruptedException {
    return TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()));
  }

  @Test
  void helloSubscribeSnapshotThenLiveBatches() throws Exception {
    try (TestClient c = connect()) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "loopback-test", null, null, null));
      Message.Welcome w = c.next(Message.Welcome.class);
      assertThat(w.epoch()).isEqualTo(server.epoch());
      assertThat(w.serverName()).isEqualTo("loopback");

      c.send(Message.Subscribe.fresh(List.of("public.countries", "public.products")));
      Message.SnapshotBegin countries = (Message.SnapshotBegin) c.nextNonHeartbeat();
      assertThat(countries.table()).isEqualTo("public.countries");
      assertThat(countries.rowCount()).isEqualTo(1500);
      assertThat(c.next(Message.SnapshotRows.class).rows()).hasSize(1000);
      assertThat(c.next(Message.SnapshotRows.class).rows()).hasSize(500);
      assertThat(c.next(Message.SnapshotEnd.class).table()).isEqualTo("public.countries");
      Message.SnapshotBegin products = c.next(Message.SnapshotBegin.class);
      assertThat(products.position()).isEqualTo(countries.position());
      assertThat(c.next(Message.SnapshotRows.class).rows()).hasSize(3);
      c.next(Message.SnapshotEnd.class);

      source.commit(
          insert("public.products", 4, "new"), update("public.countries", 1, "row1", "changed"));
      Message.ChangeBatch b = (Message.ChangeBatch) c.nextNonHeartbeat();
      assertThat(b.position()).isEqualTo(countries.position() + 1);
      assertThat(b.changes())
          .extracting(Message.Change::table)
          .containsExactly("public.products", "public.countries");
      assertThat(server.position()).isEqualTo(b.position());

      // the meters saw it: one client, two snapshots served, one batch of two changes
      io.micrometer.core.instrument.MeterRegistry meters = server.metrics().registry();
      assertThat(meters.get("tablecast.clients").gauge().value()).isEqualTo(1.0);
      assertThat(server.metrics().snapshotsServed()).isEqualTo(2.0);
      assertThat(
              meters
                  .get("tablecast.snapshot.rows")
                  .tag("table", "public.countries")
                  .counter()
                  .count())
          .isEqualTo(1500.0);
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(5))
          .until(() -> meters.get("tablecast.changes").counter().count() == 2.0);
      assertThat(meters.get("tablecast.batches").counter().count()).isEqualTo(1.0);

      c.send(new Message.Ping(7));
      assertThat(c.nextNonHeartbeat()).isEqualTo(new Message.Pong(7));
    }
  }

  /**
   * Protocol version 3 sessions get rows and keys as the image's row-form bytes, version 2 sessions
   * (still served) the same rows as maps, and both read the same values.
   */
  @Test
  void version3GetsRowsInTheRowFormAndVersion2StillGetsMaps() throws Exception {
    try (TestClient v3 = connect();
        TestClient v2 = connect()) {
      Map<TestClient, Integer> versions = Map.of(v3, 3, v2, 2);
      for (Map.Entry<TestClient, Integer> e : versions.entrySet()) {
        e.getKey().send(new Message.Hello(e.getValue(), "v" + e.getValue(), null, null, null));
        assertThat(e.getKey().next(Message.Welcome.class).protocolVersion())
            .isEqualTo(e.getValue());
        e.getKey().send(Message.Subscribe.fresh(List.of("public.products")));
        e.getKey().next(Message.SnapshotBegin.class);
      }
      ObjectNode packed = v3.next(Message.SnapshotRows.class).rows().get(0);
      ObjectNode map = v2.next(Message.SnapshotRows.class).rows().get(0);
      assertThat(packed).isInstanceOf(PackedRow.class);
      assertThat(map).isNotInstanceOf(PackedRow.class).hasToString(packed.toString());
      v3.next(Message.SnapshotEnd.class);
      v2.next(Message.SnapshotEnd.class);

      source.commit(update("public.products", 2, "row2", "changed"));
      Message.Change c3 = ((Message.ChangeBatch) v3.nextNonHeartbeat()).changes().get(0);
      Message.Change c2 = ((Message.ChangeBatch) v2.nextNonHeartbeat()).changes().get(0);
      assertThat(c3.key()).isInstanceOf(PackedKey.class);
      assertThat(c3.after()).isInstanceOf(PackedRow.class);
      assertThat(c2.key()).isNotInstanceOf(PackedKey.class);
      assertThat(c2.after()).isNotInstanceOf(PackedRow.class);
      assertThat(c2).hasToString(c3.toString());
      assertThat(c3.after().get("name").textValue()).isEqualTo("changed");
    }
  }

  @Test
  void aVersionAboveTheCurrentIsRefused() throws Exception {
    int future = Message.PROTOCOL_VERSION + 1;
    try (TestClient c = connect()) {
      c.send(new Message.Hello(future, "future", null, null, null));
      Message.Error e = c.next(Message.Error.class);
      assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED_VERSION);
      assertThat(e.message())
          .contains("versions 2 to " + Message.PROTOCOL_VERSION)
          .contains("version " + future);
    }
  }

  @Test
  void databaseOutageIsRetriedAndClientsKeepBeingServed() throws Exception {
    try (TestClient c = connect()) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "t", null, null, null));
      c.next(Message.Welcome.class);
      c.send(Message.Subscribe.fresh(List.of("public.products")));
      while (!(c.nextNonHeartbeat() instanceof Message.SnapshotEnd)) {
        // skip the snapshot
      }
      source.failNextPoll("connection refused");
      source.commit(insert("public.products", 9, "after outage"));
      c.send(new Message.Ping(3));
      List<Message> two = List.of(c.nextNonHeartbeat(), c.nextNonHeartbeat());
      assertThat(two).as("still served while the database is away").contains(new Message.Pong(3));
      Message.ChangeBatch b =
          (Message.ChangeBatch)
              two.stream().filter(m -> m instanceof Message.ChangeBatch).findFirst().orElseThrow();
      assertThat(b.changes().get(0).key().get(0).longValue()).isEqualTo(9);
    }
    await().atMost(Duration.ofSeconds(5)).until(source::drained);
  }

  /**
   * Before, any exception but a database error ended the tail loop for good ("the tail loop
   * stopped").
   */
  @Test
  void anUnexpectedErrorOfAPollIsRetriedAndChangesKeepFlowing() throws Exception {
    try (TestClient c = connect()) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "t", null, null, null));
      c.next(Message.Welcome.class);
      c.send(Message.Subscribe.fresh(List.of("public.products")));
      while (!(c.nextNonHeartbeat() instanceof Message.SnapshotEnd)) {
        // skip the snapshot
      }
      source.failNextPollUnexpectedly(
          new IllegalStateException("a row the server could not parse"));
      source.commit(insert("public.products", 9, "after the error"));
      Message.ChangeBatch b = c.next(Message.ChangeBatch.class);
      while (b.changes().isEmpty()) {
        b = c.next(Message.ChangeBatch.class);
      }
      assertThat(b.changes().get(0).key().get(0).longValue()).isEqualTo(9);
    }
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream()
          .write(
              "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
          .contains("\"status\":\"UP\"");
    }
  }

  @Test
  void idleClientGetsHeartbeats() throws Exception {
    try (TestClient c = connect()) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "idle", null, null, null));
      c.next(Message.Welcome.class);
      Message.ChangeBatch hb = c.next(Message.ChangeBatch.class);
      assertThat(hb.changes()).isEmpty();
      assertThat(hb.position()).isEqualTo(server.position());
    }
  }

  @Test
  void httpClientIsServedOnTheSamePortAndGarbageGetsA400() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream()
          .write(
              "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(reply).startsWith("HTTP/1.1 200").contains("\"status\":\"UP\"");
    }
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream().write("HELLO?\r\n".getBytes(StandardCharsets.US_ASCII));
      String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(reply).startsWith("HTTP/1.1 400").contains("Tablecast binary protocol");
    }
  }

  @Test
  void closeSendsShuttingDownToSessionsAndClosesTheSource() throws Exception {
    TestClient c = connect();
    c.send(new Message.Hello(Message.PROTOCOL_VERSION, "t", null, null, null));
    c.next(Message.Welcome.class);
    c.channel.writeAndFlush(Unpooled.EMPTY_BUFFER).sync();
    await().atMost(Duration.ofSeconds(5)).until(() -> server != null && sessionRegistered(c));
    server.close();
    Message.Error e = (Message.Error) c.nextNonHeartbeat();
    assertThat(e.code()).isEqualTo(ErrorCode.SHUTTING_DOWN);
    assertThat(source.closed).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> !c.channel.isActive());
  }

  private static boolean sessionRegistered(TestClient c) {
    // the session is registered on the hub thread right after the welcome; a ping round trip
    // through the event loop orders us after it
    c.send(new Message.Ping(1));
    try {
      return c.nextNonHeartbeat() instanceof Message.Pong;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}

package io.tablecast.server.net;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static io.tablecast.server.hub.FakeChangeSource.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.testing.TestClient;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** WebSocket sessions (JSON text frames on /ws) over loopback, next to binary ones. */
class WebSocketSessionTest {

  private final FakeChangeSource source =
      new FakeChangeSource().withTable(table("countries"), 1500).withTable(table("products"), 3);
  private EventLoopGroup group;
  private TablecastServer server;

  @BeforeEach
  void setUp() throws Exception {
    group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    server =
        TablecastServers.start(
            ServerConfig.builder()
                .set("server_name", "ws")
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
                .build(),
            source);
  }

  @AfterEach
  void tearDown() {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void helloWelcomeSubscribeSnapshotThenLiveBatchAsJson() throws Exception {
    try (TestClient c = TestClient.webSocket(group, server.port())) {
      c.sendText("{\"type\":\"hello\",\"protocolVersion\":2,\"clientName\":\"browser\"}");
      String welcome = c.nextText();
      assertThat(welcome)
          .startsWith("{\"type\":\"welcome\"")
          .contains("\"epoch\":\"" + server.epoch() + "\"")
          .contains("\"serverName\":\"ws\"");

      c.sendText(
          "{\"type\":\"subscribe\",\"tables\":[\"public.products\",\"public.nope\"],\"resumePosition\":-1}");
      Message.Error unknown = (Message.Error) MessageCodec.decodeJson(c.nextNonHeartbeatText());
      assertThat(unknown.code()).isEqualTo(ErrorCode.UNKNOWN_TABLE);
      assertThat(unknown.table()).isEqualTo("public.nope");
      String begin = c.nextNonHeartbeatText();
      assertThat(begin)
          .startsWith("{\"type\":\"snapshot_begin\"")
          .contains("\"table\":\"public.products\"")
          .contains("\"rowCount\":3");
      Message.SnapshotRows rows = (Message.SnapshotRows) MessageCodec.decodeJson(c.nextText());
      assertThat(rows.rows()).hasSize(3);
      assertThat(c.nextText()).startsWith("{\"type\":\"snapshot_end\"");

      source.commit(insert("public.products", 4, "new"));
      String batch = c.nextNonHeartbeatText();
      assertThat(batch)
          .startsWith("{\"type\":\"change_batch\"")
          .contains("\"op\":\"INSERT\"")
          .contains("\"name\":\"new\"");

      c.sendText("{\"type\":\"ping\",\"nonce\":42}");
      assertThat(c.nextNonHeartbeatText()).isEqualTo("{\"type\":\"pong\",\"nonce\":42}");
      await().atMost(Duration.ofSeconds(5)).until(() -> server.metrics().clients() == 1);
    }
  }

  @Test
  void malformedJsonGetsBadFrameErrorThenCloseFrame() throws Exception {
    try (TestClient c = TestClient.webSocket(group, server.port())) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "bad", null, null, null));
      c.nextText(); // welcome
      c.sendText("{\"type\":\"subscribe\",\"tables\":");
      Message.Error e = (Message.Error) MessageCodec.decodeJson(c.nextNonHeartbeatText());
      assertThat(e.code()).isEqualTo(ErrorCode.BAD_FRAME);
      assertThat(e.table()).isNull();
      assertThat(c.nextNonHeartbeatText()).isEqualTo("close:1007");
      await().atMost(Duration.ofSeconds(3)).until(() -> !c.channel.isActive());
    }
  }

  @Test
  void messageBeforeHelloIsAProtocolViolation() throws Exception {
    try (TestClient c = TestClient.webSocket(group, server.port())) {
      c.send(Message.Subscribe.fresh(List.of("public.products")));
      Message.Error e = (Message.Error) c.next();
      assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_VIOLATION);
      assertThat(c.nextText()).isEqualTo("close:1008");
    }
  }

  @Test
  void binaryAndWebSocketClientsGetIdenticalChanges() throws Exception {
    try (TestClient ws = TestClient.webSocket(group, server.port());
        TestClient bin = TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()))) {
      ws.send(new Message.Hello(Message.PROTOCOL_VERSION, "ws", null, null, null));
      ws.nextText();
      bin.send(new Message.Hello(Message.PROTOCOL_VERSION, "bin", null, null, null));
      bin.next(Message.Welcome.class);
      ws.send(Message.Subscribe.fresh(List.of("public.countries", "public.products")));
      bin.send(Message.Subscribe.fresh(List.of("public.countries", "public.products")));
      // both snapshots complete: begin, 2 chunks, end + begin, chunk, end
      for (int i = 0; i < 7; i++) {
        String w = ws.nextNonHeartbeatText();
        Message b = bin.nextNonHeartbeat();
        assertThat(w).isEqualTo(MessageCodec.encodeJson(b));
      }
      source.commit(
          insert("public.products", 4, "new"), update("public.countries", 1, "row1", "changed"));
      source.commit(insert("public.countries", 5000, "x"));
      for (int i = 0; i < 2; i++) {
        String w = ws.nextNonHeartbeatText();
        Message b = bin.nextNonHeartbeat();
        assertThat(b).isInstanceOf(Message.ChangeBatch.class);
        assertThat(w).isEqualTo(MessageCodec.encodeJson(b));
      }
    }
  }

  @Test
  void twoWebSocketSessionsReceiveByteIdenticalBatches() throws Exception {
    try (TestClient a = TestClient.webSocket(group, server.port());
        TestClient b = TestClient.webSocket(group, server.port())) {
      for (TestClient c : List.of(a, b)) {
        c.send(new Message.Hello(Message.PROTOCOL_VERSION, "same", null, null, null));
        c.nextText();
        c.send(Message.Subscribe.fresh(List.of("public.products")));
        for (int i = 0; i < 3; i++) {
          c.nextNonHeartbeatText();
        }
      }
      source.commit(insert("public.products", 9, "nine"));
      String fa = a.nextNonHeartbeatText();
      assertThat(fa).startsWith("{\"type\":\"change_batch\"");
      assertThat(b.nextNonHeartbeatText()).isEqualTo(fa);
    }
  }

  @Test
  void shutdownSendsShuttingDownAndGoingAway() throws Exception {
    TestClient c = TestClient.webSocket(group, server.port());
    c.send(new Message.Hello(Message.PROTOCOL_VERSION, "bye", null, null, null));
    c.nextText();
    server.close();
    Message.Error e = (Message.Error) MessageCodec.decodeJson(c.nextNonHeartbeatText());
    assertThat(e.code()).isEqualTo(ErrorCode.SHUTTING_DOWN);
    assertThat(c.nextNonHeartbeatText()).isEqualTo("close:1001");
    c.close();
  }
}

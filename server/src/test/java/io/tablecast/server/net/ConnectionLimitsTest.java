package io.tablecast.server.net;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.testing.TestClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-server limits of docs/CONFIGURATION.md, each refused or closed with its error, over
 * loopback.
 */
class ConnectionLimitsTest {

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private TablecastServer server;

  @AfterEach
  void tearDown() {
    if (server != null) {
      server.close();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private void start(ServerConfig.Builder config) throws InterruptedException {
    FakeChangeSource source =
        new FakeChangeSource()
            .withTable(table("a"), 1)
            .withTable(table("b"), 1)
            .withTable(table("c"), 1);
    server =
        TablecastServers.start(
            config
                .listen("127.0.0.1", 0)
                .source(
                    new SourceConfig(
                        "jdbc:postgresql://fake/app",
                        null,
                        null,
                        List.of("public.a", "public.b", "public.c"),
                        false,
                        null,
                        null))
                .build(),
            source);
  }

  private TestClient hello(String name) throws InterruptedException {
    TestClient c = TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()));
    c.send(new Message.Hello(Message.PROTOCOL_VERSION, name, null, null, null));
    return c;
  }

  /**
   * As {@link #hello} for a connection over the limit: the server refuses it as soon as the magic
   * tells the protocol, and may have closed it before the hello is written, so the hello's write
   * may fail; the refusal is read from what arrived.
   */
  private TestClient helloRefused(String name) throws InterruptedException {
    TestClient c = TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()));
    try {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, name, null, null, null));
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) { // thrown unchecked by Netty: the channel closed under the write
      if (!(e instanceof ClosedChannelException)) {
        throw new IllegalStateException(e);
      }
    }
    return c;
  }

  private static void awaitClosed(TestClient c) {
    await().atMost(Duration.ofSeconds(5)).until(() -> !c.channel.isActive());
  }

  @Test
  void clientThatAnswersNoPingIsClosedAfterTheIdleTimeout() throws Exception {
    start(
        ServerConfig.builder()
            .set("heartbeat", Duration.ofMillis(200))
            .set("idle_timeout", Duration.ofSeconds(1)));
    try (TestClient c = hello("silent")) {
      c.next(Message.Welcome.class);
      Message m =
          c.nextNonHeartbeat(); // heartbeats and the server's ping come, the client says nothing
      assertThat(m).isInstanceOf(Message.Error.class);
      Message.Error e = (Message.Error) m;
      assertThat(e.code()).isEqualTo(ErrorCode.LIMIT_EXCEEDED);
      assertThat(e.message()).contains("idle_timeout").contains("1000 ms");
      awaitClosed(c);
    }
    assertThat(server.metrics().limitRefusals("idle_timeout")).isEqualTo(1);
  }

  @Test
  void clientThatAnswersPingsIsNeverIdle() throws Exception {
    start(
        ServerConfig.builder()
            .set("heartbeat", Duration.ofMillis(200))
            .set("idle_timeout", Duration.ofSeconds(1)));
    try (TestClient c = hello("answering")) {
      c.next(Message.Welcome.class);
      int pings = 0;
      while (pings < 4) { // one ping per half timeout of silence: four span twice the timeout
        Message m = c.next();
        assertThat(m)
            .as("only heartbeats and pings")
            .isInstanceOfAny(Message.ChangeBatch.class, Message.Ping.class);
        if (m instanceof Message.Ping p) {
          c.send(new Message.Pong(p.nonce()));
          pings++;
        }
      }
      assertThat(c.channel.isActive()).isTrue();
    }
    assertThat(server.metrics().limitRefusals("idle_timeout")).isZero();
  }

  @Test
  void connectionBeyondMaxConnectionsIsRefusedOnEachProtocolAndAFreedSlotIsReused()
      throws Exception {
    start(ServerConfig.builder().set("max_connections", 2));
    TestClient first = hello("first");
    try (TestClient second = hello("second")) {
      first.next(Message.Welcome.class);
      second.next(Message.Welcome.class);
      try (TestClient third = helloRefused("third")) {
        Message.Error e = third.next(Message.Error.class);
        assertThat(e.code()).isEqualTo(ErrorCode.LIMIT_EXCEEDED);
        assertThat(e.message()).contains("max_connections (2)");
        awaitClosed(third);
      }
      try (Socket http = new Socket("127.0.0.1", server.port())) {
        http.getOutputStream()
            .write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        String status =
            new BufferedReader(
                    new InputStreamReader(http.getInputStream(), StandardCharsets.US_ASCII))
                .readLine();
        assertThat(status).isEqualTo("HTTP/1.1 503 Service Unavailable");
      }
      first.close();
      await()
          .atMost(Duration.ofSeconds(10))
          // until the server has freed the slot, it refuses and closes the new connection, maybe
          // before the client's hello is written
          .ignoreExceptionsInstanceOf(ClosedChannelException.class)
          .untilAsserted(
              () -> {
                try (TestClient again = hello("again")) {
                  assertThat(again.next()).isInstanceOf(Message.Welcome.class);
                }
              });
    }
    assertThat(server.metrics().limitRefusals("max_connections")).isGreaterThanOrEqualTo(2);
  }

  @Test
  void subscribingToMoreTablesThanMaxSubscriptionsPerConnectionIsRefused() throws Exception {
    start(ServerConfig.builder().set("max_subscriptions_per_connection", 2));
    try (TestClient c = hello("greedy")) {
      c.next(Message.Welcome.class);
      c.send(Message.Subscribe.fresh(List.of("public.a", "public.b")));
      for (int ends = 0; ends < 2; ) {
        if (c.nextNonHeartbeat() instanceof Message.SnapshotEnd) {
          ends++;
        }
      }
      c.send(Message.Subscribe.fresh(List.of("public.c")));
      Message.Error e = (Message.Error) c.nextNonHeartbeat();
      assertThat(e.code()).isEqualTo(ErrorCode.LIMIT_EXCEEDED);
      assertThat(e.table()).isNull();
      assertThat(e.message()).contains("max_subscriptions_per_connection is 2");
      awaitClosed(c);
    }
    assertThat(server.metrics().limitRefusals("max_subscriptions_per_connection")).isEqualTo(1);
  }
}

package io.tablecast.server;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.testing.TestClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server's port while it starts: bound before its images load, {@code GET /health} answers 503
 * STARTING with what the start does, a binary client is told the server is starting (and
 * reconnects), and once started the same port serves as always.
 */
class StartingServerTest {
  private final CountDownLatch gate = new CountDownLatch(1);
  private final FakeChangeSource source =
      new FakeChangeSource()
          .withTable(table("countries"), 300)
          .withTable(table("products"), 3)
          .holdSnapshotAfter("public.countries", gate);
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final HttpClient http = HttpClient.newHttpClient();
  private TablecastServer server;

  @AfterEach
  void tearDown() {
    gate.countDown();
    if (server != null) {
      server.close();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static ServerConfig config(int port) {
    return ServerConfig.builder()
        .set("server_name", "slow-start")
        .listen("127.0.0.1", port)
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
  }

  @Test
  void aPortInUseFailsTheStartAtOnceNamingTheAddressAndTheSetting() throws Exception {
    gate.countDown();
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      assertThatThrownBy(() -> TablecastServers.start(config(taken.getLocalPort()), source))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": ")
          .hasMessageContaining("change listen.host or listen.port");
    }
  }

  /**
   * The port passes from "starting" to serving without a moment unbound: before, it was closed and
   * bound again, and a socket that took it in between (an outgoing connection given it as its local
   * port, on a busy machine) failed the start with "Address already in use". A thief that tries to
   * bind the port over and over from the moment the server holds it never gets it, and a client
   * that connects over and over is never refused.
   */
  @Test
  void thePortIsNeverFreeBetweenStartingAndServing() throws Exception {
    int port = freePort();
    CompletableFuture<TablecastServer> started =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return TablecastServers.start(config(port), source);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions() // connection refused until the port is bound
        .until(() -> get(port, "/health").statusCode() == 503);
    AtomicInteger taken = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    AtomicInteger tries = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    Thread thief =
        new Thread(
            () -> {
              while (!stop.get()) {
                tries.incrementAndGet();
                try (ServerSocket s = new ServerSocket()) {
                  s.bind(new InetSocketAddress("127.0.0.1", port));
                  taken.incrementAndGet();
                } catch (IOException e) {
                  // in use: as it must be
                }
              }
            });
    Thread client =
        new Thread(
            () -> {
              while (!stop.get()) {
                try (Socket s = new Socket()) {
                  s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
                } catch (IOException e) {
                  refused.incrementAndGet();
                }
              }
            });
    thief.start();
    client.start();
    Thread.sleep(100);
    gate.countDown();
    try {
      server = started.get(10, TimeUnit.SECONDS);
      Thread.sleep(100);
    } finally {
      stop.set(true);
      thief.join();
      client.join();
    }
    assertThat(tries.get()).isGreaterThan(10);
    assertThat(taken.get()).as("times another socket bound the port").isZero();
    assertThat(refused.get()).as("connections refused").isZero();
    assertThat(get(port, "/health").statusCode()).isEqualTo(200);
  }

  @Test
  void healthSaysStartingWithTheSnapshotsProgressAndClientsAreToldToComeBack() throws Exception {
    int port = freePort();
    ServerConfig config = config(port);
    CompletableFuture<TablecastServer> started =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return TablecastServers.start(config, source);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });

    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions() // connection refused until the port is bound
        // the port is bound before the snapshot begins: its progress shows once rows are read
        .until(() -> get(port, "/health").body().contains("snapshot: 300 rows"));
    HttpResponse<String> health = get(port, "/health");
    assertThat(health.statusCode()).isEqualTo(503);
    assertThat(health.body())
        .contains("\"status\":\"STARTING\"")
        .contains("loading the images, snapshot: 300 rows")
        .as("names no table: anyone may ask")
        .doesNotContain("countries");
    assertThat(health.headers().firstValue("retry-after")).contains("1");
    assertThat(get(port, "/metrics").body())
        .as("any other request is told the same")
        .startsWith("server slow-start is starting: loading the images");

    try (TestClient c = TestClient.tcp(group, new InetSocketAddress("127.0.0.1", port))) {
      Message.Error e = c.next(Message.Error.class);
      assertThat(e.code()).isEqualTo(ErrorCode.SHUTTING_DOWN);
      assertThat(e.message())
          .startsWith("server slow-start is starting: loading the images, snapshot: 300 rows")
          .endsWith("; reconnect later or to another server")
          .doesNotContain("countries");
    }
    assertThat(started).isNotDone();

    gate.countDown();
    server = started.get(10, TimeUnit.SECONDS);
    assertThat(server.port()).isEqualTo(port);
    assertThat(get(port, "/health").statusCode()).isEqualTo(200);
    try (TestClient c = TestClient.tcp(group, new InetSocketAddress("127.0.0.1", port))) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "after-start", null, null, null));
      assertThat(c.next(Message.Welcome.class).serverName()).isEqualTo("slow-start");
    }
  }
}

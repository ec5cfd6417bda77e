package io.tablecast.server;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.config.WriteBufferSettings;
import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.testing.TestClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Snapshots and resume replays are written only as fast as their client reads: a client that stalls
 * costs no thread and delays no one else, and a long replay is paced instead of cutting its client
 * off as a slow consumer.
 */
class CatchUpPacingTest {

  private static final String PRODUCTS = "public.products";
  private static final String KILOBYTE = "x".repeat(1000);

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final List<Socket> sockets = new ArrayList<>();
  private TablecastServer server;

  @AfterEach
  void tearDown() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    if (server != null) {
      server.close();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private TablecastServer start(FakeChangeSource source, ServerConfig.Builder config)
      throws InterruptedException {
    server =
        TablecastServers.start(
            config
                .listen("127.0.0.1", 0)
                .set("write_buffer", new WriteBufferSettings(64 << 10, 256 << 10))
                .source(
                    new SourceConfig(
                        "jdbc:postgresql://fake/app",
                        null,
                        null,
                        List.of(PRODUCTS),
                        false,
                        null,
                        null))
                .build(),
            source);
    return server;
  }

  private List<ChangeHub.SessionState> stalled() {
    return server.hub().sessionStates().stream()
        .filter(s -> s.clientName().startsWith("stalled"))
        .toList();
  }

  @Test
  void clientsThatStopReadingTheirSnapshotDoNotDelayAnotherClientsSnapshot() throws Exception {
    // 20 MB of rows: far more than the socket buffers of a client that does not read
    start(
        new FakeChangeSource().withTable(table("products"), 20_000, i -> i + KILOBYTE),
        ServerConfig.builder());
    int stalled = 3; // more than the snapshot threads
    for (int i = 0; i < stalled; i++) {
      sockets.add(
          TestClient.stalled(
              new InetSocketAddress("127.0.0.1", server.port()), "stalled-" + i, PRODUCTS));
    }
    // every snapshot thread has a stalled client's snapshot to write (or had: they no longer wait)
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> stalled().stream().filter(s -> !s.writable()).count() >= 2);

    try (TestClient healthy =
        TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()))) {
      healthy.send(new Message.Hello(Message.PROTOCOL_VERSION, "healthy", null, null, null));
      healthy.send(Message.Subscribe.fresh(List.of(PRODUCTS)));
      healthy.next(Message.Welcome.class);
      // a deadline, not a performance figure: a stalled client used to hold a snapshot thread for
      // 60 s
      assertTimeoutPreemptively(
          Duration.ofSeconds(20),
          () -> {
            Message.SnapshotBegin begin = (Message.SnapshotBegin) healthy.nextNonHeartbeat();
            long rows = 0;
            Message m;
            while (!((m = healthy.nextNonHeartbeat()) instanceof Message.SnapshotEnd)) {
              rows += ((Message.SnapshotRows) m).rows().size();
            }
            assertThat(rows).isEqualTo(begin.rowCount()).isEqualTo(20_000);
          });
    }
    // what the server holds for each stalled client is bounded by its write buffer, not the table
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> stalled().stream().noneMatch(ChangeHub.SessionState::writable));
    assertThat(stalled())
        .hasSize(stalled)
        .allSatisfy(
            s -> {
              assertThat(s.catchingUp()).isTrue();
              assertThat(s.pendingBytes())
                  .isLessThan(ServerConfig.DEFAULTS.slowConsumer().maxPendingBytes());
              assertThat(s.pendingBytes())
                  .isLessThan((256 << 10) + (2 << 20)); // high water mark + a turn's frames
            });
  }

  private double slowConsumersClosed() {
    return server.metrics().registry().find("tablecast.slow.consumers").counter().count();
  }

  @Test
  void snapshotNotReadWithinTheSnapshotTimeoutDropsTheClient() throws Exception {
    start(
        new FakeChangeSource().withTable(table("products"), 20_000, i -> i + KILOBYTE),
        ServerConfig.builder().set("slow_consumer.snapshot_timeout", Duration.ofSeconds(1)));
    Socket s =
        TestClient.stalled(new InetSocketAddress("127.0.0.1", server.port()), "stalled", PRODUCTS);
    sockets.add(s);
    // dropped: counted and gone (no session at all is also what the hub has before the stalled
    // client's subscribe is handled, so that alone proves nothing)
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> slowConsumersClosed() >= 1 && server.hub().sessionCount() == 0);
    assertThat(slowConsumersClosed()).isEqualTo(1);
    // the client gets what was queued, then the end of the stream
    s.setSoTimeout(10_000);
    byte[] buf = new byte[1 << 16];
    while (s.getInputStream().read(buf) >= 0) {
      // drain
    }
  }

  @Test
  void longResumeReplayIsPacedInsteadOfCuttingTheClientOff() throws Exception {
    FakeChangeSource source = new FakeChangeSource().withTable(table("products"), 1);
    start(source, ServerConfig.builder().set("slow_consumer.max_pending_bytes", 1 << 20));
    String epoch;
    long resumeAt;
    try (TestClient first =
        TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()))) {
      first.send(new Message.Hello(Message.PROTOCOL_VERSION, "first", null, null, null));
      first.send(Message.Subscribe.fresh(List.of(PRODUCTS)));
      epoch = first.next(Message.Welcome.class).epoch();
      while (!(first.nextNonHeartbeat() instanceof Message.SnapshotEnd)) {
        // skip the snapshot
      }
      resumeAt = server.position();
    }
    // the server must have seen the first session go, or the changes below pile up for it and it,
    // not the resuming one, is dropped as a slow consumer
    await().atMost(Duration.ofSeconds(10)).until(() -> server.metrics().clients() == 0);
    // while it was away: 12 MB of changes, far more than its socket buffers and what may be pending
    int batches = 3000;
    String big = "y".repeat(4000);
    for (int i = 0; i < batches; i++) {
      source.commit(insert(PRODUCTS, 100 + i, big));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> server.position() == resumeAt + batches);

    // a small fixed receive buffer: the client reads as fast as it can, but the server's writes
    // outrun it
    try (TestClient back =
        TestClient.connect(
            new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.SO_RCVBUF, 4096),
            new InetSocketAddress("127.0.0.1", server.port()))) {
      back.channel.writeAndFlush(Unpooled.wrappedBuffer(MessageCodec.MAGIC));
      back.send(new Message.Hello(Message.PROTOCOL_VERSION, "back", null, null, null));
      back.send(new Message.Subscribe(List.of(PRODUCTS), epoch, resumeAt));
      back.next(Message.Welcome.class);
      assertThat(back.nextNonHeartbeat()).isInstanceOf(Message.Resumed.class);
      long expected = resumeAt + 1;
      while (expected <= resumeAt + batches) {
        Message m = back.nextNonHeartbeat();
        assertThat(m).as("replayed batch %d", expected).isInstanceOf(Message.ChangeBatch.class);
        assertThat(((Message.ChangeBatch) m).position()).isEqualTo(expected);
        expected++;
      }
      assertThat(back.channel.isActive()).isTrue();
    }
    assertThat(server.metrics().registry().find("tablecast.slow.consumers").counter().count())
        .isZero();
  }
}

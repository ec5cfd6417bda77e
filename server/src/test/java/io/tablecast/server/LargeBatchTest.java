package io.tablecast.server;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.TestClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A transaction of any size reaches every client: a batch too large for one frame travels in {@code
 * change_part}s, written at each client's own pace, so a bulk UPDATE far larger than {@code
 * slow_consumer.max_pending_bytes} is never taken for a slow client (it used to cut every client
 * off, which then resumed before the batch and was cut off again, for ever).
 */
class LargeBatchTest {

  private static final String PRODUCTS = "public.products";
  private static final String OTHER = "public.other";
  private static final String KILOBYTE = "x".repeat(1000);

  /** 30,000 rows of 1 KB: about 30 MB, thirty times max_pending_bytes below. */
  private static final int ROWS = 30_000;

  private static final long MAX_PENDING = 1 << 20;

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final List<Socket> sockets = new ArrayList<>();
  private final FakeChangeSource source =
      new FakeChangeSource().withTable(table("products"), 1).withTable(table("other"), 1);
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

  private void start(ServerConfig.Builder config) throws InterruptedException {
    server =
        TablecastServers.start(
            config
                .listen("127.0.0.1", 0)
                .set("write_buffer", new WriteBufferSettings(64 << 10, 256 << 10))
                .set("slow_consumer.max_pending_bytes", MAX_PENDING)
                .source(
                    new SourceConfig(
                        "jdbc:postgresql://fake/app",
                        null,
                        null,
                        List.of(PRODUCTS, OTHER),
                        false,
                        null,
                        null))
                .build(),
            source);
  }

  /** One transaction that writes 30,000 rows of 1 KB to {@code table}: one batch of about 30 MB. */
  private void bulkInsert(String table) {
    RowEvent[] events = new RowEvent[ROWS];
    for (int i = 0; i < ROWS; i++) {
      events[i] = insert(table, 100 + i, i + KILOBYTE);
    }
    source.commit(events);
  }

  /**
   * A client with a small receive buffer: it reads as fast as it can, and the server outruns it.
   */
  private TestClient slowReader(String name) throws InterruptedException {
    TestClient c =
        TestClient.connect(
            new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.SO_RCVBUF, 4096),
            new InetSocketAddress("127.0.0.1", server.port()));
    c.channel.writeAndFlush(Unpooled.wrappedBuffer(MessageCodec.MAGIC));
    c.send(new Message.Hello(Message.PROTOCOL_VERSION, name, null, null, null));
    return c;
  }

  private static void skipSnapshots(TestClient c, int tables) throws InterruptedException {
    for (int ended = 0; ended < tables; ) {
      if (c.nextNonHeartbeat() instanceof Message.SnapshotEnd) {
        ended++;
      }
    }
  }

  /** Reads one whole batch (its parts, then its final change_batch) and returns its changes. */
  private static List<Message.Change> readBatch(TestClient c, long position)
      throws InterruptedException {
    List<Message.Change> changes = new ArrayList<>();
    int parts = 0;
    while (true) {
      Message m = c.nextNonHeartbeat();
      if (m instanceof Message.ChangePart p) {
        assertThat(p.position()).as("every part carries its batch's position").isEqualTo(position);
        changes.addAll(p.changes());
        parts++;
      } else {
        assertThat(m).isInstanceOf(Message.ChangeBatch.class);
        assertThat(((Message.ChangeBatch) m).position()).isEqualTo(position);
        changes.addAll(((Message.ChangeBatch) m).changes());
        assertThat(parts).as("a 30 MB batch comes in parts").isGreaterThan(10);
        return changes;
      }
    }
  }

  @Test
  void aTransactionFarLargerThanMaxPendingBytesReachesAReadingClientWholeThenTheNextOne()
      throws Exception {
    start(ServerConfig.builder());
    try (TestClient c = slowReader("bulk")) {
      c.send(Message.Subscribe.fresh(List.of(PRODUCTS, OTHER)));
      c.next(Message.Welcome.class);
      skipSnapshots(c, 2);
      long before = server.position();
      bulkInsert(PRODUCTS);
      source.commit(insert(OTHER, 2, "after the bulk update"));

      List<Message.Change> changes = readBatch(c, before + 1);
      assertThat(changes).hasSize(ROWS);
      Set<Long> keys = new HashSet<>();
      changes.forEach(ch -> keys.add(ch.key().get(0).longValue()));
      assertThat(keys).as("every row once").hasSize(ROWS);
      assertThat(changes)
          .allSatisfy(ch -> assertThat(ch.after().get("name").textValue()).endsWith(KILOBYTE));
      Message.ChangeBatch next = batch(c.nextNonHeartbeat());
      assertThat(next.position()).isEqualTo(before + 2);
      assertThat(next.changes())
          .singleElement()
          .satisfies(ch -> assertThat(ch.table()).isEqualTo(OTHER));
      assertThat(c.channel.isActive()).isTrue();
    }
    assertThat(server.metrics().registry().find("tablecast.slow.consumers").counter().count())
        .isZero();
  }

  /**
   * One row larger than max_pending_bytes is one frame: it must leave for the socket before the
   * batches behind it are counted against the limit (it used to cut the client off after it).
   */
  @Test
  void aSingleRowLargerThanMaxPendingBytesReachesTheClientThenTheNextBatch() throws Exception {
    start(ServerConfig.builder());
    try (TestClient c = slowReader("huge-row")) {
      c.send(Message.Subscribe.fresh(List.of(PRODUCTS, OTHER)));
      c.next(Message.Welcome.class);
      skipSnapshots(c, 2);
      long before = server.position();
      String eightMegabytes = "z".repeat(8 << 20);
      source.commit(insert(PRODUCTS, 2, eightMegabytes));
      source.commit(insert(OTHER, 2, "after the huge row"));
      Message.ChangeBatch huge = batch(c.nextNonHeartbeat());
      assertThat(huge.position()).isEqualTo(before + 1);
      assertThat(huge.changes())
          .singleElement()
          .satisfies(
              ch -> assertThat(ch.after().get("name").textValue()).isEqualTo(eightMegabytes));
      Message.ChangeBatch next = batch(c.nextNonHeartbeat());
      assertThat(next.position()).isEqualTo(before + 2);
      assertThat(c.channel.isActive()).isTrue();
    }
    assertThat(server.metrics().registry().find("tablecast.slow.consumers").counter().count())
        .isZero();
  }

  @Test
  void aClientThatDoesNotReadTheBatchCostsOnlyItsWriteBufferAndOtherTablesKeepFlowing()
      throws Exception {
    start(ServerConfig.builder());
    sockets.add(
        TestClient.stalled(new InetSocketAddress("127.0.0.1", server.port()), "stalled", PRODUCTS));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> stalled().size() == 1 && !stalled().get(0).catchingUp());
    try (TestClient other = slowReader("other")) {
      other.send(Message.Subscribe.fresh(List.of(OTHER)));
      other.next(Message.Welcome.class);
      skipSnapshots(other, 1);
      bulkInsert(PRODUCTS);
      source.commit(insert(OTHER, 2, "during the bulk update"));
      Message.ChangeBatch b = (Message.ChangeBatch) other.nextNonHeartbeat();
      assertThat(b.changes())
          .singleElement()
          .satisfies(ch -> assertThat(ch.table()).isEqualTo(OTHER));
    }
    // the stalled client's batch waits at its pace: the server holds its write buffer, not 30 MB
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> stalled().stream().anyMatch(s -> s.catchingUp() && !s.writable()));
    assertThat(stalled())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.pendingBytes()).isLessThan(MAX_PENDING);
              assertThat(s.pendingBytes())
                  .isLessThan((256 << 10) + (8L << 20)); // high water mark + a turn's parts
            });
    assertThat(server.metrics().registry().find("tablecast.slow.consumers").counter().count())
        .isZero();
  }

  @Test
  void aLargeBatchNotReadWithinTheSnapshotTimeoutDropsTheClient() throws Exception {
    start(ServerConfig.builder().set("slow_consumer.snapshot_timeout", Duration.ofSeconds(1)));
    sockets.add(
        TestClient.stalled(new InetSocketAddress("127.0.0.1", server.port()), "stalled", OTHER));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> stalled().size() == 1 && !stalled().get(0).catchingUp());
    bulkInsert(OTHER);
    await().atMost(Duration.ofSeconds(20)).until(() -> server.hub().sessionCount() == 0);
    assertThat(server.metrics().registry().find("tablecast.slow.consumers").counter().count())
        .isEqualTo(1);
  }

  @Test
  void aResumeReplaysALargeBatchInPartsToo() throws Exception {
    start(ServerConfig.builder());
    String epoch;
    long resumeAt;
    try (TestClient first = slowReader("first")) {
      first.send(Message.Subscribe.fresh(List.of(PRODUCTS)));
      epoch = first.next(Message.Welcome.class).epoch();
      skipSnapshots(first, 1);
      resumeAt = server.position();
    }
    bulkInsert(PRODUCTS);
    await().atMost(Duration.ofSeconds(30)).until(() -> server.position() == resumeAt + 1);
    try (TestClient back = slowReader("back")) {
      back.send(new Message.Subscribe(List.of(PRODUCTS), epoch, resumeAt));
      back.next(Message.Welcome.class);
      assertThat(back.nextNonHeartbeat()).isInstanceOf(Message.Resumed.class);
      assertThat(readBatch(back, resumeAt + 1)).hasSize(ROWS);
    }
    assertThat(server.metrics().registry().find("tablecast.slow.consumers").counter().count())
        .isZero();
  }

  /** The message as a batch; an error or anything else fails the test with its text. */
  private static Message.ChangeBatch batch(Message m) {
    assertThat(m).isInstanceOf(Message.ChangeBatch.class);
    return (Message.ChangeBatch) m;
  }

  private List<ChangeHub.SessionState> stalled() {
    return server.hub().sessionStates().stream()
        .filter(s -> s.clientName().equals("stalled"))
        .toList();
  }
}

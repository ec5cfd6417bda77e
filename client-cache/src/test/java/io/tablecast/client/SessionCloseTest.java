package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import io.tablecast.client.internal.ClientConfig;
import io.tablecast.client.internal.FetchHandler;
import io.tablecast.client.internal.HeapRoom;
import io.tablecast.client.internal.ServerSession;
import io.tablecast.client.internal.SessionEvents;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Closing a session ends its connection the way any other end does: the channel closes, the server
 * sees it go, and the session's events hear "client closed" once, whatever the event loop is doing
 * when the close comes.
 */
class SessionCloseTest {
  static final Duration WAIT = Duration.ofSeconds(5);

  /**
   * How long a fetch handler keeps the event loop busy: shorter than the close's wait for the
   * connection to close, so that a close which waits for it is not cut short.
   */
  static final Duration BUSY = Duration.ofMillis(500);

  /** Writes down the connection events, one line per call. */
  static final class Heard implements SessionEvents {
    final List<String> lines = new CopyOnWriteArrayList<>();

    @Override
    public void connected(String server) {
      lines.add("connected " + server);
    }

    @Override
    public void connectFailed(String server, String reason) {
      lines.add("connectFailed " + server + ": " + reason);
    }

    @Override
    public void disconnected(String server, String reason) {
      lines.add("disconnected " + server + ": " + reason);
    }

    @Override
    public void resumed(List<String> tables, long position) {}

    @Override
    public void snapshotCutShort(String table) {}

    @Override
    public void resnapshotted(String table, int inserted, int updated, int deleted) {}

    @Override
    public void serverError(ErrorCode code, String message, String table) {}
  }

  /**
   * Told on the event loop that its fetch failed, it keeps the loop busy in that task until the
   * loop is shutting down (or {@link #BUSY} passed): a loop that began running its tasks before the
   * shutdown was asked for.
   */
  static final class BusyFetch implements FetchHandler {
    final List<String> failures = new CopyOnWriteArrayList<>();

    @Override
    public void answered(List<ObjectNode> rows) {
      failures.add("answered " + rows);
    }

    @Override
    public void failed(String why) {
      failures.add(why);
      EventExecutor loop = ThreadExecutorMap.currentExecutor(); // Netty's: the loop running here
      try {
        await().atMost(BUSY).pollInterval(Duration.ofMillis(1)).until(loop::isShuttingDown);
      } catch (ConditionTimeoutException e) {
        // the loop was not shut down meanwhile: the close waits for the connection to close first
      }
    }
  }

  private static ClientConfig config(FakeServer server) {
    String[] hostPort = server.address().split(":");
    return new ClientConfig(
        List.of(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]))),
        "close-test",
        null,
        null,
        null,
        Duration.ofSeconds(5),
        Duration.ofMillis(1),
        Duration.ofMillis(20),
        1 << 20,
        null,
        HeapRoom.runtime(),
        10);
  }

  @Test
  void aCloseThatFindsTheEventLoopBusyStillClosesTheConnectionAndSaysClientClosedOnce()
      throws Exception {
    Heard heard = new Heard();
    BusyFetch fetch = new BusyFetch();
    try (FakeServer server = new FakeServer()) {
      String s = server.address();
      ServerSession session = new ServerSession(config(server), heard);
      session.start();
      FakeServer.Conn conn = server.handshake(0); // speaks protocol version 1: no fetch
      await().atMost(WAIT).until(() -> heard.lines.contains("connected " + s));
      // the fetch fails at once, in a task on the event loop, which it keeps busy meanwhile
      session.fetch("shop.items", List.of(1L), fetch);
      await().atMost(WAIT).until(() -> !fetch.failures.isEmpty());

      // the loop is past the point where a shutdown makes Netty 4.2 close its channels
      session.close();

      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(heard.lines)
                      .containsExactly("connected " + s, "disconnected " + s + ": client closed"));
      assertThat(conn.channel.closeFuture().await(WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .as("the server sees the connection closed")
          .isTrue();
      assertThat(fetch.failures).hasSize(1);
      session.close(); // idempotent: says nothing more
      assertThat(heard.lines).hasSize(2);
    }
  }

  @Test
  void aCloseAfterTheServerEndedTheConnectionSaysNothingMore() throws Exception {
    Heard heard = new Heard();
    try (FakeServer server = new FakeServer()) {
      String s = server.address();
      ServerSession session = new ServerSession(config(server), heard);
      session.start();
      server.handshake(0).channel.close();
      FakeServer.Conn retry = server.accept(); // the next connection, not welcomed
      retry.expect(Message.Hello.class);

      session.close();

      assertThat(retry.channel.closeFuture().await(WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .as("the server sees the connection closed")
          .isTrue();
      assertThat(heard.lines)
          .as("a connection never welcomed ends without a word")
          .containsExactly("connected " + s, "disconnected " + s + ": connection closed");
    }
  }
}

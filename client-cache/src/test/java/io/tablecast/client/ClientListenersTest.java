package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A client's {@link ConnectionListener}s hear how its connection goes (connected, disconnected and
 * why, resumed, re-snapshotted) and its {@link ErrorListener}s what the server refused and which
 * rows could not be mapped; a listener that throws does not break the client.
 */
class ClientListenersTest {
  static final String T = "shop.items";
  static final Duration WAIT = Duration.ofSeconds(10);

  /** The application's row type. */
  public record Item(long id, Integer qty) {}

  /** Writes down what it hears, one line per call. */
  static final class Recorder implements ConnectionListener, ErrorListener {
    final List<String> heard = new CopyOnWriteArrayList<>();
    final List<RuntimeException> causes = new CopyOnWriteArrayList<>();

    @Override
    public void connected(String server) {
      heard.add("connected " + server);
    }

    @Override
    public void connectFailed(String server, String reason) {
      heard.add("connectFailed " + server + ": " + reason);
    }

    @Override
    public void disconnected(String server, String reason) {
      heard.add("disconnected " + server + ": " + reason);
    }

    @Override
    public void resumed(List<String> tables, long position) {
      heard.add("resumed " + tables + " at " + position);
    }

    @Override
    public void resnapshotted(String table, int inserted, int updated, int deleted) {
      heard.add(
          "resnapshotted "
              + table
              + ": "
              + inserted
              + " inserted, "
              + updated
              + " updated, "
              + deleted
              + " deleted");
    }

    @Override
    public void rowNotMapped(String table, Object key, Class<?> rowType, RuntimeException cause) {
      heard.add("rowNotMapped " + table + " key " + key + " to " + rowType.getSimpleName());
      causes.add(cause);
    }

    @Override
    public void serverError(ServerError code, String message, String table) {
      heard.add("serverError " + code + " " + message + (table == null ? "" : " for " + table));
    }
  }

  private static TablecastClient.Builder builder(FakeServer server) {
    return TablecastClient.builder()
        .servers(server.address())
        .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20));
  }

  private static void awaitHeard(Recorder r, int n) {
    await().atMost(WAIT).until(() -> r.heard.size() >= n);
  }

  @Test
  void aConnectionListenerHearsConnectDisconnectResumeAndResnapshot() throws Exception {
    Recorder r = new Recorder();
    String s;
    try (FakeServer server = new FakeServer();
        TablecastClient client = builder(server).connectionListener(r).build()) {
      s = server.address();
      TableMirror<?> m = client.mirror(T);
      FakeServer.Conn conn = server.handshake(10);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 10, row("id", 1, "v", "a"), row("id", 2, "v", "b"));
      assertThat(m.awaitReady(WAIT)).isTrue();
      awaitHeard(r, 1);
      assertThat(r.heard).containsExactly("connected " + s);

      conn.close();
      FakeServer.Conn again = server.handshake(10);
      again.expect(Message.Subscribe.class);
      again.send(new Message.Resumed(List.of(T), List.of(), 10));
      awaitHeard(r, 4);

      again.close(); // a restarted server: the table cannot resume, it is snapshotted again
      FakeServer.Conn third = server.handshake("epoch-2", 50, 10_000);
      third.expect(Message.Subscribe.class);
      third.snapshot(
          T,
          List.of("id"),
          50,
          row("id", 1, "v", "a"),
          row("id", 2, "v", "changed"),
          row("id", 3, "v", "new"));
      awaitHeard(r, 7);
      assertThat(r.heard)
          .containsExactly(
              "connected " + s,
              "disconnected " + s + ": connection closed",
              "connected " + s,
              "resumed [" + T + "] at 10",
              "disconnected " + s + ": connection closed",
              "connected " + s,
              "resnapshotted " + T + ": 1 inserted, 1 updated, 0 deleted");
    }
    awaitHeard(r, 8);
    assertThat(r.heard.get(7)).isEqualTo("disconnected " + s + ": client closed");
  }

  @Test
  void aDisconnectSaysWhyAndTheServersErrorsReachTheErrorListener() throws Exception {
    Recorder r = new Recorder();
    try (FakeServer server = new FakeServer();
        TablecastClient client = builder(server).connectionListener(r).build()) {
      client.addErrorListener(r);
      TableMirror<?> refused = client.mirror("shop.nope");
      FakeServer.Conn conn = server.handshake(1);
      conn.expect(Message.Subscribe.class);
      conn.send(
          new Message.Error(ErrorCode.UNKNOWN_TABLE, "table shop.nope is not cached", "shop.nope"));
      assertThatThrownBy(() -> refused.awaitReady(WAIT)).isInstanceOf(TablecastException.class);
      conn.send(Message.Error.fatal(ErrorCode.SLOW_CONSUMER, "1000 batches behind"));
      awaitHeard(r, 4);
      String s = server.address();
      assertThat(r.heard)
          .containsExactly(
              "connected " + s,
              "serverError UNKNOWN_TABLE table shop.nope is not cached for shop.nope",
              "serverError SLOW_CONSUMER 1000 batches behind",
              "disconnected " + s + ": the server reported SLOW_CONSUMER: 1000 batches behind");

      FakeServer.Conn retry = server.accept();
      retry.expect(Message.Hello.class);
      retry.send(
          Message.Error.fatal(ErrorCode.AUTHENTICATION_FAILED, "wrong password for user app"));
      awaitHeard(r, 6);
      assertThat(r.heard.subList(4, 6))
          .containsExactly(
              "serverError AUTHENTICATION_FAILED wrong password for user app",
              "connectFailed "
                  + s
                  + ": the server reported AUTHENTICATION_FAILED: wrong password for user app");
    }
  }

  @Test
  void anAttemptThatFailsBeforeTheWelcomeSaysWhy() throws Exception {
    int closedPort;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
      closedPort = probe.getLocalPort(); // nothing listens there once closed
    }
    String refused = "127.0.0.1:" + closedPort;
    String unknown = "no-such-host.invalid:7070";
    Recorder r = new Recorder();
    try (FakeServer server = new FakeServer()) {
      String s = server.address();
      try (TablecastClient client =
          TablecastClient.builder()
              .servers(refused, unknown, s)
              .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
              .connectionListener(r)
              .build()) {
        client.mirror(T);
        FakeServer.Conn conn = server.accept(); // the third server, after the first two failed
        conn.expect(Message.Hello.class);
        conn.close(); // not a Tablecast server's answer
        awaitHeard(r, 3);
        assertThat(r.heard.subList(0, 3))
            .containsExactly(
                "connectFailed " + refused + ": Connection refused",
                "connectFailed " + unknown + ": unknown host",
                "connectFailed "
                    + s
                    + ": the connection closed before the server's welcome (is it the port of a"
                    + " Tablecast server?)");
      }
    }
  }

  @Test
  void anUnmappableRowIsToldToTheErrorListenerAndKeepsItsStaleReason() throws Exception {
    Recorder r = new Recorder();
    try (FakeServer server = new FakeServer();
        TablecastClient client = builder(server).errorListener(r).build()) {
      TableMirror<Item> m = client.mirror(T, Item.class);
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 5, row("id", 1, "qty", 4), row("id", 3, "qty", "lots"));
      assertThat(m.awaitReady(WAIT)).isTrue();
      awaitHeard(r, 1);
      assertThat(r.heard).containsExactly("rowNotMapped " + T + " key 3 to Item");
      assertThat(m.get(3)).as("a row that never mapped is lacking, and said to be").isNull();

      conn.send(
          batch(
              6,
              insert(T, row("id", 2, "qty", "many"), 2),
              update(T, row("id", 1, "qty", 4), row("id", 1, "qty", "few"), 1)));
      await().atMost(WAIT).until(() -> m.position() == 6);
      awaitHeard(r, 3);
      assertThat(r.heard)
          .containsExactly(
              "rowNotMapped " + T + " key 3 to Item",
              "rowNotMapped " + T + " key 2 to Item",
              "rowNotMapped " + T + " key 1 to Item");
      assertThat(r.causes).allSatisfy(e -> assertThat(e).hasMessageContaining("cannot map row to"));
      assertThat(m.get(1).qty()).as("the previous value is kept").isEqualTo(4);
      assertThat(m.get(2)).isNull();
      assertThat(m.staleReason()).contains("3 rows of " + T + " could not be mapped to Item");
    }
  }

  @Test
  void aThrowingListenerIsLoggedAndBreaksNeitherTheClientNorTheOtherListeners() throws Exception {
    Recorder r = new Recorder();
    ConnectionListener throwing =
        new ConnectionListener() {
          @Override
          public void connected(String server) {
            throw new IllegalStateException("listener bug");
          }
        };
    ErrorListener throwingOnErrors =
        new ErrorListener() {
          @Override
          public void rowNotMapped(
              String table, Object key, Class<?> rowType, RuntimeException cause) {
            throw new IllegalStateException("listener bug");
          }
        };
    try (FakeServer server = new FakeServer();
        TablecastClient client =
            builder(server)
                .connectionListener(throwing)
                .errorListener(throwingOnErrors)
                .connectionListener(r)
                .errorListener(r)
                .build()) {
      TableMirror<Item> m = client.mirror(T, Item.class);
      List<ChangeType> changes = new CopyOnWriteArrayList<>();
      m.addListener(e -> changes.add(e.op()));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 5, row("id", 1, "qty", 4));
      assertThat(m.awaitReady(WAIT)).isTrue();
      conn.send(
          batch(6, insert(T, row("id", 2, "qty", "x"), 2)),
          batch(7, insert(T, row("id", 3, "qty", 3), 3)));
      await().atMost(WAIT).until(() -> m.position() == 7 && changes.size() == 1);
      awaitHeard(r, 2);
      assertThat(r.heard)
          .containsExactly("connected " + server.address(), "rowNotMapped " + T + " key 2 to Item");
      assertThat(m.get(3)).isEqualTo(new Item(3, 3));
    }
  }

  @Test
  void aCancelledListenerHearsNoMore() throws Exception {
    Recorder r = new Recorder();
    try (FakeServer server = new FakeServer();
        TablecastClient client = builder(server).build()) {
      Subscription sub = client.addConnectionListener(r);
      client.mirror(T);
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      awaitHeard(r, 1);
      sub.cancel();
      conn.close();
      FakeServer.Conn again = server.handshake(0);
      again.expect(Message.Subscribe.class);
      again.send(new Message.Ping(1));
      again.expect(Message.Pong.class); // the welcome was handled, its event long queued
      Recorder later = new Recorder();
      client.addConnectionListener(later);
      again.close();
      awaitHeard(later, 1);
      assertThat(r.heard).containsExactly("connected " + server.address());
    }
  }
}

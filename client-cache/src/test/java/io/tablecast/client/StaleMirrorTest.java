package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A mirror says when the server knows it may differ from its table ({@code table_status}), to a
 * reader that asks and to a listener, and when it follows its table again; after a reconnect the
 * server's word right after the snapshot or resume (or its silence before the next batch) is the
 * truth.
 */
class StaleMirrorTest {
  static final String T = "shop.items";
  static final Duration WAIT = Duration.ofSeconds(10);
  static final String WHY =
      "a row of shop.items with key [2] cannot be read: raise max_allowed_packet";

  @Test
  void aMirrorSaysWhenItIsStaleAndWhenItFollowsItsTableAgain() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = client(server)) {
      TableMirror<Map<String, Object>> m = client.mirror(T);
      List<String> heard = heard(m);
      FakeServer.Conn conn = followed(server, m);
      assertThat(m.staleReason()).isNull();

      conn.send(
          new Message.TableStatus(T, true, WHY), batch(6, insert(T, row("id", 3, "v", "c"), 3)));
      await().atMost(WAIT).until(() -> m.position() == 6);
      assertThat(m.staleReason()).isEqualTo(WHY);
      // the same cause in other words (PROTOCOL.md, Stale tables): readers and listeners get them
      String reworded = WHY + " (and 1 more)";
      conn.send(new Message.TableStatus(T, true, reworded));
      await().atMost(WAIT).until(() -> reworded.equals(m.staleReason()));
      conn.send(new Message.TableStatus(T, false, null));
      await().atMost(WAIT).until(() -> m.staleReason() == null);

      // stale again, then the connection drops: the new session's word is the truth
      conn.send(new Message.TableStatus(T, true, WHY));
      await().atMost(WAIT).until(() -> WHY.equals(m.staleReason()));
      conn.close();
      FakeServer.Conn again = server.handshake(6);
      again.expect(Message.Subscribe.class);
      again.send(
          new Message.Resumed(List.of(T), List.of(), 6),
          new Message.TableStatus(T, true, WHY),
          batch(7));
      await().atMost(WAIT).until(() -> m.position() == 7);
      assertThat(m.staleReason()).as("still stale: said right after the resume").isEqualTo(WHY);
      again.close();
      FakeServer.Conn third = server.handshake(7);
      third.expect(Message.Subscribe.class);
      third.send(new Message.Resumed(List.of(T), List.of(), 7), batch(8));
      await().atMost(WAIT).until(() -> m.position() == 8);
      assertThat(m.staleReason()).as("nothing said before the next batch: followed").isNull();
      await().atMost(WAIT).until(() -> heard.size() == 5);
      assertThat(heard).containsExactly(WHY, WHY + " (and 1 more)", "null", WHY, "null");
    }
  }

  /**
   * A mirror that followed its table, refused by the server it reconnects to (a server restarted
   * without the table in cached_tables, or with a policy that denies it), keeps its rows and says
   * that they may be old, instead of looking current for ever; it asks for the table at each
   * reconnect and follows it again once a server serves it.
   */
  @Test
  void aMirrorRefusedWhenItReconnectsIsStaleUntilAServerServesItAgain() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = client(server)) {
      TableMirror<Map<String, Object>> m = client.mirror(T);
      List<String> heard = heard(m);
      FakeServer.Conn conn = followed(server, m);
      conn.close();

      FakeServer.Conn restarted = server.handshake(0);
      restarted.expect(Message.Subscribe.class);
      restarted.send(
          new Message.Error(
              ErrorCode.UNKNOWN_TABLE, "table 'shop.items' is not cached by this server", T));
      await().atMost(WAIT).until(() -> m.staleReason() != null);
      assertThat(m.staleReason())
          .isEqualTo(
              "server refused subscription to shop.items: UNKNOWN_TABLE: table 'shop.items' is not"
                  + " cached by this server; the mirror keeps the rows it held and asks for the"
                  + " table again at each reconnect");
      assertThat(m.isReady()).isTrue();
      assertThat(m.get(1)).containsEntry("v", "a");

      restarted.close();
      FakeServer.Conn served = server.handshake(0);
      assertThat(served.expect(Message.Subscribe.class).resumePosition())
          .as("asked for afresh")
          .isEqualTo(-1);
      served.snapshot(T, List.of("id"), 9, row("id", 1, "v", "b"));
      await().atMost(WAIT).until(() -> m.staleReason() == null);
      assertThat(m.get(1)).containsEntry("v", "b");
      await().atMost(WAIT).until(() -> heard.size() == 2);
      assertThat(heard.get(1)).isEqualTo("null");
    }
  }

  /**
   * A mirror that followed its table, whose client a server then refuses at the hello (a token that
   * expired before a reconnect, a password rotated, a principal removed), keeps its rows and says
   * that they may be old with the server's words, instead of looking current for ever while the
   * client retries; it follows its table again once a server welcomes the client and resumes it.
   * Before, only mirrors not ready yet heard of such a refusal.
   */
  @Test
  void aMirrorWhoseClientIsRefusedWhenItReconnectsIsStaleUntilAServerServesItAgain()
      throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = client(server)) {
      TableMirror<Map<String, Object>> m = client.mirror(T);
      List<String> heard = heard(m);
      FakeServer.Conn conn = followed(server, m);
      conn.close();

      FakeServer.Conn refusing = server.accept();
      refusing.expect(Message.Hello.class);
      refusing.send(
          Message.Error.fatal(
              ErrorCode.AUTHENTICATION_FAILED, "token expired at 2026-12-06T14:00:00Z"));
      await().atMost(WAIT).until(() -> m.staleReason() != null);
      assertThat(m.staleReason())
          .startsWith("server ")
          .contains(
              " refused the connection: AUTHENTICATION_FAILED: token expired at"
                  + " 2026-12-06T14:00:00Z; the mirror keeps the rows it held");
      assertThat(m.isReady()).isTrue();
      assertThat(m.get(1)).containsEntry("v", "a");
      refusing.close();

      FakeServer.Conn served = server.handshake(5);
      assertThat(served.expect(Message.Subscribe.class).resumePosition())
          .as("resumed where it was")
          .isEqualTo(5);
      served.send(new Message.Resumed(List.of(T), List.of(), 5), batch(6));
      await().atMost(WAIT).until(() -> m.staleReason() == null);
      assertThat(m.position()).isEqualTo(6);
      await().atMost(WAIT).until(() -> heard.size() == 2);
      assertThat(heard.get(1)).isEqualTo("null");
    }
  }

  private static TablecastClient client(FakeServer server) {
    return TablecastClient.builder()
        .servers(server.address())
        .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
        .build();
  }

  /** What the mirror's stale listener hears, {@code "null"} for followed again. */
  private static List<String> heard(TableMirror<?> m) {
    List<String> heard = Collections.synchronizedList(new ArrayList<>());
    m.addStaleListener(reason -> heard.add(String.valueOf(reason)));
    return heard;
  }

  /** The client's first connection, on which {@code m} gets its snapshot (row 1) at position 5. */
  private static FakeServer.Conn followed(FakeServer server, TableMirror<?> m) throws Exception {
    FakeServer.Conn conn = server.handshake(0);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 5, row("id", 1, "v", "a"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    return conn;
  }
}

package io.tablecast.client;

import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A client given where its token comes from ({@code Builder.token(Supplier)}) asks for it before
 * each connection: a reconnect after the token was refreshed sends the fresh one, where a fixed
 * token would be refused once expired.
 */
class TokenSupplierTest {
  static final String T = "shop.items";
  static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void eachConnectionSendsTheTokenTheSupplierGivesThen() throws Exception {
    AtomicReference<String> current = new AtomicReference<>("token-1");
    try (FakeServer server = new FakeServer();
        TablecastClient client = client(server, current::get)) {
      TableMirror<?> m = client.mirror(T);
      FakeServer.Conn first = server.accept();
      assertThat(first.expect(Message.Hello.class).token()).isEqualTo("token-1");
      first.send(new Message.Welcome(1, "fake", FakeServer.EPOCH, 0, 10_000));
      first.expect(Message.Subscribe.class);
      first.snapshot(T, List.of("id"), 5, row("id", 1, "v", "a"));
      assertThat(m.awaitReady(WAIT)).isTrue();

      current.set("token-2");
      first.close();
      FakeServer.Conn second = server.accept();
      assertThat(second.expect(Message.Hello.class).token()).isEqualTo("token-2");
    }
  }

  /**
   * A server refuses the token that expired meanwhile: the mirror is stale with its words; the next
   * attempt, with the supplier's fresh token, resumes it where it was and it follows again.
   */
  @Test
  void aTokenRefusedAtAReconnectIsReplacedByTheNextOneTheSupplierGives() throws Exception {
    AtomicReference<String> current = new AtomicReference<>("token-1");
    try (FakeServer server = new FakeServer();
        TablecastClient client = client(server, current::get)) {
      TableMirror<?> m = client.mirror(T);
      FakeServer.Conn first = server.handshake(0);
      first.expect(Message.Subscribe.class);
      first.snapshot(T, List.of("id"), 5, row("id", 1, "v", "a"));
      assertThat(m.awaitReady(WAIT)).isTrue();
      first.close();

      FakeServer.Conn refusing = server.accept();
      assertThat(refusing.expect(Message.Hello.class).token()).isEqualTo("token-1");
      refusing.send(Message.Error.fatal(ErrorCode.AUTHENTICATION_FAILED, "the token has expired"));
      await().atMost(WAIT).until(() -> m.staleReason() != null);
      assertThat(m.staleReason()).contains("AUTHENTICATION_FAILED: the token has expired");
      current.set("token-2");
      refusing.close();

      FakeServer.Conn again;
      while (true) { // attempts made before the token was refreshed are refused too
        again = server.accept();
        if ("token-2".equals(again.expect(Message.Hello.class).token())) {
          break;
        }
        again.send(Message.Error.fatal(ErrorCode.AUTHENTICATION_FAILED, "the token has expired"));
        again.close();
      }
      again.send(new Message.Welcome(1, "fake", FakeServer.EPOCH, 5, 10_000));
      assertThat(again.expect(Message.Subscribe.class).resumePosition()).isEqualTo(5);
      again.send(new Message.Resumed(List.of(T), List.of(), 5));
      await().atMost(WAIT).until(() -> m.staleReason() == null);
      assertThat(m.get(1)).isNotNull();
    }
  }

  @Test
  void aSupplierThatThrowsLeavesTheTokenOutAndTheClientGoesOn() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client =
            client(
                server,
                () -> {
                  throw new IllegalStateException("the identity provider is down");
                })) {
      client.mirror(T);
      FakeServer.Conn conn = server.accept();
      assertThat(conn.expect(Message.Hello.class).token()).isNull();
    }
  }

  private static TablecastClient client(FakeServer server, Supplier<String> tokens) {
    return TablecastClient.builder()
        .servers(server.address())
        .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
        .token(tokens)
        .build();
  }
}

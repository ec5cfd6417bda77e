package io.tablecast.server.auth;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.testing.TestClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authentication over WebSocket: the same credentials in the same {@code hello}, checked by the
 * same authenticator as over TCP ({@link AuthServerTest}); a refusal is an {@code error} text frame
 * and then a close frame with status 1008 (docs/PROTOCOL.md, Close codes).
 */
class WebSocketAuthTest {

  private final FakeChangeSource source = new FakeChangeSource().withTable(table("products"), 3);

  /** Made once for the class (210,000 PBKDF2 iterations); each login still checks it. */
  private static final String ALICE_HASH = PasswordHasher.hash("alice-pw".toCharArray());

  @TempDir Path dir;
  private EventLoopGroup group;
  private TablecastServer server;

  @BeforeEach
  void setUp() throws Exception {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    String yaml =
        """
        listen: { host: 127.0.0.1, port: 0 }
        heartbeat: 200ms
        source: { jdbc_url: "jdbc:postgresql://fake/app" }
        cached_tables: [public.products]
        auth:
          principals:
            - name: alice
              password_hash: %s
          jwt:
            principal_claim: sub
            default_policy: {}   # tokens of principals without an entry (absent: refused, no_policy)
        """
            .formatted(ALICE_HASH);
    Path file = dir.resolve("tablecast.yaml");
    Files.writeString(file, yaml);
    server =
        TablecastServers.start(
            ServerConfig.load(
                file, Map.of(AuthConfigReader.ENV_JWT_HS256_SECRET, AuthServerTest.SECRET)),
            source);
  }

  @AfterEach
  void tearDown() {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void wrongPasswordGetsAnErrorThenClose1008() throws Exception {
    try (TestClient c = TestClient.webSocket(group, server.port())) {
      c.sendText(
          "{\"type\":\"hello\",\"protocolVersion\":2,\"clientName\":\"browser\",\"user\":\"alice\",\"password\":\"nope\"}");
      Message.Error e = (Message.Error) MessageCodec.decodeJson(c.nextText());
      assertThat(e.code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
      assertThat(e.table()).isNull();
      assertThat(e.message()).doesNotContain("nope");
      assertThat(c.nextText()).as("close frame after the error").isEqualTo("close:1008");
      await().atMost(Duration.ofSeconds(5)).until(() -> !c.channel.isActive());
    }
    assertThat(server.metrics().authFailures("bad_credentials")).isEqualTo(1.0);
  }

  @Test
  void helloWithoutCredentialsIsRefusedWith1008() throws Exception {
    try (TestClient c = TestClient.webSocket(group, server.port())) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "browser", null, null, null));
      assertThat(((Message.Error) c.next()).code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
      assertThat(c.nextText()).isEqualTo("close:1008");
    }
  }

  @Test
  void rightPasswordGetsWelcomeAndItsSnapshot() throws Exception {
    try (TestClient c = TestClient.webSocket(group, server.port())) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "browser", "alice", "alice-pw", null));
      assertThat(c.next()).isInstanceOf(Message.Welcome.class);
      c.send(Message.Subscribe.fresh(List.of("public.products")));
      assertThat(
              ((Message.SnapshotBegin) MessageCodec.decodeJson(c.nextNonHeartbeatText()))
                  .rowCount())
          .isEqualTo(3);
    }
  }

  @Test
  void validTokenGetsWelcome() throws Exception {
    String token =
        JwtVerifierTest.token(
            JWSAlgorithm.HS256,
            new MACSigner(AuthServerTest.SECRET.getBytes(StandardCharsets.UTF_8)),
            new JWTClaimsSet.Builder()
                .subject("dave")
                .expirationTime(new Date(System.currentTimeMillis() + 600_000))
                .build());
    try (TestClient c = TestClient.webSocket(group, server.port())) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "browser", null, null, token));
      assertThat(c.next()).isInstanceOf(Message.Welcome.class);
    }
  }
}

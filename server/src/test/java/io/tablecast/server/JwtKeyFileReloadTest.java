package io.tablecast.server;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.testing.TestClient;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code auth.jwt.rs256_public_key_pem}: the key rotated by replacing its file while the server
 * serves is read again with the configuration ({@link ConfigFileWatch} watches the file beside it),
 * so tokens signed with the new key log in and those of the old one are refused, without a restart.
 * Before, the file was read at start only, and until a restart every token of the new key was
 * refused.
 */
class JwtKeyFileReloadTest {
  @TempDir Path dir;
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private TablecastServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void aKeyRotatedInItsFileVerifiesTheTokensFromThenOn() throws Exception {
    KeyPair first = rsa();
    KeyPair second = rsa();
    Path pem = writePem(first);
    Path file =
        Files.writeString(
            dir.resolve("tablecast.yaml"),
            String.join(
                "\n",
                "listen: { host: 127.0.0.1, port: 0 }",
                "source: { jdbc_url: 'jdbc:postgresql://fake/app' }",
                "cached_tables: [public.products]",
                "auth:",
                "  jwt:",
                "    rs256_public_key_pem: " + pem,
                "    default_policy: {}",
                ""));
    ServerConfig loaded = ServerConfig.load(file);
    server = TablecastServers.start(loaded, new FakeChangeSource().withTable(table("products"), 3));
    try (ConfigFileWatch watch = ConfigFileWatch.unscheduled(file, loaded, server)) {
      assertThat(hello(token(first))).isInstanceOf(Message.Welcome.class);
      assertThat(hello(token(second))).isInstanceOf(Message.Error.class);
      assertThat(watch.check()).as("nothing changed").isFalse();

      long since = System.currentTimeMillis();
      Files.delete(pem); // caught while it is replaced
      assertThat(watch.check()).isFalse();
      assertThat(watch.check()).isFalse();
      assertThat(
              RecentEvents.global().newestFirst().stream()
                  .filter(e -> e.timeMillis() >= since)
                  .filter(e -> e.message().contains("or a key file it names"))
                  .count())
          .as("said once, naming the file")
          .isEqualTo(1);
      assertThat(hello(token(first))).as("the rules of before").isInstanceOf(Message.Welcome.class);

      writePem(second);
      assertThat(watch.check()).isTrue();
      assertThat(hello(token(second))).isInstanceOf(Message.Welcome.class);
      Message refused = hello(token(first));
      assertThat(refused).isInstanceOf(Message.Error.class);
      assertThat(((Message.Error) refused).code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
    }
  }

  private Path writePem(KeyPair keys) throws Exception {
    return Files.writeString(
        dir.resolve("jwt-public.pem"),
        "-----BEGIN PUBLIC KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(keys.getPublic().getEncoded())
            + "\n-----END PUBLIC KEY-----\n");
  }

  private static KeyPair rsa() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    return g.generateKeyPair();
  }

  private static String token(KeyPair keys) throws Exception {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader(JWSAlgorithm.RS256),
            new JWTClaimsSet.Builder()
                .subject("svc")
                .expirationTime(new Date(System.currentTimeMillis() + 60_000))
                .build());
    jwt.sign(new RSASSASigner(keys.getPrivate()));
    return jwt.serialize();
  }

  /** The answer to a hello with {@code token}: a welcome or an error. */
  private Message hello(String token) throws Exception {
    try (TestClient c = TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()))) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "t", null, null, token));
      while (true) {
        Message m = c.nextNonHeartbeat();
        if (m instanceof Message.Welcome || m instanceof Message.Error) {
          return m;
        }
      }
    }
  }
}

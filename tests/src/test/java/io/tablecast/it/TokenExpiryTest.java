package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.auth.AccessPolicy;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Clients that authenticate with a JWT, through a real server: a session outlives its token's
 * expiry (the token is checked at the hello); when the connection is cut after the token expired, a
 * client given one fixed token is refused at its reconnect ({@code AUTHENTICATION_FAILED}), and its
 * mirror, which followed the table, says it is stale with the server's words and keeps its rows,
 * instead of looking current while the client retries; a client given where its token comes from
 * ({@code Builder.token(Supplier)}) sends a fresh one and follows the table on. The server allows
 * 30 s of clock skew, so the fixed token is signed as having expired 20 s ago: accepted for ten
 * seconds (the clients connect and follow a row meanwhile), refused after.
 */
class TokenExpiryTest {
  private static final byte[] SECRET =
      "a-test-secret-of-at-least-32-bytes!!".getBytes(StandardCharsets.UTF_8);
  private static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void aMirrorWhoseFixedTokenExpiredIsStaleAfterAReconnectWhileASuppliedTokenFollowsOn()
      throws Exception {
    try (Pipeline p =
            Pipeline.create(
                Kind.POSTGRESQL,
                "token_expiry",
                List.of("CREATE TABLE items (id int PRIMARY KEY, v text)"),
                "items");
        CuttableProxy proxy = startServer(p)) {
      long expiredAt = System.currentTimeMillis() - 20_000;
      try (TablecastClient fixed =
              client("fixed", proxy)
                  .token(token(expiredAt)) // within the skew for ten seconds
                  .build();
          TablecastClient supplied =
              client("supplied", proxy)
                  .token(() -> token(System.currentTimeMillis() + 60_000))
                  .build()) {
        TableMirror<Map<String, Object>> old = fixed.mirror(p.db.table("items"));
        TableMirror<Map<String, Object>> fresh = supplied.mirror(p.db.table("items"));
        assertThat(old.awaitReady(WAIT)).isTrue();
        assertThat(fresh.awaitReady(WAIT)).isTrue();
        p.sql("INSERT INTO items VALUES (1, 'a')");
        await().atMost(WAIT).until(() -> old.get(1) != null && fresh.get(1) != null);

        Thread.sleep(Math.max(0, expiredAt + 30_000 + 1_000 - System.currentTimeMillis()));
        p.sql("INSERT INTO items VALUES (2, 'b')");
        await()
            .atMost(WAIT)
            .alias("a session outlives its token")
            .until(() -> old.get(2) != null && fresh.get(2) != null);
        proxy.cut(); // both reconnect: the fixed token has expired by now
        p.sql("INSERT INTO items VALUES (3, 'c')");

        await().atMost(WAIT).until(() -> fresh.get(3) != null);
        assertThat(fresh.staleReason()).isNull();
        await().atMost(WAIT).until(() -> old.staleReason() != null);
        assertThat(old.staleReason())
            .contains("refused the connection: AUTHENTICATION_FAILED")
            .contains("the mirror keeps the rows it held");
        assertThat(old.isReady()).isTrue();
        assertThat(old.get(1)).containsEntry("v", "a");
        assertThat(old.get(3)).as("not followed since").isNull();
      }
    }
  }

  private static CuttableProxy startServer(Pipeline p) throws Exception {
    ServerSetups.withTokens(p, SECRET, AccessPolicy.ALLOW_ALL);
    return new CuttableProxy("127.0.0.1", p.server().port());
  }

  private static TablecastClient.Builder client(String name, CuttableProxy proxy) {
    return TablecastClient.builder()
        .clientName(name)
        .servers(proxy.address())
        .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200));
  }

  /** An HS256 token for the principal {@code app} that expires at {@code expiresAtMillis}. */
  private static String token(long expiresAtMillis) {
    try {
      SignedJWT jwt =
          new SignedJWT(
              new JWSHeader(JWSAlgorithm.HS256),
              new JWTClaimsSet.Builder()
                  .subject("app")
                  .expirationTime(new Date(expiresAtMillis))
                  .build());
      jwt.sign(new MACSigner(SECRET));
      return jwt.serialize();
    } catch (com.nimbusds.jose.JOSEException e) {
      throw new IllegalStateException(e);
    }
  }
}

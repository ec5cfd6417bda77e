package io.tablecast.server.auth;

import static io.tablecast.server.auth.JwtVerifierTest.claims;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import io.tablecast.server.log.RecentEvents;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code auth.jwt.jwks_url}: tokens signed by the keys an identity provider publishes, whose key
 * rotation needs no change of the server's configuration. The provider here is a JDK HTTP server
 * serving a JSON Web Key Set the test changes. Before, the server knew one RS256 key from a PEM
 * file: a provider that rotated its key had every token refused until the file was replaced and the
 * server restarted.
 */
class JwksKeysTest {
  private static final Duration REFRESH = Duration.ofMillis(200);

  private final AtomicReference<String> published = new AtomicReference<>("{\"keys\":[]}");
  private final AtomicInteger fetches = new AtomicInteger();
  private HttpServer provider;
  private String url;

  @BeforeEach
  void startProvider() throws Exception {
    provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    provider.createContext(
        "/jwks",
        exchange -> {
          fetches.incrementAndGet();
          byte[] body = published.get().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    provider.start();
    url = "http://127.0.0.1:" + provider.getAddress().getPort() + "/jwks";
  }

  @AfterEach
  void stopProvider() {
    provider.stop(0);
  }

  @Test
  void aRotatedKeyIsTakenFromTheSetWithoutAChangeHere() throws Exception {
    RSAKey first = new RSAKeyGenerator(2048).keyID("2026-11").generate();
    RSAKey next = new RSAKeyGenerator(2048).keyID("2026-12").generate();
    ECKey ec = new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate();
    publish(first, ec);
    JwtVerifier verifier = verifier();

    assertThat(verifier.verify(token(first, JWSAlgorithm.RS256, "alice")).name())
        .isEqualTo("alice");
    assertThat(verifier.verify(token(ec, JWSAlgorithm.ES256, "bob")).name()).isEqualTo("bob");
    int before = fetches.get();
    verifier.verify(token(first, JWSAlgorithm.RS256, "alice"));
    assertThat(fetches.get()).as("a known key is not fetched again").isEqualTo(before);

    publish(first, next); // the provider rotates: both keys while tokens of the first live on
    Thread.sleep(REFRESH.toMillis() + 50);
    assertThat(verifier.verify(token(next, JWSAlgorithm.RS256, "carol")).name())
        .as("an unknown key id fetches the set again")
        .isEqualTo("carol");

    publish(next); // the first key withdrawn
    Thread.sleep(REFRESH.toMillis() + 50);
    String unknown = token(new RSAKeyGenerator(2048).keyID("forged").generate(), "mallory");
    assertThatThrownBy(() -> verifier.verify(unknown))
        .isInstanceOfSatisfying(
            AuthenticationException.class,
            e -> {
              assertThat(e.reason()).isEqualTo("bad_token");
              assertThat(e.getMessage()).contains("no signing key").contains("forged");
            });
  }

  @Test
  void aKeyOfTheSetNeverVerifiesAnHmacToken() throws Exception {
    RSAKey key = new RSAKeyGenerator(2048).keyID("k").generate();
    publish(key);
    JwtVerifier verifier = verifier();
    byte[] publicKeyAsSecret = key.toRSAPublicKey().getEncoded();
    SignedJWT hs =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("k").build(),
            claims("mallory", 60).build());
    hs.sign(new MACSigner(publicKeyAsSecret));
    assertThatThrownBy(() -> verifier.verify(hs.serialize()))
        .isInstanceOfSatisfying(
            AuthenticationException.class,
            e -> assertThat(e.getMessage()).contains("HS256 is not accepted"));
  }

  @Test
  void tokensAreRefusedAsUnavailableWithoutASetAndAFetchedSetOutlivesTheProvider()
      throws Exception {
    RSAKey key = new RSAKeyGenerator(2048).keyID("k").generate();
    publish(key);
    String dead = "http://127.0.0.1:" + freePort() + "/jwks";
    JwtVerifier never =
        new JwtVerifier(
            null, null, JwksKeys.at(dead, REFRESH), "tests", "tablecast", "sub"); // nothing there
    long since = System.currentTimeMillis();
    assertThatThrownBy(() -> never.verify(token(key, JWSAlgorithm.RS256, "alice")))
        .isInstanceOfSatisfying(
            AuthenticationException.class,
            e -> {
              assertThat(e.reason()).isEqualTo("keys_unavailable");
              assertThat(e.getMessage()).doesNotContain(dead); // the client is not told where
            });
    assertThat(
            RecentEvents.global().newestFirst().stream()
                .filter(e -> e.timeMillis() >= since)
                .anyMatch(e -> e.message().contains("auth.jwt.jwks_url " + dead)))
        .as("the log names the URL")
        .isTrue();

    JwtVerifier kept = verifier();
    kept.verify(token(key, JWSAlgorithm.RS256, "alice")); // the set fetched
    provider.stop(0);
    assertThat(kept.verify(token(key, JWSAlgorithm.RS256, "bob")).name())
        .as("the set fetched before is used while the provider is away")
        .isEqualTo("bob");
  }

  @Test
  void theYamlKeyAloneAcceptsTheProvidersTokens() throws Exception {
    RSAKey key = new RSAKeyGenerator(2048).keyID("k").generate();
    publish(key);
    ConfigAuthenticator auth =
        AuthConfigReader.read(
            new com.fasterxml.jackson.dataformat.yaml.YAMLMapper()
                .readTree(
                    "jwt: { jwks_url: '"
                        + url
                        + "', issuer: tests, audience: tablecast, default_policy: {} }"),
            java.util.Map.of());
    Thread.sleep(300);
    assertThat(fetches.get())
        .as("reading the configuration (tablecast check, install...) fetches nothing")
        .isZero();
    Principal p =
        auth.authenticate(
            new io.tablecast.protocol.Message.Hello(
                io.tablecast.protocol.Message.PROTOCOL_VERSION,
                "t",
                null,
                null,
                token(key, JWSAlgorithm.RS256, "dave")));
    assertThat(p.name()).isEqualTo("dave");
  }

  @Test
  void aServerStartingWithTheKeyFetchesTheSetBeforeAnyToken() throws Exception {
    publish(new RSAKeyGenerator(2048).keyID("k").generate());
    java.nio.file.Path file = java.nio.file.Files.createTempFile("jwks-start", ".yaml");
    try {
      java.nio.file.Files.writeString(
          file,
          String.join(
              "\n",
              "listen: { host: 127.0.0.1, port: 0 }",
              "source: { jdbc_url: 'jdbc:postgresql://fake/app' }",
              "cached_tables: [public.products]",
              "auth: { jwt: { jwks_url: '" + url + "', default_policy: {} } }",
              ""));
      try (io.tablecast.server.TablecastServer server =
          io.tablecast.server.TablecastServers.start(
              io.tablecast.server.ServerConfig.load(file),
              new io.tablecast.server.hub.FakeChangeSource()
                  .withTable(io.tablecast.server.hub.FakeChangeSource.table("products"), 1))) {
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> fetches.get() == 1);
      }
    } finally {
      java.nio.file.Files.deleteIfExists(file);
    }
  }

  @Test
  void theUrlIsCheckedAtStart() {
    assertThatThrownBy(() -> JwksKeys.at("file:///etc/keys.json"))
        .hasMessageContaining("auth.jwt.jwks_url must be an https://");
    assertThatThrownBy(() -> JwksKeys.at("https://exa mple.com/jwks"))
        .hasMessageContaining("auth.jwt.jwks_url is not a URL");
  }

  private JwtVerifier verifier() {
    return new JwtVerifier(null, null, JwksKeys.at(url, REFRESH), "tests", "tablecast", "sub");
  }

  private void publish(JWK... keys) {
    published.set(new JWKSet(List.of(keys)).toPublicJWKSet().toString());
  }

  private static String token(RSAKey key, String subject) throws Exception {
    return token(key, JWSAlgorithm.RS256, subject);
  }

  private static String token(JWK key, JWSAlgorithm alg, String subject) throws Exception {
    JWSSigner signer =
        key instanceof RSAKey rsa ? new RSASSASigner(rsa) : new ECDSASigner((ECKey) key);
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(alg).keyID(key.getKeyID()).build(), claims(subject, 60).build());
    jwt.sign(signer);
    return jwt.serialize();
  }

  private static int freePort() throws Exception {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}

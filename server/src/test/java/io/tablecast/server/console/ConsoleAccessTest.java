package io.tablecast.server.console;

import static io.tablecast.server.console.ConsoleHttp.basic;
import static io.tablecast.server.console.ConsoleHttp.get;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.tablecast.protocol.Message;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.auth.AuthConfigReader;
import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.auth.PasswordHasher;
import io.tablecast.server.auth.Principal;
import io.tablecast.server.hub.FakeChangeSource;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Date;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may read the console: admin principals when the server has {@code auth} (HTTP Basic or a
 * bearer JWT), the {@code metrics_token} without it, everyone on an open server.
 */
class ConsoleAccessTest {

  static final String SECRET = "0123456789abcdef0123456789abcdef-test";
  static final String METRICS_TOKEN = "0123456789abcdef-metrics";

  @TempDir Path dir;

  private TablecastServer start(String yaml, Map<String, String> env) throws Exception {
    Path file = dir.resolve("tablecast.yaml");
    Files.writeString(
        file,
        """
        listen: { host: 127.0.0.1, port: 0 }
        source: { jdbc_url: "jdbc:postgresql://fake/app" }
        cached_tables: [public.products]
        """
            + yaml);
    return TablecastServers.start(
        ServerConfig.load(file, env), new FakeChangeSource().withTable(table("products"), 3));
  }

  private static String jwt(String subject) throws Exception {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader(JWSAlgorithm.HS256),
            new JWTClaimsSet.Builder()
                .subject(subject)
                .expirationTime(new Date(System.currentTimeMillis() + 600_000))
                .build());
    jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
    return "Bearer " + jwt.serialize();
  }

  @Test
  void withAuthOnlyAdminPrincipalsMayReadTheConsole() throws Exception {
    String yaml =
        """
        auth:
          principals:
            - name: ops
              password_hash: %s
              admin: true
            - name: app
              password_hash: %s
              tables: [public.products]
          jwt: { principal_claim: sub }
        """
            .formatted(
                PasswordHasher.hash("ops-pw".toCharArray()),
                PasswordHasher.hash("app-pw".toCharArray()));
    try (TablecastServer server =
        start(yaml, Map.of(AuthConfigReader.ENV_JWT_HS256_SECRET, SECRET))) {
      int port = server.port();
      for (String path : new String[] {"/console", "/console/api/tables", "/console/console.js"}) {
        HttpResponse<String> anonymous = get(port, path);
        assertThat(anonymous.statusCode()).as(path).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("www-authenticate"))
            .hasValue("Basic realm=\"Tablecast console\", charset=\"UTF-8\"");
        assertThat(anonymous.body()).doesNotContain("products");
      }
      assertThat(get(port, "/console/api/tables", basic("ops", "wrong")).statusCode())
          .isEqualTo(401);
      assertThat(get(port, "/console/api/tables", basic("nobody", "ops-pw")).statusCode())
          .isEqualTo(401);
      assertThat(get(port, "/console/api/tables", "Digest x").statusCode()).isEqualTo(401);

      HttpResponse<String> app = get(port, "/console/api/tables", basic("app", "app-pw"));
      assertThat(app.statusCode()).isEqualTo(403);
      assertThat(app.body()).contains("'app'", "not an admin").doesNotContain("products");
      assertThat(get(port, "/console", basic("app", "app-pw")).statusCode()).isEqualTo(403);
      assertThat(get(port, "/console/api/tables", jwt("app")).statusCode()).isEqualTo(403);
      assertThat(get(port, "/console/api/tables", jwt("someone")).statusCode()).isEqualTo(403);

      HttpResponse<String> ops = get(port, "/console/api/tables", basic("ops", "ops-pw"));
      assertThat(ops.statusCode()).isEqualTo(200);
      assertThat(ops.body()).contains("public.products");
      assertThat(get(port, "/console/api/tables", jwt("ops")).statusCode()).isEqualTo(200);
      HttpResponse<String> whoAmI = get(port, "/console/api/server", basic("ops", "ops-pw"));
      assertThat(ConsoleHttp.json(whoAmI).get("viewer").asText()).isEqualTo("ops");
      assertThat(ConsoleHttp.json(whoAmI).get("access").asText()).isEqualTo("principals");
      // the metrics token is for Prometheus, not a login, and /health stays open
      assertThat(get(port, "/health").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void withoutAuthTheMetricsTokenOpensTheConsoleAsBearerOrAsTheBasicPassword() throws Exception {
    try (TablecastServer server = start("metrics_token: " + METRICS_TOKEN + "\n", Map.of())) {
      int port = server.port();
      assertThat(get(port, "/console/api/tables").statusCode()).isEqualTo(401);
      assertThat(get(port, "/console/api/tables", basic("any", "not-the-token")).statusCode())
          .isEqualTo(401);
      assertThat(get(port, "/console/api/tables", basic("any", METRICS_TOKEN)).statusCode())
          .isEqualTo(200);
      assertThat(get(port, "/console/api/tables", "Bearer " + METRICS_TOKEN).statusCode())
          .isEqualTo(200);
    }
  }

  @Test
  void anOpenServerHasAnOpenConsole() throws Exception {
    try (TablecastServer server = start("", Map.of())) {
      assertThat(get(server.port(), "/console/api/tables").statusCode()).isEqualTo(200);
      assertThat(get(server.port(), "/console").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aVerifiedPasswordIsRememberedSoThatPollingCostsNoHashEachTime() {
    AtomicInteger checks = new AtomicInteger();
    Authenticator counting =
        new Authenticator() {
          @Override
          public Principal authenticate(Message.Hello hello) {
            checks.incrementAndGet();
            if (!"pw".equals(hello.password())) {
              throw new SecurityException("bad");
            }
            return new Principal(hello.user(), Map.of());
          }

          @Override
          public boolean isAdmin(Principal principal) {
            return principal.name().equals("ops");
          }
        };
    ConsoleAccess access = ConsoleAccess.of(counting, null);
    assertThat(access.check(basic("ops", "pw")).join().status()).isEqualTo(200);
    assertThat(access.check(basic("ops", "pw")).join().status()).isEqualTo(200);
    assertThat(access.check(basic("app", "pw")).join().status()).isEqualTo(403);
    assertThat(access.check(basic("app", "pw")).join().status()).isEqualTo(403);
    assertThat(checks).as("one check per distinct header").hasValue(2);
    // a wrong password is never remembered, and never matches a remembered one
    assertThat(access.check(basic("ops", "nope")).join().status()).isEqualTo(401);
    assertThat(access.check(basic("ops", "nope")).join().status()).isEqualTo(401);
    assertThat(checks).hasValue(4);
  }

  @Test
  void basicHeadersAreParsedStrictly() {
    assertThat(ConsoleAccess.basic(basic("a:b", "c"))).containsExactly("a", "b:c");
    assertThat(ConsoleAccess.basic(basic("ops", ""))).containsExactly("ops", "");
    assertThat(ConsoleAccess.basic("Basic !!!")).isNull();
    assertThat(
            ConsoleAccess.basic(
                "Basic "
                    + java.util.Base64.getEncoder()
                        .encodeToString("x".getBytes(StandardCharsets.UTF_8))))
        .isNull();
    assertThat(ConsoleAccess.basic(null)).isNull();
    assertThat(ConsoleAccess.basic("Bearer abc")).isNull();
  }

  @Test
  void theAdminFlagMustBeABoolean() {
    String hash = PasswordHasher.hash("pw".toCharArray());
    // YAML 1.1 reads yes and no as booleans, so they are accepted
    for (String bad : new String[] {"\"true\"", "1", "sometimes"}) {
      assertThatThrownBy(
              () ->
                  start(
                      "auth: { principals: [ { name: ops, password_hash: '"
                          + hash
                          + "', admin: "
                          + bad
                          + " } ] }\n",
                      Map.of()))
          .as(bad)
          .hasMessageContaining("auth.principals[ops].admin must be true or false");
    }
  }
}

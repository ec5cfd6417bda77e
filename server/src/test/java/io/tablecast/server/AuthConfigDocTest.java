package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.auth.AuthConfigReader;
import io.tablecast.server.auth.ConfigAuthenticator;
import io.tablecast.server.auth.PasswordHasher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code auth} section of docs/CONFIGURATION.md: its example loads, and the variable rules
 * hold.
 */
class AuthConfigDocTest {
  private static final String BASE =
      "source: { jdbc_url: 'jdbc:postgresql://db/app' }\ncached_tables: [public.a]\n";
  private static final Map<String, String> SECRET =
      Map.of(AuthConfigReader.ENV_JWT_HS256_SECRET, "0123456789abcdef0123456789abcdef-test");

  @TempDir Path dir;

  @Test
  void theDocumentedExampleLoads() throws Exception {
    Path root = Path.of(System.getenv().getOrDefault("TABLECAST_REPO_ROOT", ".."));
    String doc = Files.readString(root.resolve("docs/CONFIGURATION.md"));
    String section = doc.substring(doc.indexOf("## Authentication and authorization (`auth`)"));
    int start = section.indexOf("```yaml\n") + "```yaml\n".length();
    String yaml = section.substring(start, section.indexOf("```", start));
    // the example's placeholders: a real hash and a real key file
    Path pem = dir.resolve("jwt-public.pem");
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    Files.writeString(
        pem,
        "-----BEGIN PUBLIC KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(g.generateKeyPair().getPublic().getEncoded())
            + "\n-----END PUBLIC KEY-----\n");
    yaml =
        yaml.replace("<from tablecast hash-password>", PasswordHasher.hash("pw".toCharArray()))
            .replace("/etc/tablecast/jwt-public.pem", pem.toString());

    ServerConfig config = ConfigLoader.parse(BASE + yaml, Map.of());
    ConfigAuthenticator auth = (ConfigAuthenticator) config.authenticator();
    assertThat(auth.principalNames()).containsExactly("pricing-service", "eu-dashboard", "alice");
    assertThat(auth.acceptsTokens()).isTrue();
  }

  @Test
  void tokenSecretFromTheEnvironmentTurnsTokensOnInAnEmptyAuthSection() {
    ConfigAuthenticator auth =
        (ConfigAuthenticator) ConfigLoader.parse(BASE + "auth: {}\n", SECRET).authenticator();
    assertThat(auth.acceptsTokens()).isTrue();
    assertThat(auth.principalNames()).isEmpty();
  }

  @Test
  void tokenSecretWithoutAnAuthSectionIsAnErrorNotAnOpenServer() {
    assertThatThrownBy(() -> ConfigLoader.parse(BASE, SECRET))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(AuthConfigReader.ENV_JWT_HS256_SECRET)
        .hasMessageContaining("no auth section");
  }
}

package io.tablecast.it;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.hub.FakeChangeSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/TLS.md's development recipe, as written: its openssl commands make the files, its YAML turns
 * TLS on, and the Java client and the JavaScript client in Node (both ways of trusting the
 * development CA the page shows) mirror a table over TLS; Node without the CA gets nothing.
 */
class TlsDocTest {
  private static final String SECTION = "## Development: a self-signed certificate";

  @TempDir Path dir;
  private TablecastServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void developmentCertificateFromTheDocServesJavaAndNodeClients() throws Exception {
    Path root = ReadmeTest.repoRoot();
    String doc = Files.readString(root.resolve("docs/TLS.md"));
    String section = doc.substring(doc.indexOf(SECTION));
    String commands = block(section, "```sh\n");
    String tlsYaml = block(section, "```yaml\n");

    Process openssl =
        new ProcessBuilder("sh", "-e", "-c", commands)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .start();
    String opensslOut = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(openssl.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(openssl.exitValue()).as(opensslOut).isZero();

    // the YAML names the files relative to where the commands ran; the server resolves paths
    // against its working directory, so they are made absolute here
    String yaml =
        "listen: { host: 127.0.0.1, port: 0 }\n"
            + "source: { jdbc_url: 'jdbc:postgresql://fake/app' }\n"
            + "cached_tables: [public.products]\n"
            + tlsYaml
                .replace("server-cert.pem", dir.resolve("server-cert.pem").toString())
                .replace("server-key.pem", dir.resolve("server-key.pem").toString());
    Path config = Files.writeString(dir.resolve("tablecast.yaml"), yaml);
    ServerConfig cfg = ServerConfig.load(config, Map.of());
    assertThat(cfg.tls()).isNotNull();
    server = TablecastServers.start(cfg, new FakeChangeSource().withTable(table("products"), 3));

    Path ca = dir.resolve("dev-ca.pem");
    try (TablecastClient client =
        TablecastClient.builder().servers("localhost:" + server.port()).tls(ca).build()) {
      TableMirror<Map<String, Object>> m = client.mirror("public.products");
      assertThat(m.awaitReady(Duration.ofSeconds(20))).isTrue();
      assertThat(m.size()).isEqualTo(3);
    }

    String url = "wss://localhost:" + server.port() + "/ws";
    assertThat(node(root, url, "plain", ca, true, 20_000)).isEqualTo("ROWS 3");
    assertThat(node(root, url, "ca", ca, false, 20_000)).isEqualTo("ROWS 3");
    assertThat(node(root, url, "plain", ca, false, 3_000))
        .as("Node without the CA")
        .isEqualTo("TIMEOUT");
  }

  /** The content of the first fenced block opening with {@code fence} in {@code text}. */
  private static String block(String text, String fence) {
    int start = text.indexOf(fence);
    assertThat(start)
        .as("a %s block in docs/TLS.md's development section", fence.strip())
        .isNotNegative();
    start += fence.length();
    return text.substring(start, text.indexOf("```", start));
  }

  /** Runs tests/src/test/node/wss-mirror.mjs; returns its first output line. */
  private static String node(
      Path root, String url, String mode, Path ca, boolean extraCaEnv, int timeoutMs)
      throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(
                "node",
                "tests/src/test/node/wss-mirror.mjs",
                root.toString(),
                url,
                "public.products",
                mode,
                ca.toString(),
                String.valueOf(timeoutMs))
            .directory(root.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().remove("NODE_EXTRA_CA_CERTS");
    if (extraCaEnv) {
      pb.environment().put("NODE_EXTRA_CA_CERTS", ca.toString());
    }
    Process p = pb.start();
    try {
      List<String> lines =
          new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      return lines.isEmpty() ? "(no output, exit " + p.exitValue() + ")" : lines.get(0);
    } finally {
      p.destroyForcibly();
    }
  }
}

package io.tablecast.server.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code tls:} configuration keys and the TABLECAST_TLS_* environment variables. */
class TlsConfigTest {

  @TempDir static Path dir;
  static TlsTestCerts certs;

  @BeforeAll
  static void certificates() {
    certs = TlsTestCerts.create(dir);
  }

  private static ServerConfig load(String yaml, Map<String, String> env) throws Exception {
    Path f = Files.createTempFile(dir, "config", ".yaml");
    Files.writeString(
        f, "source: { jdbc_url: 'jdbc:postgresql://h/db' }\ncached_tables: [public.t]\n" + yaml);
    return ServerConfig.load(f, env);
  }

  @Test
  void noTlsByDefault() throws Exception {
    assertThat(load("", Map.of()).tls()).isNull();
  }

  @Test
  void yamlKeys() throws Exception {
    TlsConfig tls =
        load(
                "tls: { cert_chain: '"
                    + certs.serverCert
                    + "', private_key: '"
                    + certs.serverKey
                    + "', client_ca: '"
                    + certs.caCert
                    + "', client_auth: optional, allow_plaintext: true }\n",
                Map.of())
            .tls();
    assertThat(tls.certChain()).isEqualTo(certs.serverCert);
    assertThat(tls.clientAuth()).isEqualTo(TlsConfig.ClientAuth.OPTIONAL);
    assertThat(tls.allowPlaintext()).isTrue();
  }

  @Test
  void clientCaAloneMeansRequire() throws Exception {
    TlsConfig tls =
        load(
                "tls: { cert_chain: '"
                    + certs.serverCert
                    + "', private_key: '"
                    + certs.serverKey
                    + "', client_ca: '"
                    + certs.caCert
                    + "' }\n",
                Map.of())
            .tls();
    assertThat(tls.clientAuth()).isEqualTo(TlsConfig.ClientAuth.REQUIRE);
    assertThat(tls.allowPlaintext()).isFalse();
  }

  @Test
  void environmentVariablesEnableAndOverride() throws Exception {
    TlsConfig tls =
        load(
                "",
                Map.of(
                    "TABLECAST_TLS_CERT_CHAIN",
                    certs.serverCert.toString(),
                    "TABLECAST_TLS_PRIVATE_KEY",
                    certs.serverKey.toString()))
            .tls();
    assertThat(tls.privateKey()).isEqualTo(certs.serverKey);
    assertThat(tls.clientAuth()).isEqualTo(TlsConfig.ClientAuth.NONE);
  }

  @Test
  void badValuesAreNamed() {
    assertThatThrownBy(() -> load("tls: { cert_chain: '" + certs.serverCert + "' }\n", Map.of()))
        .hasMessageContaining("private_key");
    assertThatThrownBy(
            () ->
                load(
                    "tls: { cert_chain: '" + certs.serverCert + "', private_key: '/nope.key' }\n",
                    Map.of()))
        .hasMessageContaining("tls.private_key")
        .hasMessageContaining("/nope.key");
    assertThatThrownBy(
            () ->
                load(
                    "tls: { cert_chain: '"
                        + certs.serverCert
                        + "', private_key: '"
                        + certs.serverKey
                        + "', client_auth: require }\n",
                    Map.of()))
        .hasMessageContaining("tls.client_ca");
    assertThatThrownBy(
            () ->
                load(
                    "tls: { cert_chain: '"
                        + certs.serverCert
                        + "', private_key: '"
                        + certs.serverKey
                        + "', client_auth: maybe }\n",
                    Map.of()))
        .hasMessageContaining("none, optional or require");
    assertThatThrownBy(() -> load("tls: { certificate: x }\n", Map.of()))
        .hasMessageContaining("tls.certificate");
  }
}

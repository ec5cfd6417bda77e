package io.tablecast.it;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ConnectionListener;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.client.TablecastException;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.net.TlsConfig;
import io.tablecast.server.net.TlsTestCerts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java client over TLS against a real server (in-memory change source): mirrors a table, with
 * and without a client certificate; untrusted certificates, wrong host names, missing client
 * certificates and plaintext clients fail with an explanation.
 */
class TlsClientTest {
  private static final Duration WAIT = Duration.ofSeconds(15);

  @TempDir static Path dir;
  static TlsTestCerts certs;

  private final FakeChangeSource source = new FakeChangeSource().withTable(table("products"), 3);
  private TablecastServer server;
  private TablecastClient client;

  @BeforeAll
  static void certificates() {
    certs = TlsTestCerts.create(dir);
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private void start(TlsConfig tls) throws InterruptedException {
    server = TablecastServers.startWithTls("tls", tls, source);
  }

  private TablecastClient.Builder builder(String host) {
    return TablecastClient.builder()
        .servers(host + ":" + server.port())
        .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200));
  }

  @Test
  void mirrorsATableOverTls() throws Exception {
    start(TlsConfig.of(certs.serverCert, certs.serverKey));
    client = builder("localhost").tls(certs.caCert).build();
    TableMirror<Map<String, Object>> products = client.mirror("public.products");
    assertThat(products.awaitReady(WAIT)).isTrue();
    assertThat(products.size()).isEqualTo(3);
    source.commit(insert("public.products", 4, "over tls"));
    await().atMost(WAIT).until(() -> products.get(4) != null);
    assertThat(products.get(4)).containsEntry("name", "over tls");
  }

  /**
   * Certificates renewed in place on both sides, here to another CA (docs/TLS.md, "Renewal without
   * a restart"): the server serves the new certificate to new connections within {@code
   * tls.reload_interval}, the open session goes on, and the client, which reads its files again at
   * each connection, trusts the new CA when it connects again; the mirror follows throughout,
   * without a restart of either. Before, both kept what they read at start: the client's next
   * connection failed for as long as it ran.
   */
  @Test
  void certificatesRenewedInPlaceOnBothSidesAreTakenWithoutARestart(@TempDir Path live)
      throws Exception {
    Path chain = Files.copy(certs.serverCert, live.resolve("tls.crt"));
    Path key = Files.copy(certs.serverKey, live.resolve("tls.key"));
    Path trust = Files.copy(certs.caCert, live.resolve("ca.crt"));
    start(TlsConfig.of(chain, key).withReloadInterval(Duration.ofMillis(100)));
    try (CuttableProxy proxy = CuttableProxy.raw("127.0.0.1", server.port())) {
      client =
          TablecastClient.builder()
              .servers("localhost:" + proxy.address().substring(proxy.address().indexOf(':') + 1))
              .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
              .tls(trust)
              .build();
      TableMirror<Map<String, Object>> products = client.mirror("public.products");
      assertThat(products.awaitReady(WAIT)).isTrue();

      Files.copy(certs.rogueServerKey, key, StandardCopyOption.REPLACE_EXISTING);
      Files.copy(certs.rogueServerCert, chain, StandardCopyOption.REPLACE_EXISTING);
      Files.copy(certs.rogueCaCert, trust, StandardCopyOption.REPLACE_EXISTING);
      Thread.sleep(500); // a few of the server's reloads
      source.commit(insert("public.products", 4, "on the open session"));
      await().atMost(WAIT).until(() -> products.get(4) != null);

      proxy.cut(); // the client connects again: the new certificate, the new CA
      source.commit(insert("public.products", 5, "after connecting again"));
      await().atMost(WAIT).until(() -> products.get(5) != null);
      assertThat(products.size()).isEqualTo(5);
    }
  }

  @Test
  void ipAddressInTheCertificateIsVerifiedToo() throws Exception {
    start(TlsConfig.of(certs.serverCert, certs.serverKey));
    client = builder("127.0.0.1").tls(certs.caCert).build();
    assertThat(client.mirror("public.products").awaitReady(WAIT)).isTrue();
  }

  @Test
  void clientCertificateRequiredAndPresented() throws Exception {
    start(
        new TlsConfig(
            certs.serverCert, certs.serverKey, certs.caCert, TlsConfig.ClientAuth.REQUIRE, false));
    client = builder("localhost").tls(certs.caCert, certs.clientCert, certs.clientKey).build();
    assertThat(client.mirror("public.products").awaitReady(WAIT)).isTrue();
  }

  @Test
  void clientCertificateRequiredButMissing() throws Exception {
    start(
        new TlsConfig(
            certs.serverCert, certs.serverKey, certs.caCert, TlsConfig.ClientAuth.REQUIRE, false));
    client = builder("localhost").tls(certs.caCert).build();
    TableMirror<Map<String, Object>> m = client.mirror("public.products");
    assertThatThrownBy(() -> m.awaitReady(WAIT))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("TLS with localhost:" + server.port() + " failed");
  }

  @Test
  void untrustedServerCertificateFailsWithAClearError() throws Exception {
    start(TlsConfig.of(certs.rogueServerCert, certs.rogueServerKey));
    client = builder("localhost").tls(certs.caCert).build();
    TableMirror<Map<String, Object>> m = client.mirror("public.products");
    assertThatThrownBy(() -> m.awaitReady(WAIT))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("the server's certificate is not trusted");
  }

  @Test
  void systemTrustDoesNotTrustATestCa() throws Exception {
    start(TlsConfig.of(certs.serverCert, certs.serverKey));
    client = builder("localhost").tls().build();
    assertThatThrownBy(() -> client.mirror("public.products").awaitReady(WAIT))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("not trusted");
  }

  @Test
  void certificateForAnotherHostFailsHostnameVerification() throws Exception {
    start(TlsConfig.of(certs.wrongHostCert, certs.wrongHostKey));
    client = builder("localhost").tls(certs.caCert).build();
    assertThatThrownBy(() -> client.mirror("public.products").awaitReady(WAIT))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("does not name localhost");
  }

  @Test
  void plaintextClientIsToldThatTlsIsRequired() throws Exception {
    start(TlsConfig.of(certs.serverCert, certs.serverKey));
    List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    client =
        builder("localhost")
            .connectionListener(
                new ConnectionListener() {
                  @Override
                  public void connectFailed(String server, String reason) {
                    failures.add(reason);
                  }
                })
            .build();
    TableMirror<Map<String, Object>> m = client.mirror("public.products");
    // the server answers PROTOCOL_VIOLATION "this port requires TLS ..."; the client keeps retrying
    assertThat(m.awaitReady(Duration.ofSeconds(2))).isFalse();
    await().atMost(WAIT).until(() -> !failures.isEmpty());
    assertThat(failures.get(0)).contains("PROTOCOL_VIOLATION").contains("requires TLS");
  }

  @Test
  void tlsClientOfAPlaintextServerIsToldItAnsweredInPlaintext() throws Exception {
    start(null);
    client = builder("localhost").tls(certs.caCert).build();
    TableMirror<Map<String, Object>> m = client.mirror("public.products");
    assertThatThrownBy(() -> m.awaitReady(WAIT))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining(
            "failed: the server answered in plaintext, not TLS: turn TLS on at the server")
        .hasMessageNotContaining("not an SSL/TLS record");
  }

  @Test
  void cliDumpsOverTlsWithAClientCertificate() throws Exception {
    start(
        new TlsConfig(
            certs.serverCert, certs.serverKey, certs.caCert, TlsConfig.ClientAuth.REQUIRE, false));
    Cli dump =
        Cli.run(
            "dump",
            "public.products",
            "--server",
            "localhost:" + server.port(),
            "--tls-trust",
            certs.caCert.toString(),
            "--tls-cert",
            certs.clientCert.toString(),
            "--tls-key",
            certs.clientKey.toString(),
            "--timeout",
            "15s");
    assertThat(dump.exitCode()).as(dump.err()).isZero();
    assertThat(dump.out().lines()).hasSize(3).first().asString().contains("\"id\":1");
  }

  @Test
  void cliTlsFlagTrustsTheJvmTrustStoreOnly() throws Exception {
    start(TlsConfig.of(certs.serverCert, certs.serverKey));
    Cli dump =
        Cli.run(
            "dump",
            "public.products",
            "--server",
            "localhost:" + server.port(),
            "--tls",
            "--timeout",
            "15s");
    assertThat(dump.exitCode()).isNotZero();
    assertThat(dump.err()).contains("not trusted");
  }

  @Test
  void cliClientCertificateWithoutItsKeyIsRefusedNamingWhatIsMissing() throws Exception {
    start(TlsConfig.of(certs.serverCert, certs.serverKey));
    Cli dump =
        Cli.run(
            "dump",
            "public.products",
            "--server",
            "localhost:" + server.port(),
            "--tls-trust",
            certs.caCert.toString(),
            "--tls-cert",
            certs.clientCert.toString());
    assertThat(dump.exitCode()).isNotZero();
    assertThat(dump.err()).contains("--tls-cert and --tls-key go together; got only --tls-cert");
  }
}

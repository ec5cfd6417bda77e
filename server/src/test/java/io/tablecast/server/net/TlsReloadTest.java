package io.tablecast.server.net;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.Message;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.log.RecentEvents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A certificate renewed in place while the server runs (cert-manager, a Let's Encrypt client, a
 * Vault agent rewrite the files) is served to new connections within {@code tls.reload_interval},
 * without a restart, and connections made before go on; files caught half written, or a key that is
 * not the certificate's, are never served. Before, the files were read at start only: a server went
 * on presenting the old certificate until it expired and every client was refused, and only a
 * restart, which sends every client back to a snapshot, took the new one.
 */
class TlsReloadTest {
  private static final Duration RELOAD = Duration.ofMillis(100);

  @TempDir static Path certDir;
  static TlsTestCerts certs;
  static EventLoopGroup group;

  @TempDir Path live;
  private final FakeChangeSource source = new FakeChangeSource().withTable(table("products"), 3);
  private TablecastServer server;

  @BeforeAll
  static void certificates() {
    certs = TlsTestCerts.create(certDir);
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  }

  @AfterAll
  static void stopGroup() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aCertificateRenewedInPlaceIsServedToNewConnectionsWhileOldOnesGoOn() throws Exception {
    TlsConfig tls = livePair(certs.serverCert, certs.serverKey);
    start(tls);
    try (TlsBinaryClient before = client(certs.caCert)) {
      assertThat(before.next()).isInstanceOf(Message.Welcome.class);
      before.channel.writeAndFlush(Message.Subscribe.fresh(List.of("public.products")));
      assertThat(before.nextNonHeartbeat()).isInstanceOf(Message.SnapshotBegin.class);

      replace(tls, certs.rogueServerCert, certs.rogueServerKey); // renewed, by another CA here
      await()
          .atMost(Duration.ofSeconds(10))
          .alias("the renewed certificate served to a new connection")
          .until(() -> handshakes(certs.rogueCaCert));
      assertThat(handshakes(certs.caCert)).as("the old certificate no longer served").isFalse();
      assertThat(server.metrics().prometheusText())
          .contains(
              "tablecast_tls_certificate_expiry_seconds "
                  + (double)
                      x509(certs.rogueServerCert).getNotAfter().toInstant().getEpochSecond());

      source.commit(insert("public.products", 4, "after the renewal"));
      Message m;
      do {
        m = before.nextNonHeartbeat();
      } while (!(m instanceof Message.ChangeBatch));
      assertThat(((Message.ChangeBatch) m).changes()).as("the old connection goes on").hasSize(1);
    }
  }

  @Test
  void filesCaughtHalfWrittenAreTakenOnlyOnceWhole() throws Exception {
    TlsConfig tls = livePair(certs.serverCert, certs.serverKey);
    start(tls);
    long since = System.currentTimeMillis();
    // the new certificate is in place, its key not yet
    Files.copy(certs.rogueServerCert, tls.certChain(), StandardCopyOption.REPLACE_EXISTING);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                logged(
                    since,
                    m ->
                        m.contains("The TLS files changed but cannot be used")
                            && m.contains("is not the key of the certificate")
                            && m.contains(tls.privateKey().toString())));
    Thread.sleep(5 * RELOAD.toMillis());
    assertThat(handshakes(certs.caCert)).as("the previous certificate still served").isTrue();
    assertThat(handshakes(certs.rogueCaCert)).isFalse();

    Files.copy(certs.rogueServerKey, tls.privateKey(), StandardCopyOption.REPLACE_EXISTING);
    await().atMost(Duration.ofSeconds(10)).until(() -> handshakes(certs.rogueCaCert));
  }

  @Test
  void aFileThatIsNoCertificateAtAllKeepsThePreviousOneServed() throws Exception {
    TlsConfig tls = livePair(certs.serverCert, certs.serverKey);
    start(tls);
    long since = System.currentTimeMillis();
    Files.writeString(tls.certChain(), "-----BEGIN CERTIFICATE-----\nnot base64 at all\n");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> logged(since, m -> m.contains("The TLS files changed but cannot be used")));
    assertThat(handshakes(certs.caCert)).isTrue();
  }

  @Test
  void aKeyThatIsNotTheCertificatesIsRefusedAtStartNamingBothFiles() {
    assertThatThrownBy(() -> start(TlsConfig.of(certs.serverCert, certs.rogueServerKey)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tls.private_key '" + certs.rogueServerKey + "'")
        .hasMessageContaining("is not the key of the certificate")
        .hasMessageContaining("tls.cert_chain '" + certs.serverCert + "'");
  }

  @Test
  void aCertificateCloseToItsEndIsWarnedAboutOnce() {
    TlsConfig tls = TlsConfig.of(certs.serverCert, certs.serverKey);
    long since = System.currentTimeMillis();
    ServerCertificates early = // the test certificates are valid for two days
        ServerCertificates.load(tls, Clock.fixed(Instant.now().minus(Duration.ofDays(30)), UTC));
    early.reloadIfChanged();
    assertThat(logged(since, m -> m.contains("The TLS certificate served"))).isFalse();

    ServerCertificates late = ServerCertificates.load(tls, Clock.systemUTC());
    late.reloadIfChanged();
    late.reloadIfChanged();
    assertThat(
            RecentEvents.global().newestFirst().stream()
                .filter(e -> e.timeMillis() >= since)
                .filter(e -> e.message().contains("The TLS certificate served"))
                .map(RecentEvents.Event::message)
                .toList())
        .singleElement()
        .asString()
        .contains("CN=localhost")
        .contains("expires in")
        .contains("renew it in " + certs.serverCert);

    ServerCertificates after =
        ServerCertificates.load(tls, Clock.fixed(Instant.now().plus(Duration.ofDays(3)), UTC));
    assertThat(logged(since, m -> m.contains("has expired"))).isTrue();
    assertThat(after.served().getSubjectX500Principal().getName()).isEqualTo("CN=localhost");
  }

  @Test
  void reloadIntervalDefaultsToAMinuteAndZeroTurnsItOff() {
    TlsConfig tls = TlsConfig.of(certs.serverCert, certs.serverKey);
    assertThat(tls.reloadInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(tls.withReloadInterval(Duration.ZERO).reloadInterval()).isZero();
    assertThatThrownBy(() -> tls.withReloadInterval(Duration.ofSeconds(-1)))
        .hasMessageContaining("tls.reload_interval");
  }

  private static final ZoneOffset UTC = ZoneOffset.UTC;

  private static java.security.cert.X509Certificate x509(Path pem) throws Exception {
    try (var in = Files.newInputStream(pem)) {
      return (java.security.cert.X509Certificate)
          java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  /** The pair copied to files of this test's own, read again every {@link #RELOAD}. */
  private TlsConfig livePair(Path chain, Path key) throws Exception {
    Path liveChain = Files.copy(chain, live.resolve("tls.crt"));
    Path liveKey = Files.copy(key, live.resolve("tls.key"));
    return TlsConfig.of(liveChain, liveKey).withReloadInterval(RELOAD);
  }

  /** Writes both files, the key first, as a renewal that replaces them one after the other. */
  private static void replace(TlsConfig tls, Path chain, Path key) throws Exception {
    Files.copy(key, tls.privateKey(), StandardCopyOption.REPLACE_EXISTING);
    Files.copy(chain, tls.certChain(), StandardCopyOption.REPLACE_EXISTING);
  }

  private void start(TlsConfig tls) throws InterruptedException {
    server = TablecastServers.startWithTls("tls-reload", tls, source);
  }

  private TlsBinaryClient client(Path trusted) throws Exception {
    return new TlsBinaryClient(group, TlsBinaryClient.context(trusted, null, null), server.port());
  }

  /** Whether a new connection trusting only {@code ca} gets the server's welcome. */
  private boolean handshakes(Path ca) throws Exception {
    try (TlsBinaryClient c = client(ca)) {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (System.nanoTime() < end && !c.failure.isDone() && c.channel.isActive()) {
        Message m = c.received.poll(20, TimeUnit.MILLISECONDS);
        if (m != null) {
          return m instanceof Message.Welcome;
        }
      }
      return false;
    }
  }

  private static boolean logged(long since, Predicate<String> message) {
    return RecentEvents.global().newestFirst().stream()
        .anyMatch(e -> e.timeMillis() >= since && message.test(e.message()));
  }
}

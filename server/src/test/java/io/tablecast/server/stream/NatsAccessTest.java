package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.NKey;
import io.nats.client.api.StorageType;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.config.NatsTls;
import io.tablecast.server.net.TlsTestCerts;
import io.tablecast.server.testing.NatsOperator;
import io.tablecast.server.testing.NatsServerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NATS as operators run it, against real {@code nats-server -js} processes: NKey authentication,
 * TLS with client certificates, and the stream's placement (replicas, storage) checked at start.
 */
class NatsAccessTest {

  private static NatsSettings settings(NatsServerProcess n, String stream) {
    return new NatsSettings(List.of(n.url()), stream, null, null, null);
  }

  @Test
  void anNkeySeedFileAuthenticatesAndWithoutItTheServerIsRefusedByName(@TempDir Path dir)
      throws Exception {
    NKey user = NKey.createUser(null);
    Path seed = dir.resolve("capture.nk");
    Files.writeString(seed, new String(user.getSeed()) + "\n", StandardCharsets.US_ASCII);
    String auth = "authorization { users = [ { nkey: " + new String(user.getPublicKey()) + " } ] }";
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20, auth)) {
      Connection c = NatsStreams.connect(settings(n, "TC_nkey").withNkeySeedFile(seed), "test");
      try {
        assertThat(NatsStreams.createIfMissing(c, "TC_nkey", settings(n, "TC_nkey"))).isNotNull();
      } finally {
        c.close();
      }
      assertThatThrownBy(() -> NatsStreams.connect(settings(n, "TC_nkey"), "test"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cannot connect to NATS at [" + n.url() + "]");
    }
  }

  /**
   * {@code nats.nkey_seed_file} is read at each connection: a seed rotated in the file while NATS
   * changes the user's key is what the reconnect signs with. Before, the seed read at start was
   * signed with for ever, and every reconnect after NATS stopped taking its key failed.
   */
  @Test
  void anNkeySeedRotatedInItsFileIsUsedWhenTheConnectionIsMadeAgain(@TempDir Path dir)
      throws Exception {
    NKey before = NKey.createUser(null);
    NKey after = NKey.createUser(null);
    Path seed = dir.resolve("capture.nk");
    Files.writeString(seed, new String(before.getSeed()) + "\n", StandardCharsets.US_ASCII);
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20, nkeyUser(before))) {
      NatsSettings settings = settings(n, "TC_rotated").withNkeySeedFile(seed);
      Connection c = NatsStreams.connect(settings, "test");
      try {
        assertThat(NatsStreams.createIfMissing(c, "TC_rotated", settings)).isNotNull();
        n.stop();
        Files.writeString(seed, new String(after.getSeed()) + "\n", StandardCharsets.US_ASCII);
        n.restart(nkeyUser(after));
        await()
            .atMost(Duration.ofSeconds(20))
            .alias("connected again with the rotated seed")
            .until(() -> c.getStatus() == Connection.Status.CONNECTED);
        assertThat(NatsStreams.createIfMissing(c, "TC_rotated", settings)).isNotNull();
      } finally {
        c.close();
      }
    }
  }

  private static String nkeyUser(NKey user) throws Exception {
    return "authorization { users = [ { nkey: " + new String(user.getPublicKey()) + " } ] }";
  }

  @Test
  void aFileThatHoldsNoSeedIsRefusedNamingTheKey(@TempDir Path dir) throws Exception {
    Path seed = dir.resolve("not-a-seed");
    Files.writeString(seed, "hello\n");
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20)) {
      assertThatThrownBy(
              () -> NatsStreams.connect(settings(n, "TC_x").withNkeySeedFile(seed), "test"))
          .hasMessageContaining("nats.nkey_seed_file")
          .hasMessageContaining(seed.toString());
    }
  }

  @Test
  void aCredentialsFileAuthenticatesWithAnOperatorModeServer(@TempDir Path dir) throws Exception {
    NatsOperator operator = NatsOperator.create();
    Path creds = operator.userCredentials(dir.resolve("capture.creds"), "capture");
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20, operator.serverConfig())) {
      NatsSettings withCreds = settings(n, "TC_creds").withCredentialsFile(creds);
      Connection c = NatsStreams.connect(withCreds, "test");
      try {
        assertThat(NatsStreams.createIfMissing(c, "TC_creds", withCreds)).isNotNull();
      } finally {
        c.close();
      }
      assertThatThrownBy(() -> NatsStreams.connect(settings(n, "TC_creds"), "test"))
          .as("no credentials: the operator-mode server refuses")
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cannot connect to NATS at [" + n.url() + "]");
      Path stranger =
          NatsOperator.create().userCredentials(dir.resolve("stranger.creds"), "stranger");
      assertThatThrownBy(
              () -> NatsStreams.connect(settings(n, "TC_creds").withCredentialsFile(stranger), "t"))
          .as("a user of an account this server does not know")
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Authorization Violation");
    }
  }

  @Test
  void aFileThatIsNoCredentialsFileIsRefusedNamingTheKeyAndTheFile(@TempDir Path dir)
      throws Exception {
    NatsOperator operator = NatsOperator.create();
    String good = Files.readString(operator.userCredentials(dir.resolve("u.creds"), "u"));
    Path seedOnly = Files.writeString(dir.resolve("seed-only.creds"), "SUAMLK2ZNL35WSMW\n");
    Path jwtOnly =
        Files.writeString(
            dir.resolve("jwt-only.creds"),
            good.substring(0, good.indexOf("-----BEGIN USER NKEY SEED-----")));
    Path badSeed =
        Files.writeString(dir.resolve("bad-seed.creds"), good.replaceAll("\nSU[A-Z0-9]+", "\nSUX"));
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20, operator.serverConfig())) {
      for (Path file : List.of(seedOnly, jwtOnly, badSeed)) {
        assertThatThrownBy(
                () -> NatsStreams.connect(settings(n, "TC_x").withCredentialsFile(file), "test"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("nats.credentials_file")
            .hasMessageContaining(file.toString());
      }
    }
  }

  @Test
  void tlsWithAClientCertificateConnectsAndWithoutOneTheVerifyingServerRefuses(@TempDir Path dir)
      throws Exception {
    TlsTestCerts certs = TlsTestCerts.create(dir);
    String tls =
        "tls { cert_file: \""
            + certs.serverCert
            + "\", key_file: \""
            + certs.serverKey
            + "\", ca_file: \""
            + certs.caCert
            + "\", verify: true }";
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20, tls)) {
      NatsSettings mutual =
          settings(n, "TC_tls")
              .withTls(new NatsTls(certs.caCert, certs.clientCert, certs.clientKey));
      Connection c = NatsStreams.connect(mutual, "test");
      try {
        assertThat(NatsStreams.createIfMissing(c, "TC_tls", mutual)).isNotNull();
      } finally {
        c.close();
      }
      NatsSettings noClientCert =
          settings(n, "TC_tls").withTls(new NatsTls(certs.caCert, null, null));
      assertThatThrownBy(() -> NatsStreams.connect(noClientCert, "test"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cannot connect to NATS");
      NatsSettings rogueCa =
          settings(n, "TC_tls").withTls(new NatsTls(certs.rogueCaCert, null, null));
      assertThatThrownBy(() -> NatsStreams.connect(rogueCa, "test"))
          .as("a server certificate no configured CA signed")
          .isInstanceOf(IllegalStateException.class);
    }
  }

  /**
   * {@code nats.tls} files renewed in place (here NATS's certificate moved to another CA, and the
   * CA file the server trusts with it) are used when the connection is made again, without a
   * restart: before, the context built at start trusted the old CA for ever, and every reconnect
   * after NATS's renewal failed.
   */
  @Test
  void tlsFilesRenewedInPlaceAreUsedWhenTheConnectionIsMadeAgain(@TempDir Path dir)
      throws Exception {
    TlsTestCerts certs = TlsTestCerts.create(dir);
    Path natsCert = Files.copy(certs.serverCert, dir.resolve("nats.crt"));
    Path natsKey = Files.copy(certs.serverKey, dir.resolve("nats.key"));
    Path trusted = Files.copy(certs.caCert, dir.resolve("trusted-ca.pem"));
    String tls = "tls { cert_file: \"" + natsCert + "\", key_file: \"" + natsKey + "\" }";
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20, tls)) {
      NatsSettings settings = settings(n, "TC_renewed").withTls(new NatsTls(trusted, null, null));
      Connection c = NatsStreams.connect(settings, "test");
      try {
        assertThat(NatsStreams.createIfMissing(c, "TC_renewed", settings)).isNotNull();
        n.stop();
        Files.copy(certs.rogueServerCert, natsCert, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(certs.rogueServerKey, natsKey, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(certs.rogueCaCert, trusted, StandardCopyOption.REPLACE_EXISTING);
        n.restart();
        await()
            .atMost(Duration.ofSeconds(20))
            .alias("connected again, trusting the renewed CA")
            .until(() -> c.getStatus() == Connection.Status.CONNECTED);
        assertThat(NatsStreams.createIfMissing(c, "TC_renewed", settings)).isNotNull();
      } finally {
        c.close();
      }
    }
  }

  @Test
  void aStreamPlacedOtherwiseIsRefusedNamingBothPlacements() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20)) {
      NatsSettings memory = settings(n, "TC_placed").withPlacement(1, "memory");
      Connection c = NatsStreams.connect(memory, "test");
      try {
        assertThat(
                NatsStreams.createIfMissing(c, "TC_placed", memory)
                    .getConfiguration()
                    .getStorageType())
            .isEqualTo(StorageType.Memory);
        assertThatThrownBy(
                () -> NatsStreams.createIfMissing(c, "TC_placed", settings(n, "TC_placed")))
            .hasMessageContaining("NATS stream TC_placed exists with replicas 1 and storage memory")
            .hasMessageContaining("asks for replicas 1 and storage file")
            .hasMessageContaining("nats.storage");
        assertThatThrownBy(
                () ->
                    NatsStreams.createIfMissing(
                        c, "TC_three", settings(n, "TC_three").withPlacement(3, "file")))
            .as("3 replicas on a single NATS server")
            .hasMessageContaining("TC_three");
      } finally {
        c.close();
      }
    }
  }
}

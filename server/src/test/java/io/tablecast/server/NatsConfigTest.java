package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.config.NatsTls;
import io.tablecast.server.config.Secret;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code nats:} section as docs/SCALE-OUT.md describes it. */
class NatsConfigTest {

  @Test
  void aServerOfAStreamNeedsNoSourceButANamedStream() {
    ServerConfig c =
        ConfigLoader.parse(
            "nats:\n  urls: [nats://nats-1:4222]\n  stream: TC_app\n  token: s3cr3t\n", Map.of());
    assertThat(c.source()).isNull();
    assertThat(c.nats().streamName(null)).isEqualTo("TC_app");
    assertThat(c.nats().toString()).doesNotContain("s3cr3t");

    assertThatThrownBy(() -> ConfigLoader.parse("nats:\n  urls: [nats://nats-1:4222]\n", Map.of()))
        .hasMessageContaining("nats.stream must be set");
  }

  @Test
  void theStreamIsNamedAfterTheSourceDatabaseByDefault() {
    NatsSettings n = new NatsSettings(List.of("nats://h:4222"), null, null, null, null);
    assertThat(n.streamName("jdbc:postgresql://db:5432/app?user=x")).isEqualTo("TC_app");
    assertThat(n.streamName("jdbc:mariadb://db:3306/shop.eu")).isEqualTo("TC_shop_eu");
  }

  @Test
  void badSettingsAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> new NatsSettings(List.of(), null, null, null, null))
        .hasMessageContaining("nats.urls");
    assertThatThrownBy(() -> new NatsSettings(List.of("http://h"), null, null, null, null))
        .hasMessageContaining("nats.urls");
    assertThatThrownBy(() -> new NatsSettings(List.of("nats://h"), "a.b", null, null, null))
        .hasMessageContaining("nats.stream");
    assertThatThrownBy(
            () ->
                ConfigLoader.parse(
                    "nats:\n  urls: [nats://h:4222]\n  stream: S\n  user: u\n", Map.of()))
        .hasMessageContaining("nats.user and nats.password");
  }

  @Test
  void checkpointsEveryFifteenMinutesByDefaultAsDocumented() throws Exception {
    ServerConfig c = ConfigLoader.parse("nats:\n  urls: [nats://h:4222]\n  stream: S\n", Map.of());
    assertThat(c.nats().checkpointInterval())
        .isEqualTo(NatsSettings.DEFAULT_CHECKPOINT_INTERVAL)
        .isEqualTo(Duration.ofMinutes(15));
    Path doc =
        Path.of(System.getenv().getOrDefault("TABLECAST_REPO_ROOT", ".."), "docs/SCALE-OUT.md");
    assertThat(Files.readAllLines(doc))
        .as("the documented default")
        .anyMatch(l -> l.startsWith("| `nats.checkpoint_interval` | `15m` |"));

    ServerConfig never =
        ConfigLoader.parse(
            "nats:\n  urls: [nats://h:4222]\n  stream: S\n  checkpoint_interval: 0s\n", Map.of());
    assertThat(never.nats().checkpointInterval()).isZero();
    assertThatThrownBy(
            () ->
                new NatsSettings(List.of("nats://h"), "S", null, null, null)
                    .withCheckpointInterval(Duration.ofSeconds(-1)))
        .hasMessageContaining("nats.checkpoint_interval");
  }

  @Test
  void theHighlyAvailableCaptureOfTheDocsReads(@TempDir Path dir) throws Exception {
    Path doc =
        Path.of(System.getenv().getOrDefault("TABLECAST_REPO_ROOT", ".."), "docs/SCALE-OUT.md");
    String text = Files.readString(doc);
    int start = text.indexOf("# capture-ha.yaml");
    String yaml = text.substring(start, text.indexOf("```", start));
    for (String file : List.of("capture.nk", "ca.pem", "client.pem", "client-key.pem")) {
      Files.writeString(dir.resolve(file), "x");
      yaml = yaml.replace("/etc/tablecast/" + file, dir.resolve(file).toString());
    }
    NatsSettings n = ConfigLoader.parse(yaml, Map.of()).nats();
    assertThat(n.urls()).hasSize(3);
    assertThat(n.replicas()).isEqualTo(3);
    assertThat(n.storage()).isEqualTo("file");
    assertThat(n.captureTakeover()).isEqualTo(Duration.ofSeconds(10));
    assertThat(n.nkeySeedFile()).isEqualTo(dir.resolve("capture.nk"));
    assertThat(n.tls().certChain()).isEqualTo(dir.resolve("client.pem"));
  }

  @Test
  void badPlacementTakeoverAndAuthenticationAreRefusedNamingTheKey(@TempDir Path dir)
      throws Exception {
    NatsSettings n = new NatsSettings(List.of("nats://h"), "S", null, null, null);
    assertThatThrownBy(() -> n.withPlacement(6, "file")).hasMessageContaining("nats.replicas");
    assertThatThrownBy(() -> n.withPlacement(1, "disk")).hasMessageContaining("nats.storage");
    assertThatThrownBy(() -> n.withCaptureTakeover(Duration.ofMillis(500)))
        .hasMessageContaining("nats.capture_takeover");
    assertThatThrownBy(() -> n.withNkeySeedFile(dir.resolve("missing.nk")))
        .hasMessageContaining("nats.nkey_seed_file");
    Path seed = Files.writeString(dir.resolve("seed.nk"), "x");
    assertThatThrownBy(
            () ->
                new NatsSettings(List.of("nats://h"), "S", null, null, Secret.of("a-token"))
                    .withNkeySeedFile(seed))
        .hasMessageContaining("set one");
    assertThatThrownBy(() -> new NatsTls(null, seed, null))
        .hasMessageContaining("nats.tls.cert_chain and nats.tls.private_key");
    assertThat(n.replicas()).isEqualTo(1);
    assertThat(n.captureTakeover()).isEqualTo(NatsSettings.DEFAULT_CAPTURE_TAKEOVER);
  }

  @Test
  void aCredentialsFileIsReadAndRefusedWhenUnreadableOrCombinedWithAnotherWay(@TempDir Path dir)
      throws Exception {
    Path creds = Files.writeString(dir.resolve("capture.creds"), "x");
    NatsSettings n =
        ConfigLoader.parse(
                "nats:\n  urls: [nats://h:4222]\n  stream: S\n  credentials_file: " + creds + "\n",
                Map.of())
            .nats();
    assertThat(n.credentialsFile()).isEqualTo(creds);

    NatsSettings plain = new NatsSettings(List.of("nats://h"), "S", null, null, null);
    assertThatThrownBy(() -> plain.withCredentialsFile(dir.resolve("missing.creds")))
        .hasMessageContaining("nats.credentials_file must be a readable file")
        .hasMessageContaining("missing.creds");
    assertThatThrownBy(
            () ->
                new NatsSettings(List.of("nats://h"), "S", "u", Secret.of("p"), null)
                    .withCredentialsFile(creds))
        .hasMessageContaining("nats.credentials_file")
        .hasMessageContaining("set one");
    assertThatThrownBy(
            () ->
                new NatsSettings(List.of("nats://h"), "S", null, null, Secret.of("t"))
                    .withCredentialsFile(creds))
        .hasMessageContaining("set one");
    Path seed = Files.writeString(dir.resolve("seed.nk"), "x");
    assertThatThrownBy(() -> plain.withNkeySeedFile(seed).withCredentialsFile(creds))
        .hasMessageContaining("set one");
  }
}

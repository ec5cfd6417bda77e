package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.config.NatsSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

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
}

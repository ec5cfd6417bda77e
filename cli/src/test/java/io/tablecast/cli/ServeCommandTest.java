package io.tablecast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.ServerConfig;
import io.tablecast.server.config.NatsSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tablecast serve --from}: the stream's servers from the flag, the rest from the file. */
class ServeCommandTest {

  @Test
  void fromReplacesTheNatsServersAndKeepsEveryOtherNatsKey(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("serve.yaml");
    Files.writeString(
        yaml,
        "nats:\n  urls: [nats://nats-1:4222]\n  stream: TC_app\n  checkpoint_interval: 5m\n"
            + "  capture_takeover: 3s\n  token: a-token-of-some-length\n");
    NatsSettings nats =
        ServeCommand.servedFrom(ServerConfig.load(yaml), "nats://other:4222").nats();
    assertThat(nats.urls()).containsExactly("nats://other:4222");
    assertThat(nats.stream()).isEqualTo("TC_app");
    assertThat(nats.checkpointInterval()).isEqualTo(Duration.ofMinutes(5));
    assertThat(nats.captureTakeover()).isEqualTo(Duration.ofSeconds(3));
    assertThat(nats.token().value()).isEqualTo("a-token-of-some-length");
  }

  @Test
  void fromWithoutANatsSectionServesTheStreamWithDefaults(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("serve.yaml");
    Files.writeString(
        yaml,
        "source:\n  jdbc_url: jdbc:postgresql://127.0.0.1:1/app\ncached_tables: [public.t]\n");
    NatsSettings nats = ServeCommand.servedFrom(ServerConfig.load(yaml), "nats://n:4222").nats();
    assertThat(nats.urls()).isEqualTo(List.of("nats://n:4222"));
    assertThat(nats.checkpointInterval()).isEqualTo(NatsSettings.DEFAULT_CHECKPOINT_INTERVAL);
  }
}

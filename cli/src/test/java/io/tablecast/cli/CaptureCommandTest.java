package io.tablecast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tablecast capture} refuses a configuration it cannot run, saying what is missing. */
class CaptureCommandTest {

  @Test
  void captureWithoutANatsSectionIsRefusedNamingIt(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("capture.yaml");
    Files.writeString(
        yaml,
        "source:\n  jdbc_url: jdbc:postgresql://127.0.0.1:1/app\ncached_tables: [public.t]\n");
    UnknownCommandTest.Run r = UnknownCommandTest.run("capture", "--config", yaml.toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("no nats");
  }
}

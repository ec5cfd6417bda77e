package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server of a NATS stream writes its images as the stream's checkpoint, and a server that starts
 * reads the checkpoint before it serves (docs/SCALE-OUT.md, "Checkpoints and retention"): for a
 * large image both take a while, and both show their progress as a snapshot does (docs/INSTALL.md,
 * "Long work shows its progress"); before, a starting server said nothing until the checkpoint was
 * read. {@code bin/tablecast serve} with the first progress line at once ({@code
 * -Dtablecast.progress.delay_ms=0}; by default one every 10 s).
 */
class CheckpointProgressTest {

  @TempDir Path dir;

  @Test
  void writingAndReadingACheckpointShowTheirProgress() throws Exception {
    try (Pipeline p =
            Pipeline.create(Kind.POSTGRESQL, "cp_progress", TransferWorkload.ddl(), "accounts");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        StreamCapture capture = NatsScaleOutTest.capture(n, p)) {
      String bucket = "TC_" + p.db.schema() + "_CHECKPOINT";
      try (ServeProcess writer = serve(p, n, "writer", "500ms")) {
        writer.awaitStarted(Duration.ofSeconds(60));
        p.sql("UPDATE accounts SET balance = 1 WHERE id = 1"); // newer than the stream's start
        await()
            .atMost(Duration.ofSeconds(60))
            .alias("a checkpoint written (the writer's log: " + writer.log() + ")")
            .until(() -> writer.log().contains("written to NATS stream"));
        String log = writer.log();
        assertThat(log).contains("checkpoint written to bucket " + bucket + ": ");
        assertThat(log.indexOf("checkpoint written to bucket " + bucket + ": "))
            .as("its progress, before it was over")
            .isLessThan(log.indexOf("written to NATS stream"));
      }
      try (ServeProcess reader = serve(p, n, "reader", "0s")) {
        reader.awaitStarted(Duration.ofSeconds(60));
        assertThat(reader.log())
            .contains("checkpoint read from bucket " + bucket + ": ")
            .contains("read from bucket " + bucket + "; the stream is read on");
      }
    }
  }

  private ServeProcess serve(Pipeline p, NatsServerProcess n, String name, String interval)
      throws Exception {
    Path cfg = dir.resolve(name + ".yaml");
    Files.writeString(
        cfg,
        String.join(
            "\n",
            "server_name: " + name,
            "listen: { host: 127.0.0.1, port: 0 }",
            "nats:",
            "  urls: [" + n.url() + "]",
            "  stream: TC_" + p.db.schema(),
            "  checkpoint_interval: " + interval,
            ""));
    return ServeProcess.start(cfg, dir.resolve(name + ".log"), "-Dtablecast.progress.delay_ms=0");
  }
}

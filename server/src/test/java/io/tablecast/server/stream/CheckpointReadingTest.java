package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.hub.ImageCopy;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.testing.NatsServerProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * A starting server reads its stream's checkpoint before it serves, which for a large image takes a
 * while: what its {@code /health} says meanwhile ({@code STARTING}, the start's {@code doing})
 * counts what it has read of it. Before, it said "reading the stream's checkpoint" from the first
 * byte to the last (the log had the progress, the health check none).
 */
class CheckpointReadingTest {

  @Test
  void readingACheckpointTellsTheKibReadAndItsSize() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20);
        Connection c = Nats.connect(n.url())) {
      List<byte[]> rows = new ArrayList<>();
      for (int i = 0; i < 20_000; i++) {
        rows.add(FakeChangeSource.bytes(i, "country " + i + " " + "x".repeat(100)));
      }
      ImageCopy images =
          new ImageCopy(
              42,
              List.of(
                  new CommittedBatch.TableRead(
                      FakeChangeSource.table("countries"), rows, CommittedBatch.Purpose.RESYNC)));
      long size = Checkpoints.write(c, "TC_reading", "epoch-1", images, 0);
      long sizeKib = size >> 10;

      List<String> said = new ArrayList<>();
      Checkpoints.Checkpoint read =
          Checkpoints.read(
              c,
              "TC_reading",
              "epoch-1",
              (kib, ofKib) -> said.add(StreamStart.reading(kib, ofKib)));

      assertThat(read.info().sequence()).isEqualTo(42);
      assertThat(read.tables().get(0).rows()).hasSize(20_000);
      assertThat(sizeKib).as("several chunks of 128 KiB").isGreaterThan(1_000);
      assertThat(said.get(0))
          .isEqualTo(
              String.format(
                  Locale.ROOT, "reading the stream's checkpoint, 0 of %,d KiB (0%%)", sizeKib));
      assertThat(said)
          .as("counts between the first and the last")
          .anyMatch(
              s ->
                  s.matches(
                      "reading the stream's checkpoint, [0-9,]+ of [0-9,]+ KiB \\([1-9][0-9]?%\\)"));
      assertThat(said.get(said.size() - 1))
          .isEqualTo(
              String.format(
                  Locale.ROOT,
                  "reading the stream's checkpoint, %,d of %,d KiB (100%%)",
                  sizeKib,
                  sizeKib));
    }
  }
}

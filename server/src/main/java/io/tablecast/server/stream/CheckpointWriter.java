package io.tablecast.server.stream;

import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.hub.ImageCopy;
import io.tablecast.server.log.RecentEvents;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Every {@code nats.checkpoint_interval}, a server of a stream writes its images as the stream's
 * checkpoint ({@link Checkpoints}) unless one at least as recent is there (another server wrote
 * it), then trims the stream to the checkpoint before it: the stream keeps the previous
 * checkpoint's sequence and everything after, between one and two intervals of batches. A server
 * whose images may differ from the tables (a stale or invalid table) writes none.
 */
public final class CheckpointWriter implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(CheckpointWriter.class);

  private final StreamChangeSource source;
  private final ChangeHub hub;
  private final ScheduledExecutorService timer;

  private CheckpointWriter(StreamChangeSource source, ChangeHub hub) {
    this.source = source;
    this.hub = hub;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tablecast-checkpoint");
              t.setDaemon(true);
              return t;
            });
  }

  /** Writes a checkpoint of {@code hub} every {@code interval}; null when the interval is zero. */
  public static CheckpointWriter start(
      StreamChangeSource source, ChangeHub hub, Duration interval) {
    if (interval.isZero()) {
      LOG.info("nats.checkpoint_interval is 0: no checkpoints, the stream keeps every batch");
      return null;
    }
    CheckpointWriter w = new CheckpointWriter(source, hub);
    long millis = interval.toMillis();
    // writeQuietly catches everything: the schedule's future never completes exceptionally
    @SuppressWarnings("FutureReturnValueIgnored")
    var unused =
        w.timer.scheduleWithFixedDelay(w::writeQuietly, millis, millis, TimeUnit.MILLISECONDS);
    return w;
  }

  private void writeQuietly() {
    try {
      write();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) { // the next interval tries again; serving goes on
      LOG.warn("checkpoint of {} not written: {}", source, e.toString());
    }
  }

  /** Writes one checkpoint now, when this server's images are newer than the stream's last one. */
  void write() throws Exception {
    Checkpoints.Info last = source.checkpointInfo();
    if (last != null && last.sequence() >= source.sequence()) {
      return; // another server wrote one at least as recent as what this one read: no copy
    }
    Optional<ImageCopy> copy = hub.copyImages();
    if (copy.isEmpty()) {
      LOG.info("no checkpoint of {}: a table is stale, its image may differ from it", source);
      return;
    }
    ImageCopy images = copy.get();
    if (images.position() == 0 || (last != null && last.sequence() >= images.position())) {
      return; // nothing applied yet, or not beyond the last checkpoint
    }
    long bytes = source.writeCheckpoint(images, last == null ? 0 : last.sequence());
    int rows = images.tables().stream().mapToInt(t -> t.rows().size()).sum();
    if (last != null && last.sequence() > 0) {
      source.trim(last.sequence());
    }
    LOG.info(
        "checkpoint of {} tables ({} rows, {} KiB) at sequence {} written to {}; the stream keeps"
            + " sequence {} on",
        images.tables().size(),
        rows,
        bytes >> 10,
        images.position(),
        source,
        last == null ? 1 : last.sequence() + 1);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}

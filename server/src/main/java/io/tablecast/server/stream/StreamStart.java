package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.api.StreamInfo;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.CommittedBatch;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * How a server that serves from a NATS stream starts ({@link StreamChangeSource#open}): connects,
 * waits for NATS and for the stream, checks the stream's retention against the checkpoint interval,
 * and reads the images to start from: the stream's latest checkpoint when the stream still holds
 * what follows it, else the snapshot capture published first in the stream.
 */
final class StreamStart {
  private static final Logger LOG = RecentEvents.logger(StreamStart.class);

  /** How long a server waits between looks for a stream capture has not created yet. */
  static final Duration WAIT_FOR_STREAM = Duration.ofSeconds(1);

  private StreamStart() {}

  /**
   * Connects, waits for the stream and its first snapshot, and reads that snapshot or the latest
   * checkpoint, telling {@code doing} what it does now. NATS that cannot be reached or whose
   * JetStream is not ready is waited for ({@link NatsWait}: one WARN per cause, pauses from 250 ms
   * doubling to 5 s).
   *
   * @see StreamChangeSource#open(NatsSettings, String, String, Consumer)
   */
  static StreamChangeSource open(
      NatsSettings settings, String jdbcUrl, String serverName, Consumer<String> doing)
      throws InterruptedException {
    String stream = settings.streamName(jdbcUrl);
    NatsWait wait = new NatsWait("server " + serverName, settings.urls(), stream, doing);
    while (true) {
      try {
        return open(settings, stream, serverName, wait, doing);
      } catch (RuntimeException e) {
        wait.after(e);
      }
    }
  }

  private static StreamChangeSource open(
      NatsSettings settings,
      String stream,
      String serverName,
      NatsWait wait,
      Consumer<String> doing)
      throws InterruptedException {
    Connection nats = NatsStreams.connect(settings, serverName);
    try {
      StreamInfo info = NatsStreams.info(nats, stream);
      wait.reached();
      while (info == null || info.getStreamState().getMsgCount() == 0) {
        if (info != null) {
          checkRetention(stream, info, settings.checkpointInterval());
        }
        LOG.info("waiting for capture to create and fill NATS stream {}", stream);
        doing.accept("waiting for capture to create and fill the NATS stream");
        TimeUnit.MILLISECONDS.sleep(WAIT_FOR_STREAM.toMillis());
        info = NatsStreams.info(nats, stream);
      }
      String epoch = "nats:" + stream + "@" + info.getCreateTime().toInstant().toEpochMilli();
      checkRetention(stream, info, settings.checkpointInterval());
      doing.accept("reading the stream's checkpoint");
      Checkpoints.Checkpoint checkpoint =
          Checkpoints.read(nats, stream, epoch, (kib, ofKib) -> doing.accept(reading(kib, ofKib)));
      if (checkpoint != null) {
        long from = checkpoint.info().sequence() + 1;
        if (from >= info.getStreamState().getFirstSequence()) {
          Map<TableSchema, List<byte[]>> snapshot = new LinkedHashMap<>();
          checkpoint.tables().forEach(r -> snapshot.put(r.schema(), r.rows()));
          LOG.info(
              "checkpoint of {} tables at sequence {} read from bucket {}; the stream is read on"
                  + " from sequence {}",
              snapshot.size(),
              checkpoint.info().sequence(),
              Checkpoints.bucket(stream),
              from);
          return new StreamChangeSource(
              nats,
              stream,
              epoch,
              settings.checkpointInterval(),
              settings.captureTakeover(),
              new GroupReader(nats, stream, from),
              snapshot,
              checkpoint.info().sequence());
        }
        LOG.warn(
            "the checkpoint of NATS stream {} at sequence {} is older than the stream's first"
                + " message {}; reading the stream from its first message",
            stream,
            checkpoint.info().sequence(),
            info.getStreamState().getFirstSequence());
      }
      GroupReader reader = new GroupReader(nats, stream, info.getStreamState().getFirstSequence());
      Map<TableSchema, List<byte[]>> snapshot = new LinkedHashMap<>();
      doing.accept("reading the snapshot at the start of the NATS stream");
      while (true) {
        GroupReader.Group g = reader.next(Duration.ofSeconds(1));
        if (g == null) {
          LOG.info("waiting for the end of the snapshot in NATS stream {}", stream);
          doing.accept("waiting for the end of the snapshot in the NATS stream");
          continue;
        }
        doing.accept("reading the snapshot at the start of the NATS stream, at " + g.sequence());
        boolean end = StreamHeaders.KIND_SNAPSHOT_END.equals(g.kind());
        if (!end && !StreamHeaders.KIND_SNAPSHOT.equals(g.kind())) {
          throw new IllegalStateException(
              "NATS stream "
                  + stream
                  + " does not begin with a snapshot (sequence "
                  + g.sequence()
                  + " holds a "
                  + g.kind()
                  + "): its first messages were removed and bucket "
                  + Checkpoints.bucket(stream)
                  + " holds no checkpoint of this stream to start from; delete the stream and"
                  + " restart capture, or keep nats.checkpoint_interval above zero on the servers");
        }
        for (CommittedBatch.TableRead r : BatchCodec.decode(g.payload()).tableReads()) {
          snapshot.keySet().removeIf(t -> t.id().equals(r.schema().id())); // the latest wins
          snapshot.put(r.schema(), r.rows());
        }
        if (end) {
          LOG.info(
              "snapshot of {} tables read from NATS stream {} up to sequence {}",
              snapshot.size(),
              stream,
              g.sequence());
          return new StreamChangeSource(
              nats,
              stream,
              epoch,
              settings.checkpointInterval(),
              settings.captureTakeover(),
              reader,
              snapshot,
              g.sequence());
        }
      }
    } catch (IOException | RuntimeException | InterruptedException e) {
      nats.close();
      if (e instanceof InterruptedException ie) {
        throw ie;
      }
      throw e instanceof IllegalStateException ise
          ? ise
          : new IllegalStateException("cannot read NATS stream " + stream + ": " + e, e);
    }
  }

  /**
   * Refuses a stream whose age limit could remove the messages after a checkpoint before the next
   * one is written: it must keep at least two intervals.
   */
  private static void checkRetention(String stream, StreamInfo info, Duration interval) {
    Duration maxAge = info.getConfiguration().getMaxAge();
    if (!interval.isZero()
        && maxAge != null
        && !maxAge.isZero()
        && maxAge.compareTo(interval.multipliedBy(2)) < 0) {
      throw new IllegalStateException(
          "NATS stream "
              + stream
              + " keeps messages for "
              + maxAge
              + " (max_age), less than two checkpoint intervals ("
              + interval
              + " each): a server could lose the batches after a checkpoint; raise the stream's"
              + " max_age or lower nats.checkpoint_interval");
    }
  }

  /** What a starting server says while it reads the checkpoint: no name, anyone may ask. */
  static String reading(long kib, long ofKib) {
    return String.format(
        Locale.ROOT,
        "reading the stream's checkpoint, %,d of %,d KiB (%d%%)",
        kib,
        ofKib,
        ofKib == 0 ? 100 : Math.min(100, kib * 100 / ofKib));
  }
}

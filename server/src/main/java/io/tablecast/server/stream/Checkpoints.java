package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.ObjectStore;
import io.nats.client.PurgeOptions;
import io.nats.client.api.ObjectInfo;
import io.nats.client.api.ObjectMeta;
import io.nats.client.api.ObjectStoreConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.impl.Headers;
import io.tablecast.server.hub.ImageCopy;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.progress.Progress;
import io.tablecast.server.tail.CommittedBatch;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import org.slf4j.Logger;

/**
 * The checkpoint of a stream: every table's image at one stream sequence, written by a server as
 * one object ({@value #OBJECT}) of the object store bucket {@code <stream>_CHECKPOINT}, so that a
 * server that starts loads it and reads the stream after it instead of from its first message; and
 * the trimming of the stream it allows. The object's headers say the sequence, the previous
 * checkpoint's and the stream's epoch (a stream deleted and created again has another: its old
 * checkpoint is ignored). The images travel in {@link BatchCodec}'s layout, as whole-table reads.
 */
final class Checkpoints {
  private static final Logger LOG = RecentEvents.logger(Checkpoints.class);

  /** The object's name in the bucket: one checkpoint, replaced by the next. */
  static final String OBJECT = "checkpoint";

  static final String SEQUENCE = "Tablecast-Sequence";
  static final String PREVIOUS = "Tablecast-Previous-Sequence";
  static final String EPOCH = "Tablecast-Epoch";

  /** Largest chunk of the object: the object store's default, or less under a small max_payload. */
  private static final int CHUNK = 128 * 1024;

  /**
   * Where the latest checkpoint is.
   *
   * @param sequence the last stream sequence its images hold
   * @param previous the sequence of the checkpoint it replaced; 0 = none
   */
  record Info(long sequence, long previous) {}

  /** A checkpoint read back: where it is, and each table's rows at that sequence. */
  record Checkpoint(Info info, List<CommittedBatch.TableRead> tables) {}

  private Checkpoints() {}

  static String bucket(String stream) {
    return stream + "_CHECKPOINT";
  }

  /** The latest checkpoint of this epoch of {@code stream}, without its rows; null when none. */
  static Info info(Connection c, String stream, String epoch) throws IOException {
    ObjectStore store = store(c, stream, false);
    if (store == null) {
      return null;
    }
    try {
      return infoOf(store.getInfo(OBJECT), epoch);
    } catch (JetStreamApiException e) {
      throw NatsStreams.refused(c, bucket(stream), e);
    }
  }

  /** The latest checkpoint of this epoch of {@code stream} with its rows; null when none. */
  static Checkpoint read(Connection c, String stream, String epoch)
      throws IOException, InterruptedException {
    return read(c, stream, epoch, (kib, ofKib) -> {});
  }

  /** Told, as a checkpoint is read, the KiB read so far and its size. */
  interface Reading {
    void read(long kib, long ofKib);
  }

  /** As {@link #read(Connection, String, String)}, telling {@code reading} as it goes. */
  static Checkpoint read(Connection c, String stream, String epoch, Reading reading)
      throws IOException, InterruptedException {
    ObjectStore store = store(c, stream, false);
    if (store == null) {
      return null;
    }
    try {
      ObjectInfo stored = store.getInfo(OBJECT);
      Info info = infoOf(stored, epoch);
      if (info == null) {
        return null;
      }
      long ofKib = stored.getSize() >> 10;
      reading.read(0, ofKib);
      ByteArrayOutputStream bytes =
          new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
              super.write(b, off, len);
              reading.read(count >> 10, ofKib);
            }
          };
      ObjectInfo read;
      // a large image takes a while, and a starting server serves nothing meanwhile
      try (Progress progress =
          Progress.start(
              "checkpoint read from bucket " + bucket(stream),
              "KiB",
              stored.getSize() >> 10,
              LOG)) {
        progress.countFrom(() -> bytes.size() >> 10, () -> stored.getSize() >> 10);
        read = store.get(OBJECT, bytes);
      }
      Info same = infoOf(read, epoch);
      if (same == null) {
        return null; // replaced by another epoch's meanwhile
      }
      return new Checkpoint(same, BatchCodec.decode(bytes.toByteArray()).tableReads());
    } catch (JetStreamApiException e) {
      throw NatsStreams.refused(c, bucket(stream), e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256 for NATS object digests", e);
    }
  }

  /**
   * Writes {@code images} as the checkpoint of {@code stream}, replacing {@code previous}; returns
   * its size in bytes.
   */
  static long write(Connection c, String stream, String epoch, ImageCopy images, long previous)
      throws IOException {
    byte[] bytes = BatchCodec.encode(new CommittedBatch(List.of(), 0, images.tables()));
    Headers h = new Headers();
    h.put(SEQUENCE, Long.toString(images.position()));
    h.put(PREVIOUS, Long.toString(previous));
    h.put(EPOCH, epoch);
    int chunk = (int) Math.min(CHUNK, c.getServerInfo().getMaxPayload() - 1024);
    ByteArrayInputStream in = new ByteArrayInputStream(bytes);
    // in the background, but a large image takes a while: what it has sent shows
    try (Progress progress =
        Progress.start(
            "checkpoint written to bucket " + bucket(stream), "KiB", bytes.length >> 10, LOG)) {
      progress.countFrom(() -> (bytes.length - in.available()) >> 10, () -> bytes.length >> 10);
      store(c, stream, true)
          .put(ObjectMeta.builder(OBJECT).headers(h).chunkSize(chunk).build(), in);
      return bytes.length;
    } catch (JetStreamApiException e) {
      throw NatsStreams.refused(c, bucket(stream), e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256 for NATS object digests", e);
    }
  }

  /**
   * Removes the stream's messages below {@code keepFrom}: what a server needs is a checkpoint and
   * every message after it.
   */
  static void trim(Connection c, String stream, long keepFrom) throws IOException {
    try {
      c.jetStreamManagement()
          .purgeStream(stream, PurgeOptions.builder().sequence(keepFrom).build());
    } catch (JetStreamApiException e) {
      throw NatsStreams.refused(c, stream, e);
    }
  }

  private static Info infoOf(ObjectInfo o, String epoch) {
    if (o == null || o.isDeleted() || o.getHeaders() == null) {
      return null;
    }
    Headers h = o.getHeaders();
    if (!epoch.equals(h.getFirst(EPOCH)) || h.getFirst(SEQUENCE) == null) {
      return null;
    }
    return new Info(
        Long.parseLong(h.getFirst(SEQUENCE)),
        Long.parseLong(h.getFirst(PREVIOUS) == null ? "0" : h.getFirst(PREVIOUS)));
  }

  /** The bucket, created when {@code create}; null when it does not exist and is not created. */
  private static ObjectStore store(Connection c, String stream, boolean create) throws IOException {
    String bucket = bucket(stream);
    try {
      c.objectStoreManagement().getStatus(bucket);
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() != NatsStreams.STREAM_NOT_FOUND) {
        throw NatsStreams.refused(c, bucket, e);
      }
      if (!create) {
        return null;
      }
      try {
        c.objectStoreManagement()
            .create(
                ObjectStoreConfiguration.builder(bucket)
                    .storageType(StorageType.File)
                    .replicas(NatsStreams.replicas(c, stream))
                    .description("Tablecast checkpoints of NATS stream " + stream)
                    .build());
      } catch (JetStreamApiException created) {
        throw NatsStreams.refused(c, bucket, created);
      }
    }
    return c.objectStore(bucket);
  }
}

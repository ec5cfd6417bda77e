package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.hub.BatchHistory;
import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.hub.ImageCopy;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.TailSink;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * A server's change source when it serves from a NATS stream ({@code nats:} configured): the server
 * never reads the database. Its snapshot is the stream's latest checkpoint, or the snapshot capture
 * published first in the stream ({@link StreamStart}); its polls return the groups after it, each a
 * {@link CommittedBatch} exactly as capture read it. The hub gives each batch the stream sequence
 * of its group as position ({@link #into}), the same on every server of the stream, under an epoch
 * named after the stream: a client resumes on any of them.
 */
public final class StreamChangeSource implements ChangeSource {
  private static final Logger LOG = RecentEvents.logger(StreamChangeSource.class);

  private final Connection nats;
  private final String stream;
  private final String epoch;
  private final Duration checkpointInterval;
  private final Duration captureTakeover;
  private GroupReader reader;
  private final List<TableSchema> tables;
  private Map<TableSchema, List<byte[]>> snapshotRows;
  private final Set<String> refusedResyncs = ConcurrentHashMap.newKeySet();
  private final StalenessAcrossRuns runs = new StalenessAcrossRuns();
  private final CaptureAbsence captureAbsence;
  private final SilentConnectionCheck silence;
  private final Set<String> inheritedUnasked = ConcurrentHashMap.newKeySet();
  private volatile long sequence;

  /**
   * A group could not be read, and every table was said stale for it: later ones are logged only
   * (each would name its own sequence, and the hub tells every session a reason said again in other
   * words). Tail thread.
   */
  private boolean unreadableSaid;

  /** A source reading on from {@code sequence}, its images at start {@code snapshot}. */
  StreamChangeSource(
      Connection nats,
      String stream,
      String epoch,
      Duration checkpointInterval,
      Duration captureTakeover,
      GroupReader reader,
      Map<TableSchema, List<byte[]>> snapshot,
      long sequence) {
    this.nats = nats;
    this.stream = stream;
    this.epoch = epoch;
    this.checkpointInterval = checkpointInterval;
    this.captureTakeover = captureTakeover;
    this.reader = reader;
    this.snapshotRows = snapshot;
    this.tables = List.copyOf(snapshot.keySet());
    this.sequence = sequence;
    this.captureAbsence = CaptureAbsence.watch(nats, stream, captureTakeover);
    this.silence = new SilentConnectionCheck(nats, stream);
  }

  /**
   * Connects, waits for the stream and its first snapshot, and reads that snapshot, or the stream's
   * latest checkpoint ({@link StreamStart}).
   *
   * @param jdbcUrl the source's URL when configured (names the default stream), else null
   * @throws IllegalStateException when NATS refuses what retrying cannot fix (credentials,
   *     certificates), or the stream does not begin with a snapshot
   * @throws IllegalArgumentException when a setting names a bad seed, credentials or TLS file
   */
  public static StreamChangeSource open(NatsSettings settings, String jdbcUrl, String serverName)
      throws InterruptedException {
    return StreamStart.open(settings, jdbcUrl, serverName, doing -> {});
  }

  /**
   * As {@link #open(NatsSettings, String, String)}, telling {@code doing} what it does now (waits
   * for NATS, reads the checkpoint or the snapshot), for a starting server's {@code /health}: no
   * names, addresses or causes, which go to the log.
   */
  public static StreamChangeSource open(
      NatsSettings settings, String jdbcUrl, String serverName, Consumer<String> doing)
      throws InterruptedException {
    return StreamStart.open(settings, jdbcUrl, serverName, doing);
  }

  /** The epoch of every server of this stream: its name and creation time. */
  public String epoch() {
    return epoch;
  }

  /**
   * The stream as the hub's history: a client older than the resume buffer is replayed from it
   * (docs/SCALE-OUT.md).
   */
  public BatchHistory history() {
    return new StreamHistory(nats, stream);
  }

  /**
   * Asks the capture leader for a stream sequence that holds every change the database committed
   * before this call ({@link LeaderRequests}): read-your-writes for this server's clients. Any
   * thread.
   */
  public CompletableFuture<Long> committedSequence() {
    return LeaderRequests.ask(nats, stream, captureTakeover);
  }

  /** The stream sequence of the last group read. */
  public long sequence() {
    return sequence;
  }

  /** The hub as this source's sink: each batch takes its group's stream sequence as position. */
  public TailSink into(ChangeHub hub) {
    return new TailSink() {
      @Override
      public SnapshotLoad snapshotLoad(List<TableSchema> t) {
        SnapshotLoad load = hub.snapshotLoad(t);
        return new SnapshotLoad() {
          @Override
          public void row(TableSchema table, byte[] row) {
            load.row(table, row);
          }

          @Override
          public void install() {
            load.install();
            hub.publishAt(sequence, CommittedBatch.EMPTY); // the images are at this sequence
          }
        };
      }

      @Override
      public Set<String> publish(CommittedBatch batch) {
        return hub.publishAt(sequence, batch);
      }
    };
  }

  @Override
  public List<TableSchema> tables() {
    return tables;
  }

  @Override
  public void snapshot(SnapshotSink sink) {
    if (snapshotRows == null) {
      throw new IllegalStateException("the stream's snapshot was read already");
    }
    snapshotRows.forEach((t, rows) -> rows.forEach(r -> sink.row(t, r)));
    snapshotRows = null;
  }

  /**
   * The next whole group, as capture read it; fails while NATS is not connected, or when it does
   * not answer a ping after a quiet spell ({@link SilentConnectionCheck}), so the server says its
   * tables are stale when that lasts.
   */
  @Override
  public CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException {
    askForInherited();
    String noCapture = captureAbsence.take();
    if (noCapture != null) {
      LOG.error("{}", noCapture);
      List<CommittedBatch.Staleness> all = new ArrayList<>();
      tables.forEach(
          t ->
              all.add(
                  new CommittedBatch.Staleness(
                      t.id().qualified(), CaptureAbsence.CAUSE, noCapture)));
      return runs.saidByTheStream(all);
    }
    if (nats.getStatus() == Connection.Status.CONNECTED && silence.subscribeAgain()) {
      readOnFrom(sequence + 1, "after its connection was made again");
    }
    GroupReader.Group g = reader.next(maxWait);
    if (g == null) {
      if (nats.getStatus() != Connection.Status.CONNECTED) {
        throw new SQLTransientConnectionException(
            "NATS stream " + stream + ": the connection is " + nats.getStatus());
      }
      silence.check(reader.heardNanos()); // a quiet stream, or a connection gone silent
      return CommittedBatch.EMPTY;
    }
    if (GroupReader.GAP.equals(g.kind())) {
      return afterGap(g.sequence());
    }
    sequence = g.sequence();
    CommittedBatch batch;
    try {
      batch = BatchCodec.decode(g.payload());
    } catch (IllegalArgumentException e) {
      // never skipped silently: every table is stale until a server that reads it is started
      String reason =
          "the batch at sequence "
              + g.sequence()
              + " of NATS stream "
              + stream
              + " could not be read ("
              + e.getMessage()
              + "); restart this server with the version capture runs";
      LOG.error("{}", reason);
      if (unreadableSaid) {
        return CommittedBatch.EMPTY;
      }
      unreadableSaid = true;
      List<CommittedBatch.Staleness> all = new ArrayList<>();
      tables.forEach(
          t -> all.add(new CommittedBatch.Staleness(t.id().qualified(), UNREADABLE, reason)));
      return new CommittedBatch(List.of(), 0, List.of(), all);
    }
    return runs.take(g.run(), batch);
  }

  /**
   * Asks the capture leader to read again whole the tables an earlier capture run left stale
   * ({@link StalenessAcrossRuns}), at once after a new run began and then every few seconds until
   * read: they stay stale until then.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the reaction is the log line
  private void askForInherited() {
    for (String table : runs.toAsk(System.nanoTime())) {
      LeaderRequests.askReread(nats, stream, table)
          .whenComplete(
              (ok, failure) -> {
                if (failure == null) {
                  inheritedUnasked.remove(table);
                  LOG.info(
                      "asked the capture of NATS stream {} to read {} again: the capture before"
                          + " it stopped with the table stale",
                      stream,
                      table);
                } else if (inheritedUnasked.add(table)) {
                  LOG.warn(
                      "{} stays stale: the capture of NATS stream {} before this one stopped with"
                          + " it stale, and asking the leader to read it again failed ({});"
                          + " asking again every {} s",
                      table,
                      stream,
                      (failure.getCause() != null ? failure.getCause() : failure).getMessage(),
                      StalenessAcrossRuns.ASK_AGAIN_NANOS / 1_000_000_000L);
                }
              });
    }
  }

  /**
   * A poll while NATS is away fails on the client's own connection state, without a round trip (the
   * client reconnects by itself): retrying every second costs nothing, and the server reads the
   * stream again within about a second of NATS coming back, where the database's ten seconds left
   * it stale up to ten.
   */
  @Override
  public Duration longestRetryPause() {
    return Duration.ofSeconds(1);
  }

  /** The cause of the staleness of every table after a group this server cannot read. */
  static final String UNREADABLE = "stream";

  /** Reads the stream on from sequence {@code from} with a new subscription. */
  private void readOnFrom(long from, String when) throws SQLTransientConnectionException {
    try {
      GroupReader after = new GroupReader(nats, stream, from);
      reader.close();
      reader = after;
    } catch (IOException | RuntimeException e) {
      throw new SQLTransientConnectionException(
          "NATS stream " + stream + ": cannot read on " + when + ": " + e, e);
    }
  }

  /** The cause of the staleness of every table after messages it missed were removed. */
  static final String GAP = "stream-gap";

  /**
   * Messages this server had not read were removed from the stream before {@code next} (it fell
   * further behind than the stream keeps): its images are replaced by the latest checkpoint (a
   * resync: clients receive only the rows that differ) and the stream is read on after it. Without
   * a checkpoint that covers the gap, every table is stale: its mirrors miss what was removed.
   */
  private CommittedBatch afterGap(long next) throws SQLException, InterruptedException {
    Checkpoints.Checkpoint checkpoint;
    try {
      checkpoint = Checkpoints.read(nats, stream, epoch);
    } catch (IOException | RuntimeException e) {
      throw new SQLTransientConnectionException(
          "NATS stream " + stream + ": cannot read its checkpoint after a gap: " + e, e);
    }
    List<CommittedBatch.Staleness> staleness = new ArrayList<>();
    if (checkpoint == null || checkpoint.info().sequence() + 1 < next) {
      String reason =
          "NATS stream "
              + stream
              + " no longer holds the messages before sequence "
              + next
              + " that this server had not read, and no checkpoint covers them; restart this"
              + " server (it starts from the latest checkpoint)";
      LOG.error("{}", reason);
      tables.forEach(
          t -> staleness.add(new CommittedBatch.Staleness(t.id().qualified(), GAP, reason)));
      return new CommittedBatch(List.of(), 0, List.of(), staleness);
    }
    long from = checkpoint.info().sequence() + 1;
    LOG.warn(
        "NATS stream {} no longer holds the messages before sequence {} that this server had not"
            + " read: its images are replaced by the checkpoint at sequence {}",
        stream,
        next,
        checkpoint.info().sequence());
    readOnFrom(from, "after its checkpoint");
    sequence = checkpoint.info().sequence();
    tables.forEach(t -> staleness.add(new CommittedBatch.Staleness(t.id().qualified(), GAP, null)));
    staleness.addAll(runs.forgetAtCheckpoint());
    return new CommittedBatch(List.of(), 0, checkpoint.tables(), staleness);
  }

  /** The stream's latest checkpoint of this epoch, without its rows; null when none. */
  Checkpoints.Info checkpointInfo() throws IOException {
    return Checkpoints.info(nats, stream, epoch);
  }

  /** Writes {@code images} as the stream's checkpoint; returns its size in bytes. */
  long writeCheckpoint(ImageCopy images, long previous) throws IOException {
    return Checkpoints.write(nats, stream, epoch, images, previous);
  }

  /** Removes the stream's messages up to {@code checkpoint}, the sequence of a checkpoint. */
  void trim(long checkpoint) throws IOException {
    Checkpoints.trim(nats, stream, checkpoint + 1);
  }

  /** Starts writing this server's images as the stream's checkpoint every interval. */
  public CheckpointWriter checkpoints(ChangeHub hub) {
    return CheckpointWriter.start(this, hub, checkpointInterval);
  }

  /**
   * An image of this server could not take a change: the capture leader is asked to read {@code
   * table} again ({@link LeaderRequests}), and every server reconciles its image with that read.
   * When no leader takes the request, the table stays stale (said once per table) until capture's
   * reconciliation reads it.
   */
  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // the reaction is the log line
  public void resync(String table) {
    LeaderRequests.askReread(nats, stream, table)
        .whenComplete(
            (ok, failure) -> {
              if (failure == null) {
                LOG.info("asked the capture of NATS stream {} to read {} again", stream, table);
              } else if (refusedResyncs.add(table)) {
                LOG.warn(
                    "the image of {} could not take a change from NATS stream {}, and {}: the"
                        + " table stays stale until capture's reconciliation reads it",
                    table,
                    stream,
                    (failure.getCause() != null ? failure.getCause() : failure).getMessage());
              }
            });
  }

  @Override
  public void close() {
    captureAbsence.close();
    reader.close();
    try {
      nats.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "NATS stream " + stream;
  }
}

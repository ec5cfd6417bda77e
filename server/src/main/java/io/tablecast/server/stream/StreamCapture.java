package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamInfo;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.ForwardingChangeSource;
import io.tablecast.server.tail.ReadBarrier;
import io.tablecast.server.tail.TailLoop;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;

/**
 * {@code tablecast capture}: tails one database with the server's own tail (gap resolution,
 * snapshots, reconciliation reads) and publishes every committed batch to the database's NATS
 * JetStream stream ({@link CaptureSink}), where any number of servers read it. At start it finds
 * the source cursor recorded with the last whole batch in the stream and resumes after it, so a
 * restarted capture neither loses nor repeats a change, and reads every table whole with its first
 * poll (what changed while no capture ran and rows cannot describe); without one (an empty stream,
 * or a database whose source has no cursor) it takes a snapshot and publishes it. The outbox is
 * pruned by capture alone, up to what the stream acknowledged.
 */
public final class StreamCapture implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(StreamCapture.class);

  /** How many messages back from the stream's end capture looks for the last cursor. */
  static final int CURSOR_LOOKBACK = 10_000;

  private final Connection nats;
  private final ChangeSource source;
  private final GroupPublisher publisher;
  private final TailLoop tail;
  private final CountDownLatch terminated = new CountDownLatch(1);
  private volatile RuntimeException fenced;
  private volatile boolean resumed;
  private final List<Dispatcher> answering = new CopyOnWriteArrayList<>();
  private boolean closed;

  private StreamCapture(
      Connection nats, ChangeSource source, GroupPublisher publisher, TailLoop tail) {
    this.nats = nats;
    this.source = source;
    this.publisher = publisher;
    this.tail = tail;
  }

  /**
   * Connects to NATS, creates the stream when missing, opens the database and starts publishing.
   *
   * @throws IllegalStateException when NATS or the database cannot be reached or refuse
   */
  public static StreamCapture start(SourceConfig config, NatsSettings settings, String name)
      throws InterruptedException {
    String stream = settings.streamName(config.jdbcUrl());
    Connection nats = NatsStreams.connect(settings, name + "-capture");
    ChangeSource source = null;
    try {
      StreamInfo info = NatsStreams.createIfMissing(nats, stream, settings);
      long last = info.getStreamState().getLastSequence();
      String cursor = lastCursor(nats, stream, info);
      source = ChangeSources.open(config, ServerMetrics.NOOP, name + "-capture");
      GroupPublisher publisher =
          new GroupPublisher(nats, stream, last, UUID.randomUUID().toString());
      StreamCapture[] self = new StreamCapture[1];
      CaptureSink sink = new CaptureSink(publisher, source, e -> self[0].fence(e));
      Queue<String> rereads = new ConcurrentLinkedQueue<>();
      Resuming resuming = new Resuming(source, cursor, sink, rereads);
      TailLoop tail = new TailLoop(resuming, sink);
      self[0] = new StreamCapture(nats, source, publisher, tail);
      // the leader answers the servers' requests: tables to read again, taken from before its
      // first group (a server asks for those the run before left stale as soon as it sees one),
      // and read-your-writes
      Optional<ReadBarrier> barrier = source.readBarrier();
      self[0].answering.add(
          LeaderRequests.answerRereads(
              nats,
              stream,
              table -> {
                if (!rereads.contains(table)) { // several servers ask for the same table
                  rereads.add(table); // read with the tail's next poll, which the request wakes
                }
                barrier.ifPresent(StreamCapture::wake);
              }));
      tail.startAndAwaitSnapshot();
      self[0].resumed = sink.resumed();
      barrier.ifPresent(
          b ->
              self[0].answering.add(
                  LeaderRequests.answer(nats, stream, b, publisher::lastSequence)));
      LOG.info(
          "capture of {} publishing to NATS stream {} at {} after sequence {} ({})",
          config,
          stream,
          nats.getConnectedUrl(),
          last,
          self[0].resumed ? "resumed after the cursor of the last batch" : "snapshot published");
      return self[0];
    } catch (IOException | SQLException | RuntimeException e) {
      if (source != null) {
        source.close();
      }
      nats.close();
      throw new IllegalStateException("capture to NATS stream " + stream + " failed: " + e, e);
    }
  }

  /** Makes an idle tail poll at once: a request its next read answers (nobody waits for it). */
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void wake(ReadBarrier barrier) {
    barrier.request();
  }

  /** The cursor on the stream's last whole batch, or null (a snapshot is needed). */
  private static String lastCursor(Connection nats, String stream, StreamInfo info)
      throws IOException {
    long first = info.getStreamState().getFirstSequence();
    long last = info.getStreamState().getLastSequence();
    for (long seq = last; seq >= Math.max(first, 1) && seq > last - CURSOR_LOOKBACK; seq--) {
      MessageInfo m;
      try {
        m = nats.jetStreamManagement().getMessage(stream, seq);
      } catch (JetStreamApiException e) {
        continue; // deleted
      }
      String cursor = m.getHeaders() == null ? null : m.getHeaders().getFirst(StreamHeaders.CURSOR);
      if (cursor != null) {
        return cursor;
      }
    }
    return null;
  }

  /** A publisher appended after this capture: it stops, and {@link #fenced()} says why. */
  private void fence(RuntimeException e) {
    fenced = e;
    LOG.error("{}", e.getMessage());
    Thread closer = new Thread(this::close, "tablecast-capture-fenced");
    closer.setDaemon(true);
    closer.start();
  }

  /** Why capture stopped on its own: another publisher appended to the stream; null otherwise. */
  public RuntimeException fenced() {
    return fenced;
  }

  /**
   * True when this capture resumed after the cursor of the last batch in the stream; false when it
   * published a snapshot (an empty stream, or a source without cursors).
   */
  public boolean resumed() {
    return resumed;
  }

  /** The stream sequence of the last message this capture stored. */
  public long lastSequence() {
    return publisher.lastSequence();
  }

  /**
   * True while a batch NATS did not acknowledge (NATS down or restarting) is being published again;
   * the tail waits meanwhile, and the outbox keeps the changes.
   */
  public boolean waitingForNats() {
    return publisher.retrying();
  }

  /**
   * True when the tail stopped on an unexpected error (logged): this capture publishes no more
   * until it is started again.
   */
  public boolean tailDied() {
    return tail.died();
  }

  /**
   * Why this capture's tail is not reading the database's changes now, or null ({@link
   * TailLoop#problem}).
   */
  public String tailProblem() {
    return tail.problem();
  }

  /** True once this capture stopped: closed, or fenced by another publisher. */
  public boolean stopped() {
    return terminated.getCount() == 0;
  }

  /** Blocks until {@link #close()} completed (the command line waits here). */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  /** Stops publishing (a group in progress is left for the next capture), closes everything. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      stopAnswering();
      publisher.close();
      tail.close();
      source.close();
      try {
        nats.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      LOG.info("capture stopped");
    } finally {
      terminated.countDown();
    }
  }

  /**
   * Stops taking the servers' requests, and makes sure NATS knows before the tail stops: a request
   * taken now would never be answered, while one NATS has nobody for fails at once, or reaches the
   * next leader.
   */
  private void stopAnswering() {
    try {
      answering.forEach(nats::closeDispatcher);
      if (nats.getStatus() == Connection.Status.CONNECTED) { // else NATS forgot them already
        nats.flush(Duration.ofSeconds(2));
      }
    } catch (TimeoutException | RuntimeException e) {
      LOG.debug("NATS did not confirm that capture stopped answering requests: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The database source, whose snapshot is, when the stream holds a cursor, a resume after it
   * (nothing to publish) instead of a read of every table.
   */
  private static final class Resuming extends ForwardingChangeSource {
    private final String cursor;
    private final CaptureSink sink;
    private final Queue<String> rereads;

    Resuming(ChangeSource source, String cursor, CaptureSink sink, Queue<String> rereads) {
      super(source);
      this.cursor = cursor;
      this.sink = sink;
      this.rereads = rereads;
    }

    @Override
    public void snapshot(SnapshotSink rows) throws SQLException {
      if (cursor != null) {
        try {
          resumeAfter(cursor);
          sink.resuming(true);
          // what changed while no capture ran, or what the capture before had not acted upon yet,
          // and rows cannot describe (an ALTER TABLE, a MySQL/MariaDB TRUNCATE, a partition
          // attached): every table is read whole with the first poll, the servers publishing the
          // differences
          tables().forEach(t -> resync(t.id().qualified()));
          return;
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
          LOG.info("{}: taking a snapshot", e.getMessage());
        }
      }
      sink.resuming(false);
      super.snapshot(rows);
    }

    /** Polls, the tables servers asked to re-read queued first (tail thread). */
    @Override
    public CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException {
      for (String table; (table = rereads.poll()) != null; ) {
        LOG.info("a server asked for {} to be read again: it is read with the next poll", table);
        resync(table);
      }
      return super.poll(maxWait);
    }
  }
}

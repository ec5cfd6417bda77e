package io.tablecast.server.tail;

import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;

/**
 * What every database's {@link ChangeSource} shares, written once: the snapshot comes before any
 * poll; the outbox pruner starts once the snapshot is read (it then knows what was delivered); a
 * poll reads the outbox until a read returns a batch or the poll's deadline has passed, pausing
 * between empty reads as the {@link PollSchedule} says ({@code min_poll_interval} while changes
 * keep arriving, doubling up to {@code max_poll_interval} once none came for {@code
 * poll_idle_after}); after a read that found rows the next poll first pauses as after an empty one
 * while changes arrive (at once with {@code poll_idle_after: 0s}). A database family says how to
 * read its snapshot ({@link #readSnapshot}) and the outbox once ({@link #readOnce}), and what the
 * pruner deletes ({@link #pruneChunk}) and counts ({@link #backlog}).
 *
 * <p>Not thread-safe, like {@link ChangeSource}: one thread takes the snapshot, then polls; only
 * {@link #pruneChunk} and {@link #backlog} run on the pruner's thread.
 */
public abstract class PollingChangeSource implements ChangeSource {
  private static final Logger LOG = RecentEvents.logger(PollingChangeSource.class);

  /** The tail's clock and sleep, replaced in tests to drive the schedule without waiting. */
  interface Ticker {
    Ticker SYSTEM =
        new Ticker() {
          @Override
          public long nanoTime() {
            return System.nanoTime();
          }

          @Override
          public void sleep(long nanos, ReadBarrier wake) throws InterruptedException {
            wake.await(nanos);
          }
        };

    long nanoTime();

    /** Waits {@code nanos}, or less when {@code wake} gets a request the last read missed. */
    void sleep(long nanos, ReadBarrier wake) throws InterruptedException;
  }

  private final HikariDataSource pool;
  private final PollSchedule schedule;
  private final OutboxPruner pruner;
  private final ServerMetrics metrics;
  private final ReadBarrier barrier = new ReadBarrier();
  private final InstanceWatch instance;

  /** The tables this source reads whole within a poll, and the one it reads now. */
  protected final WholeReads wholeReads = new WholeReads();

  private final SlowReads slowReads = new SlowReads();
  private final LostAnswers lostAnswers;
  private final Duration answerTimeout;
  private Ticker ticker = Ticker.SYSTEM;
  private boolean started;

  /** The last read found rows: the next poll pauses until {@link #readAfterNanos} first. */
  private boolean pauseOwed;

  private long readAfterNanos;

  /**
   * @param pool the source's connections, closed with it
   * @param config its {@code min_poll_interval}, {@code max_poll_interval} and {@code
   *     poll_idle_after} set the pauses between empty reads, its {@code answer_timeout} how long a
   *     statement may go unanswered
   * @param pruneRest how long the pruner rests after a round that found less than a chunk
   */
  protected PollingChangeSource(
      HikariDataSource pool, SourceConfig config, ServerMetrics metrics, Duration pruneRest) {
    this(pool, config, metrics, pruneRest, null, null);
  }

  /**
   * As above, telling the database instances the tail reads from apart with {@code identify}
   * ({@link InstanceWatch}), and a read whose answer was lost from a slow one with {@code sessions}
   * ({@link LostAnswers}); either null does without.
   */
  protected PollingChangeSource(
      HikariDataSource pool,
      SourceConfig config,
      ServerMetrics metrics,
      Duration pruneRest,
      InstanceWatch.Identify identify,
      SessionProbe sessions) {
    this.instance = new InstanceWatch(identify);
    this.lostAnswers = sessions == null ? null : new LostAnswers(pool, sessions, instance);
    this.pool = pool;
    this.metrics = metrics;
    this.answerTimeout = config.answerTimeout();
    this.schedule =
        new PollSchedule(
            config.minPollInterval(), config.maxPollInterval(), config.pollIdleAfter());
    // called on the pruner's thread, which starts only once the snapshot is read: after
    // construction
    this.pruner =
        new OutboxPruner(
            pool, this::pruneChunk, this::backlog, metrics, pruneRest, config.longAnswerTimeout());
  }

  /** Tests: the clock and sleep of {@link #poll}. */
  void ticker(Ticker ticker) {
    this.ticker = ticker;
  }

  @Override
  public final void snapshot(SnapshotSink sink) throws SQLException {
    try {
      readSnapshot(sink);
    } finally {
      if (lostAnswers != null) {
        lostAnswers.readEnded();
      }
    }
    started = true;
    pruner.start();
  }

  /**
   * The position ({@link #position()}) with the database instance it was read from: a later run
   * resumes after it only on that instance ({@link #resumeAfter}).
   */
  @Override
  public final String cursor() {
    return InstanceCursor.join(position(), instance.readFrom());
  }

  @Override
  public final String wholeReadNow() {
    return wholeReads.now();
  }

  /** The position after the last read as text {@link #resumeAt} takes; null by default. */
  protected String position() {
    return null;
  }

  @Override
  public final void acknowledged(String cursor) {
    acknowledgedAt(InstanceCursor.parse(cursor).position());
  }

  /** A downstream stream stored everything up to {@code position} ({@link #acknowledged}). */
  protected void acknowledgedAt(String position) {}

  /**
   * @throws IllegalArgumentException also when {@code cursor} was read from another database
   *     instance than the one reached now (a failover, a restore, a restart since): its position
   *     means nothing here, and the caller takes a snapshot instead
   */
  @Override
  public final void resumeAfter(String cursor) throws SQLException {
    InstanceCursor at = InstanceCursor.parse(cursor);
    if (at.instance() != null) {
      DatabaseInstance now;
      try (Connection c = pool.getConnection()) {
        now = instance.identify(c);
      }
      if (now != null && !now.sameAs(at.instance())) {
        throw new IllegalArgumentException(
            "the cursor was read from "
                + at.instance()
                + ", and the database is "
                + now
                + " now (a failover, a restore or a restart since)");
      }
    }
    resumeAt(at.position());
    started = true;
    pruner.start();
  }

  /**
   * Positions the source after {@code cursor} ({@link ChangeSource#resumeAfter}); a family whose
   * {@link #cursor()} is null does not override it.
   */
  protected void resumeAt(String cursor) throws SQLException {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " cannot resume after a cursor; take a snapshot");
  }

  @Override
  public final CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException {
    if (!started) {
      throw new IllegalStateException("snapshot() must be called before poll()");
    }
    long deadline = ticker.nanoTime() + maxWait.toNanos();
    if (pauseOwed) { // the last read found rows: let the next ones gather, as between empty reads
      pauseOwed = false;
      long pause = Math.min(readAfterNanos, deadline) - ticker.nanoTime();
      if (pause > 0) {
        ticker.sleep(pause, barrier);
      }
    }
    while (true) {
      barrier.beforeRead();
      long began = ticker.nanoTime();
      CommittedBatch batch;
      try {
        batch = instance.changed() ? readWholeAgain() : readOnce();
      } catch (SQLException | RuntimeException e) {
        readFailed();
        throw e;
      } finally {
        if (lostAnswers != null) {
          lostAnswers.readEnded();
        }
      }
      long now = ticker.nanoTime();
      metrics.outboxRead(now - began);
      if (batch.tableReads().isEmpty()) { // a table read takes as long as the table is large
        String slow = slowReads.read(now - began, batch.events().size(), now);
        if (slow != null) {
          LOG.warn("{}. {}", slow, readPlan());
        }
      }
      if (!batch.isEmpty()) {
        schedule.foundRows(now);
        long pause = schedule.pauseAfterRows();
        pauseOwed = pause > 0;
        readAfterNanos = now + pause;
        return batch;
      }
      long remaining = deadline - now;
      if (remaining <= 0 || barrier.lastReadAnswers()) {
        return CommittedBatch.EMPTY; // (a sync request: its answer is this empty read)
      }
      ticker.sleep(Math.min(remaining, schedule.pauseAfterEmptyRead(now)), barrier);
    }
  }

  /**
   * After a read met another database instance ({@link InstanceWatch}), or the outbox's positions
   * began again: every cached table read whole in one snapshot ({@link #readSnapshot}), which
   * positions the source there, handed on as one batch of resync reads (the hub publishes the
   * differences, as for any resync).
   */
  protected final CommittedBatch readWholeAgain() throws SQLException {
    Map<TableSchema, List<byte[]>> rows = new LinkedHashMap<>();
    // as long as a snapshot, and the tail waits for it: its progress shows as a snapshot's does
    try (WholeReads.Read read = wholeReads.start("re-read of every table")) {
      readSnapshot(
          new SnapshotSink() {
            @Override
            public void reading(TableSchema table) {
              rows.put(table, new ArrayList<>());
              read.reading(table.id().qualified());
            }

            @Override
            public void row(TableSchema table, byte[] row) {
              rows.computeIfAbsent(table, t -> new ArrayList<>()).add(row);
              read.row();
            }
          });
    }
    List<CommittedBatch.TableRead> reads = new ArrayList<>();
    // only the tables read: one left out (gone under its name) keeps its rows, stale
    rows.forEach(
        (t, read) ->
            reads.add(new CommittedBatch.TableRead(t, read, CommittedBatch.Purpose.RESYNC)));
    return withStaleness(new CommittedBatch(List.of(), 0, reads));
  }

  /**
   * {@code read}, the batch of {@link #readWholeAgain}, with the staleness its read found: the
   * tables it left out (gone, altered so that they cannot be cached, or waiting beside the tail for
   * their lock or their read's grant) are said stale with the rows of the others, not after them.
   */
  protected CommittedBatch withStaleness(CommittedBatch read) {
    return read;
  }

  /** A read of the outbox (or of every table again) failed; its error is thrown on. */
  protected void readFailed() {}

  /**
   * {@code c}, which a read of the outbox is about to use, when it reaches the instance the
   * position belongs to; otherwise {@code c} is closed and the read refused ({@link
   * InstanceWatch#check}).
   */
  protected final Connection reading(Connection c) throws SQLException {
    return readingAgain(instance.check(c));
  }

  /**
   * {@code c}, which a read of the outbox is about to use again (a transaction an earlier read left
   * open): the connection a read whose answer was lost is aborted on ({@link
   * #abandonReadIfAnswerLost}).
   */
  protected final Connection readingAgain(Connection c) throws SQLException {
    if (lostAnswers != null) {
      lostAnswers.reading(c);
    }
    return c;
  }

  /**
   * The source's connections for the short statements a poll makes besides its read, watched as the
   * read is ({@link WatchedConnections}).
   */
  protected final WatchedConnections watched() {
    return () -> readingAgain(pool.getConnection());
  }

  /**
   * Ends on the database's side the session of a reconciliation range given up without an answer
   * ({@link DriftCheck#readOffPath}), when it has waited half the range's bound ({@code
   * answer_timeout}) for its client.
   */
  protected final AbandonedSessions abandonedRanges() {
    long idleSeconds = Math.max(1, answerTimeout.toSeconds() / 2);
    return lostAnswers == null
        ? AbandonedSessions.NONE
        : c -> lostAnswers.abandoning(c, idleSeconds);
  }

  @Override
  public final Duration answerTimeout() {
    return answerTimeout;
  }

  @Override
  public final String abandonReadIfAnswerLost(long idleSeconds) throws SQLException {
    return lostAnswers == null ? null : lostAnswers.abandonIfLost(idleSeconds);
  }

  /**
   * Which instance the source reads from: {@link #readSnapshot} identifies its connection and, once
   * read, makes it the one the position belongs to.
   */
  protected final InstanceWatch instance() {
    return instance;
  }

  /** Reads that begin after a request answer it; a request cuts the pause between reads short. */
  @Override
  public final Optional<ReadBarrier> readBarrier() {
    return Optional.of(barrier);
  }

  /**
   * What the database says of its plan for the next read of the outbox, for the warning about slow
   * reads ({@link SlowReads}); a family that cannot say keeps this default.
   */
  protected String readPlan() {
    return "Look at the database's load, and at its plan for the tail's read of the outbox";
  }

  /**
   * Reads every row of every cached table in one consistent read into {@code sink} and positions
   * the source exactly after it ({@link ChangeSource#snapshot}).
   */
  protected abstract void readSnapshot(SnapshotSink sink) throws SQLException;

  /**
   * Reads the outbox once: the transactions committed since the last read, whole, or {@link
   * CommittedBatch#EMPTY}. A database error must leave the position unchanged, so that the next
   * read reads the same again.
   */
  protected abstract CommittedBatch readOnce() throws SQLException;

  /**
   * Deletes at most {@code limit} delivered outbox rows older than the retention; returns how many.
   */
  protected abstract int pruneChunk(Connection c, int limit) throws SQLException;

  /** Counts committed outbox rows not read yet (capped), or -1 while that is not known. */
  protected abstract long backlog(Connection c) throws SQLException;

  /**
   * Stops the pruner and closes the pool; a source with more to stop stops it first, then calls
   * this.
   */
  @Override
  public void close() {
    pruner.close();
    pool.close();
  }
}

package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * A resume from a position older than the {@link ResumeBuffer}, replayed from the {@link
 * BatchHistory} (the stream) up to the position the hub had when it accepted the resume; the
 * batches after that position are held back meanwhile and follow the replay ({@link CatchUps}), so
 * the client joins the live stream with no gap and no duplicate. Decided on the first frame, on the
 * catch-up executor, never on the hub thread: the history is read once through, each batch turned
 * into its changes ({@link HistoryChanges}) and kept while they fit in {@link #RETAINED_BYTES};
 * when a batch is gone from the history or cannot be replayed, the session gets the snapshot taken
 * at that same position instead. A replay larger than that is read again as the client takes it.
 */
final class StreamResume implements CatchUpSender.Frames, AutoCloseable {

  private static final Logger LOG = RecentEvents.logger(StreamResume.class);

  /** The changes of one replay kept in memory after the first read; beyond, it is read again. */
  static final long RETAINED_BYTES = 32L << 20;

  /** How often a long replay says how far it got. */
  static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final Subscriber session;
  private final Message.Resumed resumed;
  private final long through;
  private final BatchHistory history;
  private final HistoryChanges changes;
  private final Map<String, List<String>> primaryKeys;
  private final SnapshotFrames snapshot;
  private final ServerMetrics metrics;

  /** The changes kept after the first read; {@link #RETAINED_BYTES} but in tests. */
  private final long retainedBytes;

  /** What is written: the replay or the snapshot; null until decided. */
  private CatchUpSender.Frames frames;

  /** The second read of a replay too large to keep; null otherwise. */
  private BatchHistory.Reading again;

  StreamResume(
      Subscriber session,
      Message.Resumed resumed,
      long through,
      BatchHistory history,
      HistoryChanges changes,
      Map<String, List<String>> primaryKeys,
      SnapshotFrames snapshot,
      ServerMetrics metrics) {
    this(
        session,
        resumed,
        through,
        history,
        changes,
        primaryKeys,
        snapshot,
        metrics,
        RETAINED_BYTES);
  }

  StreamResume(
      Subscriber session,
      Message.Resumed resumed,
      long through,
      BatchHistory history,
      HistoryChanges changes,
      Map<String, List<String>> primaryKeys,
      SnapshotFrames snapshot,
      ServerMetrics metrics,
      long retainedBytes) {
    this.retainedBytes = retainedBytes;
    this.session = session;
    this.resumed = resumed;
    this.through = through;
    this.history = history;
    this.changes = changes;
    this.primaryKeys = primaryKeys;
    this.snapshot = snapshot;
    this.metrics = metrics;
  }

  @Override
  public Message next() {
    if (frames == null) {
      frames = decide();
    }
    return frames.next();
  }

  /** Reads the history through once: the replay when every batch is there and replayable. */
  private CatchUpSender.Frames decide() {
    long after = resumed.position();
    long t0 = System.nanoTime();
    List<ResumeBuffer.Retained> kept = new ArrayList<>();
    long bytes = 0;
    long batches = 0;
    try (BatchHistory.Reading reading = history.read(after, through)) {
      Progress progress = new Progress("read", after);
      for (BatchHistory.Positioned b; (b = reading.next()) != null; ) {
        ResumeBuffer.Retained r = changes.changes(b);
        batches++;
        if (kept != null && !r.isEmpty()) {
          bytes += r.approxBytes();
          kept = bytes > retainedBytes ? null : kept;
          if (kept != null) {
            kept.add(r);
          }
        }
        progress.at(b.position());
      }
    } catch (HistoryChanges.Refused | IOException | RuntimeException e) {
      LOG.info(
          "{} cannot resume {} from position {} by reading the stream ({}); sending a snapshot"
              + " at position {}",
          session,
          resumed.tables(),
          after,
          e.getMessage(),
          through);
      return snapshot;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the stream", e);
    }
    metrics.resumedFromStream();
    LOG.info(
        "{} resumes {} from position {}, older than the resume buffer: {} batches up to position {}"
            + " read from the stream in {} ms{}",
        session,
        resumed.tables(),
        after,
        batches,
        through,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
        kept == null ? ", too many to keep: read again as the client takes them" : "");
    Iterator<ResumeBuffer.Retained> replayed = kept != null ? kept.iterator() : new ReadAgain();
    return new ResumeReplay(session, resumed, replayed, primaryKeys, "batches of the stream");
  }

  /** Closes the second read, if any (the catch-up ended). */
  @Override
  public void close() {
    BatchHistory.Reading r = again;
    if (r != null) {
      r.close();
    }
  }

  /**
   * The batches read from the history a second time, one at a time: a batch gone or changed since
   * the first read ends the session with an error (the client resumes again, from the position it
   * reached).
   */
  private final class ReadAgain implements Iterator<ResumeBuffer.Retained> {
    private final Progress progress = new Progress("replayed", resumed.position());
    private ResumeBuffer.Retained next;
    private boolean ended;

    @Override
    public boolean hasNext() {
      if (next == null && !ended) {
        try {
          if (again == null) {
            again = history.read(resumed.position(), through);
          }
          BatchHistory.Positioned b = again.next();
          if (b == null) {
            ended = true;
            close();
          } else {
            next = changes.changes(b);
            progress.at(b.position());
          }
        } catch (HistoryChanges.Refused | IOException e) {
          throw new IllegalStateException(
              "the stream changed while it was replayed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while replaying the stream", e);
        }
      }
      return next != null;
    }

    @Override
    public ResumeBuffer.Retained next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      ResumeBuffer.Retained r = next;
      next = null;
      return r;
    }
  }

  /** Logs how far a long replay got, at most every {@link #PROGRESS_NANOS}. */
  private final class Progress {
    private final String what;
    private final long from;
    private long last = System.nanoTime();

    Progress(String what, long from) {
      this.what = what;
      this.from = from;
    }

    void at(long position) {
      long now = System.nanoTime();
      if (now - last >= PROGRESS_NANOS) {
        last = now;
        LOG.info(
            "resume of {} from position {}: {} up to position {} of {}",
            session,
            from,
            what,
            position,
            through);
      }
    }
  }
}

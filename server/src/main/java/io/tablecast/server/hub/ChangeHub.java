package io.tablecast.server.hub;

import io.netty.channel.Channel;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.server.ServerMetrics;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the table images, the position counter, the resume buffer and the sessions, all on one
 * thread ({@code tablecast-hub}); every public method hands its work to that thread. The work is
 * split by responsibility: {@link FanOut} (encode once, send to every session, heartbeats),
 * {@link Subscriptions} (subscribes, snapshots and resume replays) and
 * {@link SlowConsumerPolicy} (coalescing, dropping). Snapshots, replays and batches too large for
 * one frame ({@link BatchParts}) are encoded and written by {@link CatchUpSender}s on a small
 * shared pool, only while the client reads ({@link CatchUps}).
 */
public final class ChangeHub implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ChangeHub.class);

  /** Threads that encode and write snapshots and resume replays; they never wait for a client. */
  static final int CATCH_UP_THREADS = 2;

  private final String epoch = UUID.randomUUID().toString();
  private final ServerMetrics metrics;
  private final ScheduledThreadPoolExecutor hub;
  private final ExecutorService catchUps;
  private final ResumeBuffer resume;
  private final TableImages images = new TableImages();
  private final DriftPasses driftPasses = new DriftPasses();
  private final TableReads tableReads;
  private final StaleTables stale;
  private final Set<Subscriber> sessions = new LinkedHashSet<>();
  private final SessionLimits limits;
  private final SlowConsumerPolicy slow;
  private final FanOut fanOut;
  private final Subscriptions subscriptions;
  private volatile long position;

  /**
   * @param heartbeat a session sent nothing for this long gets an empty batch (or a ping while
   *     its snapshot or resume replay is queued or being written)
   * @param resumeBatches resume buffer bound in batches
   * @param resumeBytes resume buffer bound in approximate bytes
   * @param maxPendingBytes slow-consumer limit per session
   */
  public ChangeHub(Duration heartbeat, int resumeBatches, long resumeBytes, long maxPendingBytes) {
    this(heartbeat, resumeBatches, resumeBytes, maxPendingBytes, ServerMetrics.inMemory());
  }

  /** As above, recording into {@code metrics}. */
  public ChangeHub(Duration heartbeat, int resumeBatches, long resumeBytes, long maxPendingBytes,
      ServerMetrics metrics) {
    this.metrics = metrics;
    this.resume = new ResumeBuffer(resumeBatches, resumeBytes, 0);
    this.limits = new SessionLimits(maxPendingBytes);
    this.hub = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "tablecast-hub"));
    hub.setRemoveOnCancelPolicy(true); // cancelled catch-up deadlines do not keep their sessions reachable
    this.catchUps = Executors.newFixedThreadPool(CATCH_UP_THREADS, r -> daemon(r, "tablecast-snapshot"));
    this.slow = new SlowConsumerPolicy(images, limits, metrics);
    this.tableReads = new TableReads(images, driftPasses, metrics, this::schemaChanged);
    this.stale = new StaleTables(metrics);
    long heartbeatNanos = heartbeat.toNanos();
    CatchUps catchUpStarts = new CatchUps(catchUps, hub, limits);
    this.fanOut = new FanOut(images, slow, catchUpStarts, heartbeatNanos);
    this.subscriptions = new Subscriptions(epoch, images, resume, () -> position, limits, slow, metrics,
        catchUpStarts, stale);
    long tick = Math.max(TimeUnit.MILLISECONDS.toNanos(5), heartbeatNanos / 4);
    hub.scheduleWithFixedDelay(() -> fanOut.heartbeats(sessions, position), tick, tick, TimeUnit.NANOSECONDS);
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Turns on slow-consumer coalescing ({@code slow_consumer.coalesce_max_keys}, see
   * {@link SlowConsumerPolicy}): while a session's channel is unwritable its changes are folded
   * per key instead of queued; past {@code maxKeys} pending keys the session is closed with
   * SLOW_CONSUMER (it resumes or takes a new snapshot). 0 turns it off. Any thread.
   */
  public void coalesceMaxKeys(int maxKeys) {
    limits.coalesceMaxKeys = maxKeys;
  }

  /**
   * {@code slow_consumer.coalesce_max_bytes}: most approximate bytes of coalesced changes per
   * session, and the largest coalesced batch frame; past it the session is closed with
   * SLOW_CONSUMER. Any thread.
   */
  public void coalesceMaxBytes(long maxBytes) {
    limits.coalesceMaxBytes = maxBytes;
  }

  /**
   * {@code slow_consumer.snapshot_timeout}: a session that has not read its whole snapshot (or
   * resume replay) within this time is closed with SLOW_CONSUMER. Any thread; applies to
   * catch-ups started afterwards.
   */
  public void snapshotTimeout(Duration timeout) {
    limits.snapshotTimeout = timeout;
  }

  /**
   * Most tables one session may subscribe to, also the most names one subscribe may list and the
   * most names that may wait in subscribes during a snapshot; past it the session gets a fatal
   * {@code LIMIT_EXCEEDED}. Any thread.
   */
  public void maxSubscriptionsPerConnection(int max) {
    limits.maxSubscriptions = max;
  }

  /**
   * The channel of {@code s} became writable again: send its coalesced changes, or write more of
   * its snapshot or replay. Any thread.
   */
  public void writable(Subscriber s) {
    runOnHub(() -> {
      if (s.catchUp != null) {
        s.catchUp.kick();
      } else {
        slow.flush(s);
      }
    });
  }

  /**
   * One session's outbound state (see {@link #sessionStates()}).
   *
   * @param pendingBytes bytes queued on its channel plus batches held back during a catch-up
   * @param coalescedBytes approximate bytes of its coalesced changes
   */
  public record SessionState(String clientName, long pendingBytes, int coalescedKeys, long coalescedBytes,
      boolean writable, boolean catchingUp) {}

  /** The outbound state of every session: pending bytes and coalesced changes (tests, logs). Any thread. */
  public List<SessionState> sessionStates() {
    return call(() -> {
      List<SessionState> out = new ArrayList<>();
      for (Subscriber s : sessions) {
        Coalescer c = s.coalescer;
        out.add(new SessionState(s.clientName(), Subscriber.pendingBytes(s.channel()) + s.heldBytes,
            c == null ? 0 : c.keys(), c == null ? 0 : c.approxBytes(), s.channel().isWritable(), s.catchingUp()));
      }
      return out;
    });
  }

  /** Identifies this run; positions are comparable only within one epoch. */
  public String epoch() {
    return epoch;
  }

  /** The position of the last applied batch (0 before any). Any thread. */
  public long position() {
    return position;
  }

  /** Names of the cached tables. Any thread, after {@link #install}. */
  public List<String> tableNames() {
    return call(images::names);
  }

  /** Installs the images loaded from the source's snapshot. Blocks until done. */
  public void install(Collection<TableImage> loaded) {
    await(() -> {
      images.replaceAll(loaded);
      driftPasses.reset();
      return null;
    });
  }

  /**
   * Applies a batch to the images, assigns it the next position, keeps it for resumes and
   * sends it to the subscribed sessions. Blocks until applied, so the tail loop never runs
   * ahead of the hub.
   */
  public void publish(CommittedBatch batch) {
    await(() -> {
      if (!batch.events().isEmpty()) {
        apply(batch);
      }
      batch.tableReads().forEach(this::reconcile);
      batch.staleness().forEach(st -> stale.apply(st, sessions));
      return null;
    });
  }

  /**
   * The tables whose mirrors may differ from them, with the reason (empty when every table is
   * followed). Any thread.
   */
  public Map<String, String> staleTables() {
    return call(stale::all);
  }

  /** How many tables are stale now (for {@code /health}, which must not wait for the hub). Any thread. */
  public int staleTableCount() {
    return stale.count();
  }

  /**
   * A table took a new column list: its sessions hear it ({@code schema_changed}, projected by
   * each one's access policy) before the batch that brings its rows into the new layout. Hub thread.
   */
  private void schemaChanged(TableImage image) {
    for (Subscriber s : sessions) {
      if (s.tables().contains(image.name())) {
        s.sendMessage(new Message.SchemaChanged(image.name(), image.version(),
            s.policy().project(image.schema().columns(), image.schema().primaryKey()), image.schema().primaryKey()));
      }
    }
  }

  /** Publishes the differences between a table's image and what the source read of it. Hub thread. */
  private void reconcile(CommittedBatch.TableRead r) {
    List<RowEvent> differences = tableReads.differences(r);
    if (!differences.isEmpty()) {
      apply(new CommittedBatch(differences, 0));
    }
  }

  /** Registers a session that completed its hello. Any thread. */
  public Subscriber register(Channel channel, String clientName) {
    return register(channel, clientName, Encoding.BINARY);
  }

  /** Registers a session whose messages travel in {@code encoding} (JSON for WebSocket). Any thread. */
  public Subscriber register(Channel channel, String clientName, Encoding encoding) {
    return register(channel, clientName, encoding, "anonymous", SessionPolicy.ALLOW_ALL);
  }

  /**
   * Registers a session of {@code principal} that may read what {@code policy} allows: its
   * subscriptions, snapshots, changes and resume replays are all filtered by it. Any thread.
   */
  public Subscriber register(Channel channel, String clientName, Encoding encoding, String principal,
      SessionPolicy policy) {
    Subscriber s = new Subscriber(channel, clientName, limits.maxPendingBytes, metrics, encoding, principal, policy);
    runOnHub(() -> sessions.add(s));
    return s;
  }

  /** Handles a subscription (see {@link Subscriptions}). Any thread. */
  public void subscribe(Subscriber s, Message.Subscribe subscribe) {
    runOnHub(() -> subscriptions.subscribe(s, subscribe));
  }

  /** Forgets a session whose channel closed. Any thread. */
  public void unregister(Subscriber s) {
    runOnHub(() -> {
      sessions.remove(s);
      s.discard();
    });
  }

  /** Sessions currently registered (for tests and logs). */
  public int sessionCount() {
    return call(sessions::size);
  }

  private void apply(CommittedBatch batch) {
    List<Message.Change> changes = new ArrayList<>(batch.events().size());
    for (RowEvent e : batch.events()) {
      TableImage image = images.get(e.table());
      if (image == null) {
        LOG.warn("ignoring a {} event of table {}, which is not cached (cached: {})", e.op(), e.table(),
            images.names());
        continue;
      }
      try {
        if (e.isTruncate()) {
          changes.addAll(image.truncate());
        } else {
          Message.Change c = image.apply(e);
          if (c != null) {
            changes.add(c);
            if (c.op() != Op.DELETE) {
              driftPasses.touched(e.table(), c.key());
            }
          }
        }
      } catch (RuntimeException ex) {
        LOG.error("cannot apply a {} event of table {}: {}", e.op(), e.table(), ex.getMessage());
      }
    }
    long pos = position + 1;
    position = pos;
    long bytes = resume.append(pos, batch.captureMillis(), changes);
    LOG.debug("batch {}: {} changes", pos, changes.size());
    boolean fitsOneFrame = changes.size() <= BatchParts.PART_CHANGES && bytes <= BatchParts.PART_BYTES;
    if (!fitsOneFrame) {
      LOG.info("batch {}: {} changes (about {} MiB), sent in parts to each session at its own pace", pos,
          changes.size(), bytes >> 20);
    }
    fanOut.batch(sessions, pos, batch.captureMillis(), changes, fitsOneFrame);
    metrics.batchPublished(changes.size(), batch.captureMillis());
  }

  /** The snapshot and replay pool; for tests that need to keep it busy. */
  ExecutorService snapshotExecutor() {
    return catchUps;
  }

  /**
   * Sends {@code SHUTTING_DOWN} to every session still open, closes them and stops the hub's
   * threads. (The server closes the network first, which tells every connection itself.)
   */
  @Override
  public void close() {
    try {
      call(() -> {
        for (Subscriber s : sessions) {
          s.fatal(ErrorCode.SHUTTING_DOWN, "server is shutting down; reconnect to another server or later");
        }
        sessions.clear();
        return null;
      });
    } catch (RuntimeException e) {
      LOG.warn("closing sessions failed", e);
    }
    catchUps.shutdownNow();
    hub.shutdownNow();
  }

  /** Runs a task on the hub thread; after {@link #close()} the task is dropped. */
  private void runOnHub(Runnable task) {
    try {
      hub.execute(task);
    } catch (RejectedExecutionException e) {
      LOG.debug("hub closed, dropping a task");
    }
  }

  /** Runs a query on the hub thread and waits for it, at most 60 s. */
  private <T> T call(Supplier<T> task) {
    return run(task, true);
  }

  /**
   * Runs the tail's work on the hub thread and waits for it however long it takes: a huge
   * transaction may take longer than any fixed bound, and giving up would leave the batch applied
   * later while the tail loop stopped. Interrupted when the server closes.
   */
  private void await(Supplier<Void> task) {
    run(task, false);
  }

  private <T> T run(Supplier<T> task, boolean bounded) {
    CompletableFuture<T> f = CompletableFuture.supplyAsync(task, hub);
    try {
      return bounded ? f.get(60, TimeUnit.SECONDS) : f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the hub", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException) {
        throw (RuntimeException) c;
      }
      throw new IllegalStateException(c);
    } catch (TimeoutException e) {
      throw new IllegalStateException("the hub did not answer within 60 s", e);
    }
  }
}

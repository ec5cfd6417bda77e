package io.tablecast.server.hub;

import io.netty.channel.Channel;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.ReadBarrier;
import io.tablecast.server.tail.TailSink;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * Owns the table images, the position counter, the resume buffer and the sessions, all on one
 * thread ({@code tablecast-hub}, {@link HubThread}); every public method hands its work to that
 * thread. The work is split by responsibility: {@link BatchPublisher} (applies the tail's batches
 * and owns the position), {@link FanOut} (encode once, send to every session, heartbeats), {@link
 * Subscriptions} (subscribes, snapshots and resume replays) and {@link SlowConsumerPolicy}
 * (coalescing, dropping). Snapshots, replays and batches too large for one frame ({@link
 * BatchParts}) are encoded and written by {@link CatchUpSender}s on a small shared pool, only while
 * the client reads ({@link CatchUps}).
 */
public final class ChangeHub implements TailSink, AutoCloseable {

  private static final Logger LOG = RecentEvents.logger(ChangeHub.class);

  /** Threads that encode and write snapshots and resume replays; they never wait for a client. */
  static final int CATCH_UP_THREADS = 2;

  private final String epoch;
  private final ServerMetrics metrics;
  private final HubThread hub = new HubThread();
  private final ExecutorService catchUps;
  private final ResumeBuffer resume;
  private final TableImages images = new TableImages();
  private final StaleTables stale;
  private final Set<Subscriber> sessions = new LinkedHashSet<>();
  private final long maxPendingBytes;
  private final SlowConsumerPolicy slow;
  private final FanOut fanOut;
  private final Subscriptions subscriptions;
  private final HubViews views;
  private final SyncAnswers syncs;
  private final FetchAnswers fetches;
  private final SubqueryMemberships memberships = new SubqueryMemberships(images);
  private final TableReadPositions readPositions = new TableReadPositions();
  private final BatchPublisher publisher;

  /** A hub that records no meters (tests). */
  public ChangeHub(HubSettings settings) {
    this(settings, ServerMetrics.NOOP);
  }

  /**
   * @param settings heartbeat, resume buffer, slow-consumer bounds and subscriptions per session
   * @param metrics where the hub records
   */
  @SuppressWarnings(
      "FutureReturnValueIgnored") // heartbeats() logs its own failures; close() ends the schedule
  public ChangeHub(HubSettings settings, ServerMetrics metrics) {
    this(settings, metrics, UUID.randomUUID().toString());
  }

  /**
   * A hub whose epoch is given: servers that apply one stream in one order give its batches the
   * same positions ({@link #publishAt}), so a client resumes on any of them under this epoch.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // as above
  public ChangeHub(HubSettings settings, ServerMetrics metrics, String epoch) {
    this(settings, metrics, epoch, null);
  }

  /**
   * A hub of {@code epoch} that replays a resume older than its resume buffer from {@code history}
   * (the stream its batches come from, whose sequences are its positions); null: it re-snapshots.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // as above
  public ChangeHub(
      HubSettings settings, ServerMetrics metrics, String epoch, BatchHistory history) {
    this.epoch = epoch;
    this.metrics = metrics;
    this.resume =
        new ResumeBuffer(settings.resumeBuffer().batches(), settings.resumeBuffer().bytes(), 0);
    this.maxPendingBytes = settings.slowConsumer().maxPendingBytes();
    this.catchUps =
        Executors.newFixedThreadPool(
            CATCH_UP_THREADS, r -> HubThread.daemon(r, "tablecast-snapshot"));
    this.slow = new SlowConsumerPolicy(images, settings.slowConsumer(), metrics);
    this.stale = new StaleTables(metrics);
    this.views = new HubViews(images, stale);
    long heartbeatNanos = settings.heartbeat().toNanos();
    CatchUps catchUpStarts =
        new CatchUps(catchUps, hub.executor(), settings.slowConsumer().snapshotTimeout());
    this.fanOut = new FanOut(images, slow, catchUpStarts, heartbeatNanos);
    this.subscriptions =
        new Subscriptions(
            epoch,
            images,
            resume,
            this::position,
            settings.maxSubscriptionsPerConnection(),
            slow,
            metrics,
            catchUpStarts,
            stale,
            history,
            readPositions,
            memberships);
    this.syncs = new SyncAnswers(hub.executor(), slow, this::position, metrics);
    this.fetches = new FetchAnswers(images, slow, this::position, metrics);
    this.publisher =
        new BatchPublisher(
            images,
            stale,
            views,
            resume,
            fanOut,
            sessions,
            memberships,
            readPositions,
            slow,
            metrics);
    long tick = Math.max(TimeUnit.MILLISECONDS.toNanos(5), heartbeatNanos / 4);
    hub.executor()
        .scheduleWithFixedDelay(
            () -> fanOut.heartbeats(sessions, position()), tick, tick, TimeUnit.NANOSECONDS);
  }

  /**
   * The channel of {@code s} became writable again: send its coalesced changes, or write more of
   * its snapshot or replay. Any thread.
   */
  public void writable(Subscriber s) {
    hub.execute(
        () -> {
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
  public record SessionState(
      String clientName,
      long pendingBytes,
      int coalescedKeys,
      long coalescedBytes,
      boolean writable,
      boolean catchingUp) {}

  /**
   * The outbound state of every session: pending bytes and coalesced changes (tests, logs). Any
   * thread.
   */
  public List<SessionState> sessionStates() {
    return hub.call(
        () -> {
          List<SessionState> out = new ArrayList<>();
          for (Subscriber s : sessions) {
            out.add(s.state());
          }
          return out;
        });
  }

  /**
   * The cached tables and the sessions as the operations console shows them, taken on the hub
   * thread; completes once the hub has run the request (after the work queued before it), and fails
   * once the hub is closed. Any thread; never blocks: callers bound the wait themselves.
   */
  public CompletableFuture<HubView> view() {
    try {
      return CompletableFuture.supplyAsync(
          () -> views.take(epoch, position(), sessions), hub.executor());
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Every table's image at the position of the last applied batch, copied on the hub thread (rows
   * are shared and immutable), for a checkpoint; empty while a table is stale or its image invalid:
   * it may differ from the table, and a checkpoint must not hand that on. Any thread.
   */
  public Optional<ImageCopy> copyImages() {
    return hub.call(() -> ImageCopy.of(images, stale, position()));
  }

  /** Identifies this run; positions are comparable only within one epoch. */
  public String epoch() {
    return epoch;
  }

  /** The position of the last applied batch (0 before any). Any thread. */
  public long position() {
    return publisher.position();
  }

  /** Names of the cached tables. Any thread, after {@link #install}. */
  public List<String> tableNames() {
    return hub.call(images::names);
  }

  /**
   * Images of {@code tables}, filled by the tail loop with the snapshot's rows and then installed.
   */
  @Override
  public TailSink.SnapshotLoad snapshotLoad(List<TableSchema> tables) {
    return new SnapshotImages(tables, this::install);
  }

  /**
   * Installs the images loaded from the source's snapshot, whose read found {@code duplicateRows}
   * rows beyond one per primary key in the tables it names (logged and measured: {@link
   * io.tablecast.server.image.DuplicateKeys}). Blocks until done.
   */
  public void install(Collection<TableImage> loaded, Map<String, Long> duplicateRows) {
    hub.await(
        () -> {
          images.replaceAll(loaded);
          publisher.imagesReplaced(duplicateRows);
          memberships.imagesReplaced();
          return null;
        });
  }

  /**
   * Applies a batch to the images, assigns it the next position, keeps it for resumes and sends it
   * to the subscribed sessions. Blocks until applied, so the tail loop never runs ahead of the hub.
   * An event an image cannot take makes its table stale until it is re-read (see {@link
   * ImageErrors}).
   *
   * @return the tables to re-read because their image could not take an event
   */
  @Override
  public Set<String> publish(CommittedBatch batch) {
    return hub.await(() -> publisher.publish(batch));
  }

  /** The hub numbers its batches itself, on its own thread. */
  @Override
  public boolean takesStalenessDuringPolls() {
    return true;
  }

  /**
   * As {@link #publish}, the batch taking position {@code position} (a stream sequence, above every
   * position so far): a batch that applies changes once takes exactly it, the same on every server
   * reading the stream.
   */
  public Set<String> publishAt(long position, CommittedBatch batch) {
    return hub.await(
        () -> {
          Set<String> rereads = publisher.publishAt(position, batch);
          syncs.streamRead(position);
          return rereads;
        });
  }

  /**
   * The tables whose mirrors may differ from them, with the reason (empty when every table is
   * followed). Any thread.
   */
  public Map<String, String> staleTables() {
    return hub.call(stale::all);
  }

  /**
   * How many tables are stale now (for {@code /health}, which must not wait for the hub). Any
   * thread.
   */
  public int staleTableCount() {
    return stale.count();
  }

  /** Registers a session that completed its hello. Any thread. */
  public Subscriber register(Channel channel, String clientName) {
    return register(channel, clientName, Encoding.BINARY);
  }

  /**
   * Registers a session whose messages travel in {@code encoding} (JSON for WebSocket). Any thread.
   */
  public Subscriber register(Channel channel, String clientName, Encoding encoding) {
    return register(channel, clientName, encoding, "anonymous", SessionPolicy.ALLOW_ALL);
  }

  /**
   * Registers a session of {@code principal} that may read what {@code policy} allows: its
   * subscriptions, snapshots, changes and resume replays are all filtered by it. Any thread.
   */
  public Subscriber register(
      Channel channel,
      String clientName,
      Encoding encoding,
      String principal,
      SessionPolicy policy) {
    Subscriber s =
        new Subscriber(channel, clientName, maxPendingBytes, metrics, encoding, principal, policy);
    hub.execute(() -> sessions.add(s));
    return s;
  }

  /** Handles a subscription (see {@link Subscriptions}). Any thread. */
  public void subscribe(Subscriber s, Message.Subscribe subscribe) {
    hub.execute(() -> subscriptions.subscribe(s, subscribe));
  }

  /**
   * Answers {@code sync} requests through the tail's {@code barrier} (read-your-writes); until this
   * or {@link #answerSyncsFromStream} is called, they are answered with a failure saying why. Any
   * thread.
   */
  public void answerSyncsThrough(ReadBarrier barrier) {
    syncs.readThrough(barrier);
  }

  /**
   * For a hub fed from a NATS stream: answers {@code sync} requests once the hub has read the
   * stream as far as the sequence {@code streamSequence} completes with (asked of the capture
   * leader). Any thread.
   */
  public void answerSyncsFromStream(Supplier<CompletableFuture<Long>> streamSequence) {
    syncs.readFromStream(streamSequence);
  }

  /** Handles a {@code sync} request (see {@link SyncAnswers}). Any thread. */
  public void sync(Subscriber s, long id) {
    hub.execute(() -> syncs.request(s, id));
  }

  /** Handles a {@code fetch} request (see {@link FetchAnswers}). Any thread. */
  public void fetch(Subscriber s, Message.Fetch fetch) {
    hub.execute(() -> fetches.answer(s, fetch));
  }

  /** Forgets a session whose channel closed. Any thread. */
  public void unregister(Subscriber s) {
    hub.execute(
        () -> {
          sessions.remove(s);
          s.discard();
          memberships.retainUsedBy(sessions);
        });
  }

  /** Sessions currently registered (for tests and logs). */
  public int sessionCount() {
    return hub.call(sessions::size);
  }

  /** The hub thread; for tests that must hold it still between their steps (HubGate). */
  ScheduledExecutorService hubThreadForTests() {
    return hub.executor();
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
      hub.call(
          () -> {
            for (Subscriber s : sessions) {
              s.fatal(
                  ErrorCode.SHUTTING_DOWN,
                  "server is shutting down; reconnect to another server or later");
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
}

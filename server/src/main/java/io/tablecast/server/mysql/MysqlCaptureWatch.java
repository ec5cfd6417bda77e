package io.tablecast.server.mysql;

import io.tablecast.server.capture.BoundedAnswers;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.UnfollowedTables;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * MySQL/MariaDB: every {@code capture_check_interval}, on a thread of its own, reads from the
 * catalog which capture triggers the cached tables need now and whether they are there ({@link
 * MysqlDialect#captureStatus}): their own triggers, and their parents' key-recording triggers for
 * every foreign-key action into them, including foreign keys added while the server runs and
 * parents it does not cache. Triggers record changes only from their creation on, so a missing one
 * means changes may already have been lost:
 *
 * <ul>
 *   <li>an ERROR names the cached table and the trigger (and its foreign keys), counted in {@code
 *       tablecast.capture.problems{table, kind=missing_trigger}}, once per problem;
 *   <li>with {@code install_triggers} the triggers are installed (idempotently, new before stale),
 *       and each table whose capture is complete again is re-read in the stream's consistent
 *       snapshot ({@link io.tablecast.server.tail.CommittedBatch.Purpose#RESYNC}: the differences
 *       are the changes the missing trigger did not record, published as expected work, not as
 *       repairs);
 *   <li>otherwise, or when the install fails, the table cannot be followed until someone runs
 *       {@code tablecast install}: it is stale for its clients ({@link UnfollowedTables}), and is
 *       re-read and followed again once a check finds its capture complete.
 * </ul>
 *
 * Each check also describes the cached tables again: one whose columns or primary key differ from
 * the plan was altered (which fires no trigger here), and the tail takes it up at its next poll
 * ({@link #takeAltered}, {@link AlteredTables}; the same look finds truncated tables and a
 * renumbered outbox: {@link UntriggeredChanges}). Foreign-key actions that no trigger can capture
 * (a new cycle of cascades) are logged the same way ({@code kind=not_capturable}). One check costs
 * two indexed catalog lookups per cached table and per parent, and one per table carrying triggers
 * (docs/CONFIGURATION.md gives a measurement). The looks for what fires no trigger run on a second
 * thread, so that an install waiting for an open transaction does not hold them up. Checks or looks
 * that fail round after round make every table stale until they work ({@link
 * FailingCaptureChecks}).
 */
final class MysqlCaptureWatch implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(MysqlCaptureWatch.class);

  private final MysqlDialect dialect;
  private final Supplier<CapturePlan> plan;
  private final SourceConfig config;
  private final UnfollowedTables unfollowed;
  private final ScheduledExecutorService timer;

  /**
   * Runs the looks for changes no trigger records ({@link #lookForUntriggeredChanges}) on a thread
   * of their own: an install on {@link #timer} may wait minutes for an open transaction, and a
   * TRUNCATE found that much later would leave its mirrors wrong without a word meanwhile.
   */
  private final ScheduledExecutorService looks;

  private boolean started;

  /** The tables re-read whole with the tail's next batch. */
  private final QueuedResyncs resyncs;

  /**
   * Tables whose capture triggers are being reinstalled on the watch's thread, or were and the tail
   * has not taken up their new key yet: the checks leave them to that (the plan they compare with
   * still has the old key, whose triggers the reinstall replaced).
   */
  private final Set<TableId> reinstalling = ConcurrentHashMap.newKeySet();

  /** What the checks found wrong, each logged and counted once until solved. */
  private final CaptureReports reports;

  private final GaleraWriters galera = new GaleraWriters();

  /** The schedules failing round after round: every table stale while they do. */
  private final FailingCaptureChecks failing;

  /** What changes the cached tables without firing a trigger. */
  private final UntriggeredChanges untriggered;

  MysqlCaptureWatch(
      MysqlDialect dialect,
      Supplier<CapturePlan> plan,
      SourceConfig config,
      ServerMetrics metrics,
      UnfollowedTables unfollowed,
      LongSupplier lastReadId) {
    this.dialect = dialect;
    this.plan = plan;
    this.config = config;
    this.unfollowed = unfollowed;
    this.reports = new CaptureReports(metrics);
    this.resyncs = new QueuedResyncs(unfollowed);
    this.untriggered =
        new UntriggeredChanges(
            dialect.flavor(),
            !config.reconcileInterval().isZero(),
            lastReadId,
            unfollowed,
            resyncs::add);
    this.timer = daemonThread("tablecast-capture-watch");
    this.looks = daemonThread("tablecast-capture-look");
    this.failing =
        new FailingCaptureChecks(
            () -> plan.get().tables().stream().map(t -> t.id().qualified()).toList(),
            config.captureCheckInterval());
  }

  private static ScheduledExecutorService daemonThread(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }

  /** Starts the schedule (nothing when {@code capture_check_interval} is 0). */
  @SuppressWarnings("FutureReturnValueIgnored") // each round logs its failure; close() ends them
  void start() {
    long every = config.captureCheckInterval().toMillis();
    if (every > 0 && !started) { // once, also when a snapshot is read again on another instance
      started = true;
      timer.scheduleWithFixedDelay(
          () -> failing.run(FailingCaptureChecks.Schedule.CHECK, this::checkTriggers),
          every,
          every,
          TimeUnit.MILLISECONDS);
      looks.scheduleWithFixedDelay(
          () -> failing.run(FailingCaptureChecks.Schedule.LOOK, this::lookForUntriggeredChanges),
          every,
          every,
          TimeUnit.MILLISECONDS);
    }
  }

  /**
   * One whole check, as the two schedules run it: {@link #checkTriggers}, then {@link
   * #lookForUntriggeredChanges}. Returns what the catalog showed before any install.
   */
  CaptureStatus check() throws SQLException {
    CaptureStatus status = checkTriggers();
    lookForUntriggeredChanges();
    return status;
  }

  /**
   * Reports the triggers missing, installs them when allowed and queues the tables whose capture
   * became complete for a resync. Returns what the catalog showed before any install.
   */
  private synchronized CaptureStatus checkTriggers() throws SQLException {
    // before the plan is read: a table the tail takes up meanwhile is compared with its old key
    Set<TableId> gone = gone();
    Set<TableId> leftAlone = new LinkedHashSet<>(reinstalling);
    leftAlone.addAll(gone); // its triggers went with it: followed again once it is back
    CaptureStatus status = status();
    CaptureReports.Found found = reports.report(status, leftAlone, config.installTriggers());
    Map<TableId, List<String>> incomplete = found.incomplete();
    Set<TableId> writesFail = found.writesFail();
    resyncs.retryFailed(); // each check until a read succeeds
    for (TableSchema t :
        plan.get().tables()) { // complete again without us (someone ran install): re-read
      if (unfollowed.isUnfollowed(t.id())
          && !incomplete.containsKey(t.id())
          && resyncs.followOnceRead(t.id())) {
        LOG.info(
            "Capture of {} is complete again: re-reading it (changes made meanwhile were not captured)",
            t.id());
      }
    }
    Set<TableId> fixed = new LinkedHashSet<>();
    if (config.installTriggers()
        && (!writesFail.isEmpty()
            || status.missing().stream().anyMatch(t -> !leftAlone.contains(t.cachedTable())))) {
      fixed.addAll(install(incomplete.keySet(), writesFail, gone));
    }
    for (Map.Entry<TableId, List<String>> t : incomplete.entrySet()) {
      if (fixed.contains(t.getKey())) {
        resyncs.addAndFollow(t.getKey());
      } else {
        unfollowed.cannotFollow(
            t.getKey(),
            String.join("; ", t.getValue())
                + (config.installTriggers()
                    ? " (and it could not be installed: see the server's log)"
                    : ": run `tablecast install` (or set install_triggers: true)"));
      }
    }
    return status;
  }

  /**
   * Looks at the Galera cluster state and for what changed the cached tables without a trigger
   * ({@link UntriggeredChanges}). One look at a time.
   */
  private void lookForUntriggeredChanges() throws SQLException {
    synchronized (untriggered) {
      CapturePlan p = plan.get();
      try (Connection c = BoundedAnswers.bound(p.connect(), answerWithin())) {
        lookAtGalera(c);
        untriggered.look(c, p);
      }
    }
  }

  /**
   * Looks at the Galera cluster state and remembers the cached tables' InnoDB ids, before the
   * snapshot ({@link UntriggeredChanges#rememberTableIds}).
   */
  void rememberTableIds(Connection c) {
    lookAtGalera(c);
    untriggered.rememberTableIds(c, plan.get());
  }

  /** This node's Galera cluster state, which tells the outbox ids written through other nodes. */
  GaleraWriters galera() {
    return galera;
  }

  private void lookAtGalera(Connection c) {
    try {
      galera.look(c);
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Looking at the Galera cluster state failed (kept as it was): {}", e.toString());
    }
  }

  /**
   * Whether the outbox's ids began again, once: {@link UntriggeredChanges#takeOutboxRenumbered}.
   */
  String takeOutboxRenumbered() {
    return untriggered.takeOutboxRenumbered();
  }

  /** {@code table} was found altered elsewhere: {@link UntriggeredChanges#altered}. */
  void altered(TableId table) {
    untriggered.altered(table);
  }

  /**
   * Reinstalls the capture triggers after {@code table}'s primary key changed, on the watch's
   * thread: their DDL waits for every open transaction that has read the table, and the tail's
   * thread, which found the change ({@link AlteredTables}), goes on serving the other tables
   * meanwhile. Once done, the table is found altered again, so the tail takes up its new key at its
   * next poll ({@link #newKeyTaken}). One reinstall per table at a time; one that fails is tried
   * again when the tail next finds the table altered (its next reconciliation pass).
   */
  void reinstall(TableId table) {
    if (reinstalling.add(table)) {
      timer.execute(() -> reinstallNow(table));
    }
  }

  private void reinstallNow(TableId table) {
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      installer.describe();
      installer.install();
    } catch (SQLException | RuntimeException e) {
      LOG.error(
          "Table {} was altered but its capture triggers cannot be reinstalled: {}",
          table,
          e.getMessage());
      reinstalling.remove(table);
      return;
    }
    untriggered.altered(table);
  }

  /** The tail follows {@code table} with the key its triggers record now: checked as any other. */
  void newKeyTaken(TableId table) {
    reinstalling.remove(table);
  }

  /** The cached tables gone under their names (dropped, renamed away): left out of installs. */
  private Set<TableId> gone() {
    Set<TableId> out = new LinkedHashSet<>();
    for (TableSchema t : plan.get().tables()) {
      if (unfollowed.isGone(t.id().qualified())) {
        out.add(t.id());
      }
    }
    return out;
  }

  /** The schedules' failures, and the staleness of every table while they go on. */
  FailingCaptureChecks failing() {
    return failing;
  }

  /** The tables found altered since the last call: {@link UntriggeredChanges#takeAltered}. */
  Set<TableId> takeAltered() {
    return untriggered.takeAltered();
  }

  /**
   * Installs the capture; returns the tables among {@code incomplete} whose capture is complete
   * now.
   */
  private Set<TableId> install(Set<TableId> incomplete, Set<TableId> writesFail, Set<TableId> gone)
      throws SQLException {
    // the gone tables left out: describing them failed every install of the others
    try (TriggerInstaller installer =
        TriggerInstaller.connect(config.without(gone, plan.get().installation().schema()))) {
      installer.describe();
      installer.install();
    } catch (RuntimeException e) {
      LOG.error("Capture triggers of {} cannot be installed: {}", incomplete, e.getMessage());
      return Set.of();
    }
    CaptureStatus after = status();
    Set<TableId> fixed = new LinkedHashSet<>(incomplete);
    after.missing().forEach(t -> fixed.remove(t.cachedTable()));
    after.problems().forEach(p -> fixed.removeAll(p.tables()));
    reports.forget(); // what is still wrong is reported again at the next check
    Set<TableId> writable = new LinkedHashSet<>(writesFail);
    after.definerGone().forEach(t -> writable.remove(t.on()));
    if (!writable.isEmpty()) {
      LOG.warn(
          "Capture triggers of {} recreated as the server's account: their writes work again",
          writable);
    }
    if (!fixed.isEmpty()) {
      LOG.warn(
          "Capture triggers installed for {}; re-reading those tables in the stream's snapshot to publish "
              + "the changes made while a trigger was missing",
          fixed);
    }
    return fixed;
  }

  private CaptureStatus status() throws SQLException {
    CapturePlan p = plan.get();
    try (Connection c = BoundedAnswers.bound(p.connect(), answerWithin())) {
      return dialect.captureStatus(c, p.installation(), p.tables());
    }
  }

  /** The cached tables to re-read with the next batch, as the plan describes them now. */
  List<TableSchema> pendingResyncs(CapturePlan current) {
    return resyncs.pending(current);
  }

  /**
   * Has {@code table} re-read with the next batch (its columns changed: see {@code
   * MysqlChangeSource}).
   */
  void resync(TableId table) {
    resyncs.add(table);
  }

  /**
   * Has {@code table} re-read with the next batch and followed again after it (its capture was
   * stale and is current now: see {@link AlteredTables}).
   */
  void resyncAndFollow(TableId table) {
    resyncs.addAndFollow(table);
  }

  /** These tables were re-read, or their read failed: {@link QueuedResyncs#resynced}. */
  void resynced(Collection<TableSchema> tables, Map<TableId, String> failed) {
    resyncs.resynced(tables, failed);
  }

  @Override
  public void close() {
    timer.shutdownNow();
    looks.shutdownNow();
  }

  /**
   * How long a check's or a look's statement may wait for its answer ({@link BoundedAnswers}): one
   * on a connection gone silent would otherwise end the checks, and a trigger dropped or a table
   * truncated afterwards would never be found. Far longer than a check's catalog reads take.
   */
  private Duration answerWithin() {
    return config.longAnswerTimeout();
  }
}

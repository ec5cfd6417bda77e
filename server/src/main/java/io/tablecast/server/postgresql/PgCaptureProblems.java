package io.tablecast.server.postgresql;

import static io.tablecast.server.capture.DdlLocks.IDLE_IN_TRANSACTION;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.postgresql.CaptureCheck.Problem;
import io.tablecast.server.tail.UnfollowedTables;
import io.tablecast.server.tail.WatchedConnections;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;

/**
 * PostgreSQL: what {@link PgCaptureWatch} does about the problems each check finds in the capture
 * of the cached tables (a trigger missing, disabled or not ALWAYS, a stray one, a table gone, row
 * security). A problem is reported once (ERROR, counted in {@code tablecast.capture.problems});
 * with {@code install_triggers} it is repaired in one transaction (beside the tail when an open
 * transaction holds a lock the repair needs: {@link BackgroundRepair}), and tried again at each
 * check while the repair fails; a problem found again after a repair is not repaired again. While a
 * table has problems it cannot be followed ({@link UnfollowedTables}); once they are gone it is
 * re-read. Remembers the problems across checks, so that each is reported and repaired once.
 * Confined to the tail thread, as the watch is, but for the repair waiting beside it.
 */
final class PgCaptureProblems {
  /** Logs under {@link PgCaptureWatch}, as before this was split out of it. */
  private static final Logger LOG = RecentEvents.logger(PgCaptureWatch.class);

  /**
   * The longest a repair's first try waits for a lock, on the tail's thread (every table's changes
   * wait that long); a longer wait goes on beside the tail ({@link BackgroundRepair}).
   */
  static final Duration FIRST_TRY_WAIT = Duration.ofMillis(100);

  private final CapturePlan plan;

  /**
   * The tail's connections, watched as its reads are: a repair's first try runs on the tail's
   * thread, and one whose answer was lost held every table, and the writers of the table it locks.
   */
  private final WatchedConnections connections;

  private final SourceConfig config;
  private final ServerMetrics metrics;
  private final UnfollowedTables unfollowed;

  /** Takes the qualified name of a table to re-read in the next outbox read. */
  private final Consumer<String> reRead;

  /** Problems reported and not gone yet, by key. */
  private final Map<String, Problem> reported = new HashMap<>();

  /** Problems a repair fixed: one found again means the repair cannot fix it. */
  private final Set<String> repaired = new HashSet<>();

  /** Reported problems whose repair failed: tried again at each check. */
  private final Set<String> retry = new HashSet<>();

  /**
   * Problems whose repair waits beside the tail for an open transaction, not reported as errors.
   */
  private final Set<String> waiting = new HashSet<>();

  /** Repairs that wait for an application's transaction, beside the tail. */
  private final BackgroundRepair background;

  PgCaptureProblems(
      CapturePlan plan,
      WatchedConnections connections,
      SourceConfig config,
      ServerMetrics metrics,
      UnfollowedTables unfollowed,
      Consumer<String> reRead) {
    this.plan = plan;
    this.connections = connections;
    this.config = config;
    this.metrics = metrics;
    this.unfollowed = unfollowed;
    this.reRead = reRead;
    this.background = new BackgroundRepair(plan, config.answerTimeout());
  }

  /**
   * Reports new problems (ERROR and metric), repairs them when allowed, and re-reads tables whose
   * problems are gone. With {@code install_triggers}, the triggers a relation that just joined a
   * table lacks and those left on a relation that just left are expected work, not problems: they
   * are repaired under the WARN the watch logged for the relations that joined or left.
   *
   * @param problems every problem the check found
   * @param joinedOrLeft the relations that joined or left a cached table since the last check
   * @param tables the cached tables the check looked at
   */
  void follow(List<Problem> problems, Set<TableId> joinedOrLeft, Set<TableId> tables) {
    Set<String> keys = problems.stream().map(Problem::key).collect(Collectors.toSet());
    repaired.retainAll(keys);
    retry.retainAll(keys);
    waiting.retainAll(keys);
    List<Problem> fresh = new ArrayList<>();
    for (Problem p : problems) {
      boolean expected =
          config.installTriggers()
              && p.issue().repairable()
              && joinedOrLeft.contains(p.relation())
              && !repaired.contains(p.key());
      if (retry.contains(p.key()) || (expected && !reported.containsKey(p.key()))) {
        fresh.add(p);
      } else if (reported.putIfAbsent(p.key(), p) == null) {
        LOG.error(
            "Capture of {} is incomplete: {}{}",
            p.table(),
            p.message(),
            repaired.contains(p.key())
                ? " (found again after a repair: it is not repaired again)"
                : "");
        metrics.captureProblem(p.table().qualified(), kind(p));
        if (!repaired.contains(p.key())) {
          fresh.add(p);
        }
      }
    }
    Set<TableId> cleared = new LinkedHashSet<>();
    reported
        .values()
        .removeIf(
            p -> {
              if (keys.contains(p.key())) {
                return false;
              }
              cleared.add(p.table());
              return true;
            });
    for (TableId table : cleared) {
      if (problems.stream().noneMatch(p -> p.table().equals(table))) {
        LOG.info(
            "Capture of {} is complete again: re-reading it (changes made meanwhile were not captured)",
            table);
        reRead.accept(table.qualified());
        tableFollowedAgain(table);
      }
    }
    for (TableId table : tables) { // the tail found it gone; back before a check saw it
      if (unfollowed.isGone(table.qualified())
          && !cleared.contains(table)
          && problems.stream().noneMatch(p -> p.table().equals(table))) {
        LOG.info("Table {} exists again: re-reading it", table);
        reRead.accept(table.qualified());
        tableFollowedAgain(table);
      }
    }
    Set<TableId> gone =
        problems.stream()
            .filter(PgCaptureProblems::tableGone)
            .map(Problem::table)
            .collect(Collectors.toSet());
    List<Problem> repairable =
        fresh.stream()
            .filter(p -> p.issue().repairable() && !gone.contains(p.table())) // nothing to put
            .toList(); // triggers on: a stray one on its renamed relation stays until it is back
    boolean done = config.installTriggers() && !repairable.isEmpty() && repair(repairable);
    Map<TableId, List<Problem>> unfollowed = new HashMap<>();
    for (Problem p : reported.values()) {
      if (!(done && repairable.contains(p))) {
        unfollowed.computeIfAbsent(p.table(), t -> new ArrayList<>()).add(p);
      }
    }
    unfollowed.forEach(this::tableCannotBeFollowed);
  }

  /** Whether {@code p} was reported at a check and is not gone yet: the watch has taken it up. */
  boolean isReported(Problem p) {
    return reported.containsKey(p.key());
  }

  /**
   * Whether the last check found row-level security applying to this server's reads of {@code
   * table}: its reads see only what the policies show, so no reconciliation range may be compared.
   */
  boolean readsFiltered(TableId table) {
    return reported.values().stream()
        .anyMatch(p -> p.table().equals(table) && p.issue() == CaptureCheck.Issue.ROW_SECURITY);
  }

  /**
   * Installs what is missing in one transaction: true when done. The problems fixed are forgotten
   * (so the fix is not reported as a recovery) and their tables re-read. The try waits at most
   * {@link #FIRST_TRY_WAIT} for a lock, on the tail's thread: when an application's transaction
   * holds one longer, the repair goes on {@link BackgroundRepair beside the tail}, the tables stale
   * meanwhile, and its outcome is taken at a later check ({@link #takeBackgroundOutcome}).
   */
  private boolean repair(List<Problem> problems) {
    if (background.busy()) { // one repair at a time: these are tried again when it has ended
      problems.forEach(this::notRepairedYet);
      return false;
    }
    try (Connection c = connections.get()) {
      c.setReadOnly(false);
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        // the idle limit first, with the BEGIN: the role's own may be shorter than a pause
        s.execute(PgDialect.INSTANCE.ddlLocks().limitIdleInTransaction(IDLE_IN_TRANSACTION));
        s.execute(PgDialect.INSTANCE.ddlLocks().limitWaits(FIRST_TRY_WAIT));
        for (String sql :
            PgDialect.INSTANCE.repairStatements(c, plan.installation(), plan.tables(), problems)) {
          s.execute(sql);
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      if (!PgDialect.INSTANCE.ddlLocks().isLockWaitTimeout(e)) {
        failed(problems, e.toString());
        return false;
      }
      background.start(problems);
      for (Problem p : problems) {
        if (reported.putIfAbsent(p.key(), p) == null) {
          waiting.add(p.key());
        }
      }
      LOG.warn(
          "Capture of {} is being repaired beside the tail, which serves on: an open transaction"
              + " holds a lock the repair needs (the tables are stale until it is done)",
          tablesOf(problems));
      return false;
    } catch (RuntimeException e) {
      failed(problems, e.toString());
      return false;
    }
    repaired(problems);
    return true;
  }

  /**
   * Takes the outcome of a repair that ended beside the tail: call before a check reads the
   * catalog, so that the check sees what the repair committed.
   */
  void takeBackgroundOutcome() {
    BackgroundRepair.Outcome outcome = background.takeOutcome();
    if (outcome == null) {
      return;
    }
    if (outcome.failure() == null) {
      repaired(outcome.problems());
    } else {
      failed(outcome.problems(), outcome.failure());
    }
  }

  /** {@code p} waits for the repair under way: tried again at the checks after it. */
  private void notRepairedYet(Problem p) {
    retry.add(p.key());
    if (reported.putIfAbsent(p.key(), p) == null) {
      waiting.add(p.key());
    }
  }

  /** A repair failed: its problems are reported (once) and tried again at each check. */
  private void failed(List<Problem> problems, String why) {
    LOG.warn(
        "Could not repair the capture of {} (retrying at the next check): {}",
        tablesOf(problems),
        why);
    for (Problem p : problems) {
      retry.add(p.key());
      boolean unreported = reported.putIfAbsent(p.key(), p) == null;
      if (unreported || waiting.remove(p.key())) { // expected work that could not be done
        LOG.error("Capture of {} is incomplete: {}", p.table(), p.message());
        metrics.captureProblem(p.table().qualified(), kind(p));
      }
    }
  }

  /** A repair is done: its problems are forgotten and their tables re-read and followed again. */
  private void repaired(List<Problem> problems) {
    Set<TableId> affected = tablesOf(problems);
    LOG.warn(
        "Capture of {} repaired (triggers installed or enabled ALWAYS, stray ones dropped): re-reading {}",
        affected,
        affected.size() == 1 ? "it" : "them");
    for (Problem p : problems) {
      reported.remove(p.key());
      retry.remove(p.key());
      waiting.remove(p.key());
      repaired.add(p.key());
    }
    affected.forEach(t -> reRead.accept(t.qualified()));
    for (TableId t :
        affected) { // one that was stale (a repair that failed before) is followed again
      if (reported.values().stream().noneMatch(p -> p.table().equals(t))) {
        tableFollowedAgain(t);
      }
    }
  }

  private static Set<TableId> tablesOf(List<Problem> problems) {
    Set<TableId> tables = new LinkedHashSet<>();
    problems.forEach(p -> tables.add(p.table()));
    return tables;
  }

  /** Whether a repair beside the tail has ended and its outcome waits for the next check. */
  boolean repairEnded() {
    return background.ended();
  }

  /** Ends a repair still waiting beside the tail. */
  void close() {
    background.close();
  }

  /**
   * A table whose changes cannot all be captured now; called at every check while that lasts. It is
   * stale for its clients until {@link #tableFollowedAgain}.
   */
  private void tableCannotBeFollowed(TableId table, List<Problem> problems) {
    Problem gone = problems.stream().filter(PgCaptureProblems::tableGone).findFirst().orElse(null);
    if (gone != null) { // what else is wrong is about the relation it was: logged, not the reason
      unfollowed.gone(table, gone.message());
      return;
    }
    String suffix =
        problems.stream().noneMatch(p -> p.issue().repairable())
            ? ""
            : !config.installTriggers()
                ? " (install_triggers is off: run `tablecast install`)"
                : background.repairing(table)
                    ? " (being repaired, waiting for an open transaction: see the server's log)"
                    : " (the server could not repair it: see its log)";
    unfollowed.cannotFollow(
        table, problems.stream().map(Problem::message).collect(Collectors.joining("; ")) + suffix);
  }

  /** {@code table} is captured completely again and is being re-read with the next batch. */
  private void tableFollowedAgain(TableId table) {
    unfollowed.followedAgain(table);
  }

  /** The cached table itself is no longer in the catalog under its name. */
  private static boolean tableGone(Problem p) {
    return p.issue() == CaptureCheck.Issue.UNCAPTURABLE
        && p.trigger() == null
        && p.relation().equals(p.table());
  }

  /** The {@code kind} tag of {@code tablecast.capture.problems} for a problem. */
  private static String kind(Problem p) {
    return p.issue() == CaptureCheck.Issue.MISSING
        ? "missing_trigger"
        : p.issue().name().toLowerCase(java.util.Locale.ROOT);
  }
}

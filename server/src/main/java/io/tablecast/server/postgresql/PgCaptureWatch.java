package io.tablecast.server.postgresql;

import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.postgresql.CaptureCheck.Coverage;
import io.tablecast.server.postgresql.CaptureCheck.Member;
import io.tablecast.server.postgresql.CaptureCheck.Problem;
import io.tablecast.server.tail.UnfollowedTables;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;

/**
 * PostgreSQL: follows, while the server runs, what the catalog says about the capture of each
 * cached table ({@link PgDialect#checkCapture}): the partitions and inheritance children it is made
 * of, and the state of every capture trigger they need. Every {@code capture_check_interval}, and
 * at once after a hint ({@link #suspectChange()}):
 *
 * <ul>
 *   <li>a new partition or child: its triggers are installed (with {@code install_triggers}, as for
 *       any missing trigger below; a cloned row trigger is already there), WARN, and the table is
 *       re-read: ATTACH and INHERIT bring rows without firing any trigger;
 *   <li>a partition or child that left (DETACH, NO INHERIT, DROP): the table is re-read, its rows
 *       leave the mirrors; capture triggers left on it are dropped (they would go on recording its
 *       rows as the table's);
 *   <li>a needed trigger missing, disabled or not enabled ALWAYS: ERROR naming table, relation,
 *       trigger and fix, counted in {@code tablecast.capture.problems}; with {@code
 *       install_triggers} it is reinstalled or re-enabled and the table re-read (the changes made
 *       meanwhile were not captured); without, the table cannot be followed until someone fixes it,
 *       and is re-read when the problem is gone.
 * </ul>
 *
 * The re-reads happen in the next outbox read, in its snapshot, which begins after any repair
 * committed: creating or enabling a trigger waits for the transactions writing the table, so the
 * snapshot sees every change that bypassed capture. Confined to the tail thread.
 */
final class PgCaptureWatch {
  private static final Logger LOG = RecentEvents.logger(PgCaptureWatch.class);

  /**
   * How long a repair may wait for a lock held by a writer before it gives up until the next check.
   */
  static final String REPAIR_LOCK_TIMEOUT = "2s";

  private final CapturePlan plan;
  private final HikariDataSource pool;
  private final SourceConfig config;
  private final ServerMetrics metrics;
  private final UnfollowedTables unfollowed;

  /** The members of each table at the last check; null before the first. */
  private Map<TableId, Map<Long, Member>> members;

  /**
   * Relations that left a table and still carry its capture triggers: looked at again each check.
   */
  private final Map<Long, TableId> formerWithTriggers = new HashMap<>();

  /** Problems reported and not gone yet, by key. */
  private final Map<String, Problem> reported = new HashMap<>();

  /** Problems a repair fixed: one found again means the repair cannot fix it. */
  private final Set<String> repaired = new HashSet<>();

  /** Reported problems whose repair failed (a lock wait timed out): tried again at each check. */
  private final Set<String> retry = new HashSet<>();

  private final Set<String> resyncs = new LinkedHashSet<>();
  private long lastCheckNanos;
  private boolean suspected = true;

  PgCaptureWatch(
      CapturePlan plan,
      HikariDataSource pool,
      SourceConfig config,
      ServerMetrics metrics,
      UnfollowedTables unfollowed) {
    this.unfollowed = unfollowed;
    this.plan = plan;
    this.pool = pool;
    this.config = config;
    this.metrics = metrics;
  }

  /**
   * Something the tail read hints at a schema change (a partition truncated): check at the next
   * poll.
   */
  void suspectChange() {
    suspected = true;
  }

  /**
   * Runs the check when it is due; returns the qualified names of the tables to re-read in the next
   * outbox read, and forgets them.
   */
  Set<String> runIfDue() throws SQLException {
    long every = config.captureCheckInterval().toNanos(); // 0: only when a read hints at a change
    if (suspected || (every > 0 && System.nanoTime() - lastCheckNanos >= every)) {
      check();
    }
    if (resyncs.isEmpty()) {
      return Set.of();
    }
    Set<String> out = new LinkedHashSet<>(resyncs);
    resyncs.clear();
    return out;
  }

  /**
   * True when, in the snapshot of {@code c}'s transaction, the capture of {@code table} is as this
   * watch last saw it: the same partitions and children, and no problem it has not taken up. A
   * reconciliation range read in a snapshot where it is not would count as drift what the watch is
   * about to re-read as a resync (rows that came with an ATTACH or left with a NO INHERIT). Catalog
   * tables are read in the transaction's snapshot, so the answer is exact for the rows read in it.
   * One catalog query, as a check.
   */
  boolean unchangedSinceCheck(Connection c, TableId table) throws SQLException {
    if (members == null) {
      return false;
    }
    CaptureCheck now =
        PgDialect.INSTANCE.checkCapture(
            c, plan.installation(), plan.tables(), formerRelations().keySet());
    if (now == null) {
      return true;
    }
    for (Coverage coverage : now.tables()) {
      if (coverage.table().equals(table)) {
        Set<Long> oids = coverage.members().stream().map(Member::oid).collect(Collectors.toSet());
        if (!oids.equals(members.getOrDefault(table, Map.of()).keySet())) {
          return false;
        }
      }
    }
    return now.problems().stream()
        .filter(p -> p.table().equals(table))
        .allMatch(p -> reported.containsKey(p.key()));
  }

  /**
   * The relations that were members at the last check or still carry capture triggers after
   * leaving.
   */
  private Map<Long, TableId> formerRelations() {
    Map<Long, TableId> former = new HashMap<>(formerWithTriggers);
    if (members != null) {
      members.values().forEach(m -> m.values().forEach(x -> former.put(x.oid(), x.id())));
    }
    return former;
  }

  /**
   * Checks now. The first check, before the snapshot, learns the members without re-reading
   * anything.
   */
  void check() throws SQLException {
    suspected = false;
    lastCheckNanos = System.nanoTime();
    Map<Long, TableId> former = formerRelations();
    CaptureCheck check;
    try (Connection c = pool.getConnection()) {
      check =
          PgDialect.INSTANCE.checkCapture(c, plan.installation(), plan.tables(), former.keySet());
    }
    if (check == null) {
      return; // nothing to follow for this database family
    }
    Map<TableId, Map<Long, Member>> now = new HashMap<>();
    Set<TableId> joinedOrLeft = new HashSet<>();
    for (Coverage coverage : check.tables()) {
      Map<Long, Member> current = new HashMap<>();
      coverage.members().forEach(m -> current.put(m.oid(), m));
      now.put(coverage.table(), current);
      if (members != null) {
        joinedOrLeft.addAll(
            followMembers(
                coverage.table(), members.getOrDefault(coverage.table(), Map.of()), current));
      }
    }
    members = now;
    Set<Long> memberOids = check.memberOids();
    formerWithTriggers.clear();
    for (Problem p : check.problems()) {
      former.forEach(
          (oid, id) -> {
            if (p.issue() == CaptureCheck.Issue.STRAY
                && id.equals(p.relation())
                && !memberOids.contains(oid)) {
              formerWithTriggers.put(oid, id);
            }
          });
    }
    followProblems(check.problems(), joinedOrLeft);
  }

  /**
   * Logs and re-reads a table whose members changed; returns the relations that joined or left it.
   */
  private Set<TableId> followMembers(
      TableId table, Map<Long, Member> before, Map<Long, Member> current) {
    List<Member> joined =
        current.values().stream().filter(m -> !before.containsKey(m.oid())).toList();
    List<Member> gone =
        before.values().stream().filter(m -> !current.containsKey(m.oid())).toList();
    List<String> added = joined.stream().map(PgCaptureWatch::describe).toList();
    List<String> left = gone.stream().map(PgCaptureWatch::describe).toList();
    if (!added.isEmpty()) {
      LOG.warn(
          "Table {} has a new {}: capturing its changes{}, and re-reading {} (rows attached or inherited arrive "
              + "without firing triggers)",
          table,
          String.join(", ", added),
          config.installTriggers() ? " (its triggers are installed where missing)" : "",
          table);
      resyncs.add(table.qualified());
    }
    if (!left.isEmpty()) {
      LOG.warn(
          "Table {} no longer includes its former {} (detached, dropped, or NO INHERIT): re-reading {}{}",
          table,
          String.join(", ", left),
          table,
          config.installTriggers() ? " and dropping the capture triggers left on it" : "");
      resyncs.add(table.qualified());
    }
    Set<TableId> out = new HashSet<>();
    joined.forEach(m -> out.add(m.id()));
    gone.forEach(m -> out.add(m.id()));
    return out;
  }

  private static String describe(Member m) {
    return m.role().name().toLowerCase(java.util.Locale.ROOT) + " " + m.id();
  }

  /**
   * Reports new problems (ERROR and metric), repairs them when allowed, and re-reads tables whose
   * problems are gone. With {@code install_triggers}, the triggers a relation that just joined a
   * table lacks and those left on a relation that just left are expected work, not problems: they
   * are repaired under the WARN of {@link #followMembers}.
   */
  private void followProblems(List<Problem> problems, Set<TableId> joinedOrLeft) {
    Set<String> keys = problems.stream().map(Problem::key).collect(Collectors.toSet());
    repaired.retainAll(keys);
    retry.retainAll(keys);
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
        resyncs.add(table.qualified());
        tableFollowedAgain(table);
      }
    }
    for (TableId table : members.keySet()) { // the tail found it gone; back before a check saw it
      if (unfollowed.isGone(table.qualified())
          && !cleared.contains(table)
          && problems.stream().noneMatch(p -> p.table().equals(table))) {
        LOG.info("Table {} exists again: re-reading it", table);
        resyncs.add(table.qualified());
        tableFollowedAgain(table);
      }
    }
    Set<TableId> gone =
        problems.stream()
            .filter(PgCaptureWatch::tableGone)
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

  /**
   * Installs what is missing in one transaction: true when done. The problems fixed are forgotten
   * (so the fix is not reported as a recovery) and their tables re-read.
   */
  private boolean repair(List<Problem> problems) {
    Set<TableId> affected = new LinkedHashSet<>();
    problems.forEach(p -> affected.add(p.table()));
    try (Connection c = pool.getConnection()) {
      c.setReadOnly(false);
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("SET LOCAL lock_timeout = '" + REPAIR_LOCK_TIMEOUT + "'");
        for (String sql :
            PgDialect.INSTANCE.repairStatements(c, plan.installation(), plan.tables(), problems)) {
          s.execute(sql);
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "Could not repair the capture of {} (retrying at the next check): {}",
          affected,
          e.toString());
      for (Problem p : problems) {
        retry.add(p.key());
        if (reported.putIfAbsent(p.key(), p)
            == null) { // expected work that could not be done: a problem now
          LOG.error("Capture of {} is incomplete: {}", p.table(), p.message());
          metrics.captureProblem(p.table().qualified(), kind(p));
        }
      }
      return false;
    }
    LOG.warn(
        "Capture of {} repaired (triggers installed or enabled ALWAYS, stray ones dropped): re-reading {}",
        affected,
        affected.size() == 1 ? "it" : "them");
    for (Problem p : problems) {
      reported.remove(p.key());
      retry.remove(p.key());
      repaired.add(p.key());
    }
    affected.forEach(t -> resyncs.add(t.qualified()));
    for (TableId t :
        affected) { // one that was stale (a repair that failed before) is followed again
      if (reported.values().stream().noneMatch(p -> p.table().equals(t))) {
        tableFollowedAgain(t);
      }
    }
    return true;
  }

  /**
   * A table whose changes cannot all be captured now; called at every check while that lasts. It is
   * stale for its clients until {@link #tableFollowedAgain}.
   */
  private void tableCannotBeFollowed(TableId table, List<Problem> problems) {
    Problem gone = problems.stream().filter(PgCaptureWatch::tableGone).findFirst().orElse(null);
    if (gone != null) { // what else is wrong is about the relation it was: logged, not the reason
      unfollowed.gone(table, gone.message());
      return;
    }
    String suffix =
        problems.stream().noneMatch(p -> p.issue().repairable())
            ? ""
            : config.installTriggers()
                ? " (the server could not repair it: see its log)"
                : " (install_triggers is off: run `tablecast install`)";
    unfollowed.cannotFollow(
        table, problems.stream().map(Problem::message).collect(Collectors.joining("; ")) + suffix);
  }

  /**
   * Whether the last check found row-level security applying to this server's reads of {@code
   * table}: its reads see only what the policies show, so no reconciliation range may be compared.
   */
  boolean readsFiltered(TableId table) {
    return reported.values().stream()
        .anyMatch(p -> p.table().equals(table) && p.issue() == CaptureCheck.Issue.ROW_SECURITY);
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

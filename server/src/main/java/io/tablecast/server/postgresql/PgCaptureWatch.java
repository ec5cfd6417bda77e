package io.tablecast.server.postgresql;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.postgresql.CaptureCheck.Coverage;
import io.tablecast.server.postgresql.CaptureCheck.Member;
import io.tablecast.server.postgresql.CaptureCheck.Problem;
import io.tablecast.server.tail.UnfollowedTables;
import io.tablecast.server.tail.WatchedConnections;
import java.sql.Connection;
import java.sql.SQLException;
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
 * snapshot sees every change that bypassed capture. This class follows the members of each table;
 * what is done about the problems a check finds (reported once, repaired, followed until gone) is
 * {@link PgCaptureProblems}. Confined to the tail thread.
 */
final class PgCaptureWatch {
  private static final Logger LOG = RecentEvents.logger(PgCaptureWatch.class);

  private final CapturePlan plan;

  /** The tail's connections for its checks, watched as its reads are. */
  private final WatchedConnections connections;

  private final SourceConfig config;

  /** What is done about the problems a check finds: reported, repaired, followed until gone. */
  private final PgCaptureProblems problems;

  /** The members of each table at the last check; null before the first. */
  private Map<TableId, Map<Long, Member>> members;

  /**
   * Relations that left a table and still carry its capture triggers: looked at again each check.
   */
  private final Map<Long, TableId> formerWithTriggers = new HashMap<>();

  /**
   * Tables to re-read in the next outbox read, by qualified name: those whose members changed, and
   * those {@link PgCaptureProblems} re-reads. {@link #runIfDue} hands them over.
   */
  private final Set<String> resyncs = new LinkedHashSet<>();

  private long lastCheckNanos;
  private boolean suspected = true;

  PgCaptureWatch(
      CapturePlan plan,
      WatchedConnections connections,
      SourceConfig config,
      ServerMetrics metrics,
      UnfollowedTables unfollowed) {
    this.plan = plan;
    this.connections = connections;
    this.config = config;
    this.problems =
        new PgCaptureProblems(plan, connections, config, metrics, unfollowed, resyncs::add);
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
    if (suspected
        || problems.repairEnded()
        || (every > 0 && System.nanoTime() - lastCheckNanos >= every)) {
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
        .allMatch(problems::isReported);
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
    problems.takeBackgroundOutcome(); // before the catalog is read: it shows what that committed
    Map<Long, TableId> former = formerRelations();
    CaptureCheck check;
    try (Connection c = connections.get()) {
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
    problems.follow(check.problems(), joinedOrLeft, members.keySet());
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
    // the table itself is no member of its own: dropped, the capture check reports it missing
    if (isTable(joined)) {
      LOG.warn(
          "Table {} {}: re-reading it",
          table,
          isTable(gone) ? "was dropped and created again" : "exists again");
    }
    List<String> added =
        joined.stream()
            .filter(m -> m.role() != CaptureCheck.Role.TABLE)
            .map(PgCaptureWatch::describe)
            .toList();
    List<String> left =
        gone.stream()
            .filter(m -> m.role() != CaptureCheck.Role.TABLE)
            .map(PgCaptureWatch::describe)
            .toList();
    if (isTable(joined) || isTable(gone)) {
      resyncs.add(table.qualified()); // as for any member that joined or left
    }
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

  private static boolean isTable(List<Member> members) {
    return members.stream().anyMatch(m -> m.role() == CaptureCheck.Role.TABLE);
  }

  private static String describe(Member m) {
    return m.role().name().toLowerCase(java.util.Locale.ROOT) + " " + m.id();
  }

  /**
   * Whether the last check found row-level security applying to this server's reads of {@code
   * table} ({@link PgCaptureProblems#readsFiltered}).
   */
  boolean readsFiltered(TableId table) {
    return problems.readsFiltered(table);
  }

  /** Ends a capture repair still waiting beside the tail. */
  void close() {
    problems.close();
  }
}

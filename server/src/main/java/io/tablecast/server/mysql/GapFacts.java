package io.tablecast.server.mysql;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.WatchedConnections;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Where the facts that resolve a skipped outbox id come from ({@link GapTracker}): looks at {@code
 * information_schema.innodb_trx} ({@link TrxLooks}), or, without the PROCESS privilege, lock probes
 * of the missing ids ({@link LockProbe}), which count an id as rolled back once it was found
 * neither present nor locked for longer than any insert may wait for a lock. Tail thread only.
 */
final class GapFacts {
  private static final Logger LOG = RecentEvents.logger(GapFacts.class);

  /** Without innodb_trx: each unresolved gap is probed at most this often, this many per poll. */
  private static final long PROBE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private static final int PROBES_PER_POLL = 100;

  private final WatchedConnections connections;
  private final LockProbe probe;
  private final Duration probeWaitOverride;
  private final TrxLooks looks = new TrxLooks();
  private boolean trxUnreadable;

  /**
   * @param probeWaitOverride how long probes must find an id absent; null = {@code
   *     innodb_lock_wait_timeout} + 1 s, read from the database
   */
  GapFacts(WatchedConnections connections, LockProbe probe, Duration probeWaitOverride) {
    this.connections = connections;
    this.probe = probe;
    this.probeWaitOverride = probeWaitOverride;
  }

  /** True once innodb_trx turned out unreadable: gaps are resolved by lock probes. */
  boolean probing() {
    return trxUnreadable;
  }

  /** True when a fresh look at innodb_trx may be taken now (InnoDB caches it for 100 ms). */
  boolean lookDue() {
    return looks.due();
  }

  /**
   * A look at innodb_trx on {@code c}, or null without the PROCESS privilege: then {@code gaps}
   * (when there are any yet) and every later tracker use probes.
   */
  GapTracker.Look look(Connection c, boolean ownTransaction, GapTracker gaps) throws SQLException {
    if (trxUnreadable) {
      return null;
    }
    try {
      return looks.look(c, ownTransaction);
    } catch (SQLException e) {
      if (!TrxLooks.isAccessDenied(e)) {
        throw e;
      }
      trxUnreadable = true;
      if (gaps != null) {
        gaps.useProbes();
      }
      LOG.warn(
          "Cannot read information_schema.innodb_trx ({}): grant PROCESS to the Tablecast user. Until then "
              + "skipped outbox ids are resolved by lock probes: an id whose row is neither present nor locked for "
              + "{} counts as rolled back (counted in tablecast.gaps.expired).",
          e.getMessage(),
          probeWait(c));
      return null;
    }
  }

  /** How long lock probes must find an id absent: longer than any insert may wait for a lock. */
  Duration probeWait(Connection c) throws SQLException {
    if (probeWaitOverride != null) {
      return probeWaitOverride;
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@GLOBAL.innodb_lock_wait_timeout")) {
      rs.next();
      return Duration.ofSeconds(rs.getLong(1) + 1);
    }
  }

  /** Probes the gaps of {@code gaps} that are due, on a connection of its own (READ COMMITTED). */
  void probeDueGaps(GapTracker gaps) throws SQLException {
    long now = System.nanoTime();
    List<long[]> due = gaps.idsToProbe(now, PROBE_EVERY_NANOS, PROBES_PER_POLL);
    if (due.isEmpty()) {
      return;
    }
    try (Connection c = connections.get()) {
      for (long[] range : due) {
        gaps.probed(range[0], range[1], probe.probe(c, range[0], range[1]), System.nanoTime());
      }
    }
  }
}

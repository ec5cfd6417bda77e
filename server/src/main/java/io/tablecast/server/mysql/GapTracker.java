package io.tablecast.server.mysql;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * MySQL/MariaDB: which outbox ids may still appear. Auto-increment ids are taken at insert, not at
 * commit, so a lower id can become visible after higher ids were delivered. Every id skipped by a
 * read is a <em>gap</em>, stamped with the database time just after that read. Its holder, if any,
 * is a transaction that had already written a row of a cached table (the capture triggers run AFTER
 * the row change) and started before that time.
 *
 * <p>A gap is <em>settled</em> when a later <em>fresh</em> look at {@code
 * information_schema.innodb_trx} shows no writing transaction that started at or before its stamp:
 * the holder has committed (its row is visible to the next read) or rolled back. The next read is
 * then final: a found row is delivered, a missing one was rolled back and is dropped. {@code
 * innodb_trx} is a cache that InnoDB refreshes only when it was not read for 100 ms, so a reader
 * polling it faster sees it frozen forever; a look is fresh only when it lists the transaction the
 * look itself began ({@link Look#fresh()}). Its {@code trx_started} has whole seconds, which only
 * makes the rule wait longer.
 *
 * <p>Without the PROCESS privilege {@code innodb_trx} is unreadable and lock probes decide instead
 * ({@link #idsToProbe}, {@link #probed}): an uncommitted outbox row is locked by its holder, so a
 * probe that finds neither a row nor a lock, again and again for longer than {@code
 * innodb_lock_wait_timeout} (the longest an insert can wait between taking its id and placing its
 * row), means rolled back.
 *
 * <p>Ids below the snapshot's lowest id, and long runs of skipped ids (an AUTO_INCREMENT bump), are
 * tracked as ranges resolved the same way; rows found inside a range are remembered so they are
 * delivered once.
 *
 * <p>Pure state, no I/O: a poll computes {@link #whereClause()}, reads, looks at the open
 * transactions, then calls {@link #apply} only when all of that succeeded, so a database error
 * leaves the position unchanged.
 */
final class GapTracker {
  /** More gaps than this are read as one id range and filtered here. */
  static final int MAX_IN_LIST = 1000;

  /** A run of more skipped ids than this is tracked as one range. */
  static final int MAX_SINGLE_GAPS_PER_RUN = 1000;

  /** The stamp of a gap seen by a read that was not followed by a look: the next look stamps it. */
  private static final long UNSTAMPED = -1;

  /**
   * What one look at {@code innodb_trx} showed, on the database's clock.
   *
   * @param nowMicros the database time of the look
   * @param oldestWriterStartMicros the start of the oldest open transaction that has written a row,
   *     or {@link Long#MAX_VALUE} when there is none
   * @param fresh whether the cache was refreshed after the look began (it listed the look's own
   *     transaction); a stale look only stamps gaps
   */
  record Look(long nowMicros, long oldestWriterStartMicros, boolean fresh) {}

  /** What a lock probe found at one outbox id (or id range). */
  enum Probe {
    ABSENT,
    LOCKED,
    PRESENT
  }

  private static class Gap {
    /** Database time after the read that skipped it; {@link #UNSTAMPED} until a look. */
    long stampMicros;

    /** Its holder has ended: the next read is final. */
    boolean settled;

    /** Without innodb_trx: since when every probe found neither row nor lock; -1 = not absent. */
    long absentSinceNanos = -1;

    long lastProbeNanos = Long.MIN_VALUE;

    Gap(long stampMicros) {
      this.stampMicros = stampMicros;
    }
  }

  /** Ids in [from, to) not yet delivered. */
  private static final class RangeGap extends Gap {
    final long from;
    final long to;
    final Set<Long> delivered = new HashSet<>();

    RangeGap(long stampMicros, long from, long to) {
      super(stampMicros);
      this.from = from;
      this.to = to;
    }
  }

  private long maxSeen;
  private final TreeMap<Long, Gap> gaps = new TreeMap<>();
  private final List<RangeGap> ranges = new ArrayList<>();
  private final long probeWaitNanos;

  /** innodb_trx is unreadable: lock probes settle the gaps. */
  private boolean probing;

  /**
   * @param probeWaitNanos without {@code innodb_trx}: how long probes must find an id neither
   *     present nor locked before it counts as rolled back (more than {@code
   *     innodb_lock_wait_timeout})
   */
  GapTracker(long probeWaitNanos) {
    this.probeWaitNanos = probeWaitNanos;
  }

  /**
   * Positions after a snapshot that saw outbox ids {@code minId..maxId} except {@code missing}.
   *
   * @param look a look at the open transactions taken after the snapshot began, or null
   */
  void start(long minId, long maxId, Collection<Long> missing, Look look) {
    gaps.clear();
    ranges.clear();
    maxSeen = maxId;
    long stamp = stamp(look);
    for (long id : missing) {
      gaps.put(id, new Gap(stamp));
    }
    if (minId > 1) {
      ranges.add(new RangeGap(stamp, 1, minId));
    }
  }

  private static long stamp(Look look) {
    return look == null ? UNSTAMPED : look.nowMicros();
  }

  /**
   * {@code innodb_trx} is unreadable (no PROCESS privilege): from now on lock probes settle gaps.
   */
  void useProbes() {
    probing = true;
  }

  long maxSeen() {
    return maxSeen;
  }

  /** This position as a cursor a later run resumes after. */
  OutboxCursor cursor() {
    List<OutboxCursor.Range> rs = new ArrayList<>();
    for (RangeGap r : ranges) {
      rs.add(new OutboxCursor.Range(r.from, r.to, r.delivered.stream().sorted().toList()));
    }
    return new OutboxCursor(maxSeen, new ArrayList<>(gaps.keySet()), rs);
  }

  /**
   * Positions at {@code cursor}, an earlier run's: every gap unstamped and unsettled, so that the
   * next looks at the open transactions (or probes) settle it as they settle a new one.
   */
  void restore(OutboxCursor cursor) {
    gaps.clear();
    ranges.clear();
    maxSeen = cursor.maxSeen();
    for (long id : cursor.gaps()) {
      gaps.put(id, new Gap(UNSTAMPED));
    }
    for (OutboxCursor.Range r : cursor.ranges()) {
      RangeGap range = new RangeGap(UNSTAMPED, r.from(), r.to());
      range.delivered.addAll(r.delivered());
      ranges.add(range);
    }
  }

  int gapCount() {
    return gaps.size() + ranges.size();
  }

  /**
   * Rows below this id are delivered or rolled back; pruning may delete them (never maxSeen
   * itself).
   */
  long lowestUnresolved() {
    long low = maxSeen;
    if (!gaps.isEmpty()) {
      low = Math.min(low, gaps.firstKey());
    }
    for (RangeGap r : ranges) {
      low = Math.min(low, r.from);
    }
    return low;
  }

  /** The condition of the next read (ids are numbers we produced: safe to inline). */
  String whereClause() {
    StringBuilder sb = new StringBuilder("id > ").append(maxSeen);
    if (!gaps.isEmpty()) {
      if (gaps.size() <= MAX_IN_LIST) {
        StringJoiner in = new StringJoiner(", ", " OR id IN (", ")");
        for (long id : gaps.keySet()) {
          in.add(Long.toString(id));
        }
        sb.append(in);
      } else {
        sb.append(" OR id BETWEEN ").append(gaps.firstKey()).append(" AND ").append(gaps.lastKey());
      }
    }
    for (RangeGap r : ranges) {
      sb.append(
          r.from <= 1 ? " OR id < " + r.to : " OR id BETWEEN " + r.from + " AND " + (r.to - 1));
    }
    return sb.toString();
  }

  /** Whether a row returned by the read is new (range reads also return delivered rows). */
  boolean wanted(long id) {
    if (id > maxSeen || gaps.containsKey(id)) {
      return true;
    }
    for (RangeGap r : ranges) {
      if (id >= r.from && id < r.to && !r.delivered.contains(id)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Records one successful read and the look at the open transactions taken after it, if any.
   *
   * @param ids the wanted ids the read returned, ascending
   * @param look the look at {@code innodb_trx} after the read, or null when none was taken (looks
   *     are spaced so the cache can refresh) or {@code innodb_trx} is unreadable
   * @return the number of single gaps dropped as rolled back
   */
  int apply(List<Long> ids, Look look, long nowNanos) {
    // 1. Settled gaps this read did not return: rolled back.
    int dropped = 0;
    Set<Long> found = new HashSet<>(ids);
    for (Iterator<Map.Entry<Long, Gap>> it = gaps.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, Gap> e = it.next();
      if (found.contains(e.getKey())) {
        it.remove();
      } else if (e.getValue().settled) {
        it.remove();
        dropped++;
      }
    }
    for (Iterator<RangeGap> it = ranges.iterator(); it.hasNext(); ) {
      RangeGap r = it.next();
      if (r.settled) {
        it.remove();
        continue;
      }
      for (long id : ids) {
        if (id >= r.from && id < r.to) {
          r.delivered.add(id);
        }
      }
    }
    // 2. New gaps: ids skipped above maxSeen.
    long stamp = stamp(look);
    long next = maxSeen + 1;
    for (long id : ids) {
      if (id >= next) {
        if (id - next > MAX_SINGLE_GAPS_PER_RUN) {
          ranges.add(new RangeGap(stamp, next, id));
        } else {
          for (long g = next; g < id; g++) {
            gaps.put(g, new Gap(stamp));
          }
        }
        next = id + 1;
      }
    }
    if (!ids.isEmpty()) {
      maxSeen = Math.max(maxSeen, ids.get(ids.size() - 1));
    }
    // 3. Gaps whose holders have ended: the next read is final.
    for (Gap g : gaps.values()) {
      settle(g, look, nowNanos);
    }
    for (Gap g : ranges) {
      settle(g, look, nowNanos);
    }
    return dropped;
  }

  private void settle(Gap g, Look look, long nowNanos) {
    if (g.settled) {
      return;
    }
    if (probing) {
      g.settled = g.absentSinceNanos != -1 && nowNanos - g.absentSinceNanos >= probeWaitNanos;
    } else if (look != null) {
      if (g.stampMicros == UNSTAMPED) {
        g.stampMicros = look.nowMicros(); // taken after the read that skipped it
      } else if (look.fresh()) {
        // the look began after the stamp: a holder still open then is listed, with trx_started <=
        // stamp
        g.settled =
            g.stampMicros < look.nowMicros() && look.oldestWriterStartMicros() > g.stampMicros;
      }
    }
  }

  /** Whether some gap waits for a lock probe. */
  boolean needsProbes() {
    return probing && gapCount() > 0;
  }

  /** Whether some gap waits for a look at innodb_trx (to be stamped or settled). */
  boolean needsLook() {
    return !probing && gapCount() > 0;
  }

  /**
   * Up to {@code max} unsettled gaps that wait for a probe, least recently probed first, each
   * probed at most once per {@code everyNanos}. A single id is {@code [id, id + 1)}.
   */
  List<long[]> idsToProbe(long nowNanos, long everyNanos, int max) {
    List<Map.Entry<long[], Gap>> due = new ArrayList<>();
    for (Map.Entry<Long, Gap> e : gaps.entrySet()) {
      if (probeDue(e.getValue(), nowNanos, everyNanos)) {
        due.add(Map.entry(new long[] {e.getKey(), e.getKey() + 1}, e.getValue()));
      }
    }
    for (RangeGap r : ranges) {
      if (probeDue(r, nowNanos, everyNanos)) {
        due.add(Map.entry(new long[] {r.from, r.to}, r));
      }
    }
    due.sort(Comparator.comparingLong(e -> e.getValue().lastProbeNanos));
    List<long[]> out = new ArrayList<>();
    for (int i = 0; i < Math.min(max, due.size()); i++) {
      out.add(due.get(i).getKey());
    }
    return out;
  }

  private boolean probeDue(Gap g, long nowNanos, long everyNanos) {
    return probing
        && !g.settled
        && (g.lastProbeNanos == Long.MIN_VALUE || nowNanos - g.lastProbeNanos >= everyNanos);
  }

  /**
   * Records what a probe of {@code [from, to)} found (a range: LOCKED if any id in it is locked).
   */
  void probed(long from, long to, Probe result, long nowNanos) {
    Gap g = to == from + 1 ? gaps.get(from) : null;
    if (g == null) {
      for (RangeGap r : ranges) {
        if (r.from == from && r.to == to) {
          g = r;
        }
      }
    }
    if (g == null) {
      return; // resolved meanwhile
    }
    g.lastProbeNanos = nowNanos;
    if (result == Probe.ABSENT) {
      if (g.absentSinceNanos == -1) {
        g.absentSinceNanos = nowNanos;
      }
    } else {
      g.absentSinceNanos = -1; // its holder placed the row: wait for the commit or the rollback
    }
  }
}

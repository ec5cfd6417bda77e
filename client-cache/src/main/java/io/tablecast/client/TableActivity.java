package io.tablecast.client;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * What happened to one table of a client: its mirrors (one per row type), the changes applied to
 * them, re-snapshots, snapshots cut short, resumes, rows that could not be mapped, and the lag of
 * its last transaction: from its capture in the database ({@code ChangeBatch.captureMillis}) to its
 * application in the mirror. Several mirrors of one table apply each transaction in turn: only the
 * first mirror's application is counted, so a table's figures do not depend on how many row types
 * mirror it. Thread-safe; counted on the connection's event loop.
 */
final class TableActivity {
  /** How long a transaction's lag is shown by {@link #heldLagMillis()}; then 0 until the next. */
  static final long LAG_HOLD_MILLIS = 1_000;

  private final String table;
  private final LongSupplier clockMillis;
  private final List<Mirror<?>> mirrors = new CopyOnWriteArrayList<>();
  private final AtomicLong changes = new AtomicLong();
  private final AtomicLong resnapshots = new AtomicLong();
  private final AtomicLong snapshotsCutShort = new AtomicLong();
  private final AtomicLong resumes = new AtomicLong();
  private final AtomicLong unmappedRows = new AtomicLong();

  /** The last transaction's lag and when it was applied (clock ms), published together. */
  private volatile long[] lastLag;

  /** Told each transaction's lag in ms; identity-keyed so that one recorder is added once. */
  private final List<LagRecorder> lagRecorders = new CopyOnWriteArrayList<>();

  private record LagRecorder(Object owner, LongConsumer record) {}

  TableActivity(String table) {
    this(table, System::currentTimeMillis);
  }

  TableActivity(String table, LongSupplier clockMillis) {
    this.table = table;
    this.clockMillis = clockMillis;
  }

  String table() {
    return table;
  }

  void attach(Mirror<?> mirror) {
    mirrors.add(mirror);
  }

  /**
   * {@code mirror} applied a transaction of {@code changeCount} changes of the table, captured at
   * {@code captureMillis} (0: unknown); returns its lag in ms, or -1 when unknown.
   */
  long applied(Mirror<?> mirror, int changeCount, long captureMillis) {
    long now = clockMillis.getAsLong();
    long lag = captureMillis > 0 ? Math.max(0, now - captureMillis) : -1;
    if (mirrors.isEmpty() || mirrors.get(0) != mirror) {
      return lag; // counted when the table's first mirror applied it
    }
    changes.addAndGet(changeCount);
    if (lag >= 0) {
      lastLag = new long[] {lag, now};
      for (LagRecorder r : lagRecorders) {
        r.record().accept(lag);
      }
    }
    return lag;
  }

  void resnapshotted() {
    resnapshots.incrementAndGet();
  }

  void resumed() {
    resumes.incrementAndGet();
  }

  void snapshotCutShort() {
    snapshotsCutShort.incrementAndGet();
  }

  void rowNotMapped() {
    unmappedRows.incrementAndGet();
  }

  /**
   * Adds {@code record}, told the lag in ms of each transaction applied from now on, unless one was
   * added for {@code owner} (compared by identity) already.
   */
  synchronized void recordLagInto(Object owner, LongConsumer record) {
    for (LagRecorder r : lagRecorders) {
      if (r.owner() == owner) {
        return;
      }
    }
    lagRecorders.add(new LagRecorder(owner, record));
  }

  /** Changes applied (counted once per table, see the class comment). */
  long changes() {
    return changes.get();
  }

  long resnapshots() {
    return resnapshots.get();
  }

  long resumes() {
    return resumes.get();
  }

  /** Snapshots the connection's end cut short (each asked for again on reconnect). */
  long snapshotsCutShort() {
    return snapshotsCutShort.get();
  }

  long unmappedRows() {
    return unmappedRows.get();
  }

  /** Rows of the table's first mirror; 0 before it has any. */
  int rows() {
    return mirrors.isEmpty() ? 0 : mirrors.get(0).size();
  }

  /** True when every mirror of the table holds its first snapshot. */
  boolean ready() {
    for (Mirror<?> m : mirrors) {
      if (!m.isReady()) {
        return false;
      }
    }
    return !mirrors.isEmpty();
  }

  /** True while a mirror of the table may differ from it ({@link TableMirror#staleReason()}). */
  boolean stale() {
    for (Mirror<?> m : mirrors) {
      if (m.staleReason() != null) {
        return true;
      }
    }
    return false;
  }

  /** The stream position the table's mirrors reached (the furthest); -1 before a snapshot. */
  long position() {
    long p = -1;
    for (Mirror<?> m : mirrors) {
      p = Math.max(p, m.position());
    }
    return p;
  }

  /**
   * The lag of the table's last transaction for {@link #LAG_HOLD_MILLIS} after it was applied, then
   * 0 until the next: an idle table shows no lag rather than its last figure for ever.
   */
  long heldLagMillis() {
    long[] l = lastLag;
    if (l == null || clockMillis.getAsLong() - l[1] >= LAG_HOLD_MILLIS) {
      return 0;
    }
    return l[0];
  }
}

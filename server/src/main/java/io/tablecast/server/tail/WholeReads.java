package io.tablecast.server.tail;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.progress.Progress;
import org.slf4j.Logger;

/**
 * The whole-table reads a source makes within a poll while serving (a table re-read after an {@code
 * ALTER TABLE}, a {@code TRUNCATE} or a repaired capture; every table after a failover), which hold
 * the tail, and with it every table's changes, for as long as the tables are large. Each shows its
 * progress as a snapshot does ({@link Progress}), and the one in progress is said ({@link #now}):
 * when the poll has gone {@code source.answer_timeout} without returning, the reason every table is
 * stale names it instead of a database that may have stopped answering. Thread-safe: the tail
 * reads, the poll's watch asks.
 */
public final class WholeReads {
  private static final Logger LOG = RecentEvents.logger(WholeReads.class);

  private volatile Progress current;

  /** Starts a whole read, {@code task} naming it ("re-read shop.orders"); close it when done. */
  public Read start(String task) {
    Progress progress = Progress.start(task, "rows", -1, LOG);
    current = progress;
    return new Read(progress);
  }

  /** The whole read in progress as its progress line, null when none is. */
  public String now() {
    Progress p = current;
    return p == null ? null : p.line();
  }

  /** One whole read: count its rows, close it when done. */
  public final class Read implements AutoCloseable {
    private final Progress progress;

    private Read(Progress progress) {
      this.progress = progress;
    }

    /** One row more read. */
    public void row() {
      progress.advance(1);
    }

    /** The table being read now, when the read covers several. */
    public void reading(String table) {
      progress.detail(table);
    }

    @Override
    public void close() {
      progress.close();
      if (current == progress) {
        current = null;
      }
    }
  }
}

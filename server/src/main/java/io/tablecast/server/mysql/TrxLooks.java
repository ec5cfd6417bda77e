package io.tablecast.server.mysql;

import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * MySQL/MariaDB: looks at {@code information_schema.innodb_trx} for the oldest open transaction
 * that has written rows (every holder of an outbox id has: the capture triggers run after the row
 * change), and tells whether the look was fresh.
 *
 * <p>InnoDB serves {@code innodb_trx} from a cache that it refreshes only when the cache was not
 * read for 100 ms; a reader polling it faster (this server, or a monitoring agent) freezes it, and
 * a frozen cache never lists a transaction that began later. So a look runs in a transaction of its
 * own, begun at once ({@code START TRANSACTION WITH CONSISTENT SNAPSHOT}), and is <em>fresh</em>
 * only when the cache lists that transaction running this very statement (a token in the query text
 * tells it from an earlier look of the same connection). Looks are spaced {@link #EVERY_NANOS}
 * apart, and further, with jitter, after a stale one; stale looks for long are reported once every
 * 30 s. Confined to the tail thread.
 */
final class TrxLooks {
  private static final Logger LOG = RecentEvents.logger(TrxLooks.class);

  /** At most one look this often: the cache must stay unread for 100 ms to be refreshed. */
  static final long EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  private static final long STALE_WARN_NANOS = TimeUnit.SECONDS.toNanos(30);

  private long count;
  private long nextNanos;
  private long staleSinceNanos;
  private long staleWarnedNanos;

  /** Whether the next look is due (looks are spaced so the cache can refresh). */
  boolean due() {
    return System.nanoTime() >= nextNanos;
  }

  /** True when {@code e} says the user may not read innodb_trx (no PROCESS privilege). */
  static boolean isAccessDenied(SQLException e) {
    return e.getErrorCode() == 1227 || e.getErrorCode() == 1044 || e.getErrorCode() == 1142;
  }

  /**
   * Looks once.
   *
   * @param ownTransaction true to run in a transaction of its own (on an autocommit connection);
   *     false inside the caller's transaction, which must have begun with a consistent snapshot
   */
  GapTracker.Look look(Connection c, boolean ownTransaction) throws SQLException {
    count++;
    String token = "tablecast-look-" + count + "-";
    String sql =
        "SELECT '"
            + token
            + "', CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED), "
            + "CAST(UNIX_TIMESTAMP(MIN(CASE WHEN trx_rows_modified > 0 THEN trx_started END)) * 1000000 AS SIGNED), "
            + "COALESCE(SUM(trx_mysql_thread_id = CONNECTION_ID() AND trx_query LIKE '%"
            + token
            + "%'), 0) "
            + "FROM information_schema.innodb_trx";
    GapTracker.Look look;
    try (Statement s = c.createStatement()) {
      if (ownTransaction) {
        s.execute(
            "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"); // begins in InnoDB at once
      }
      try (ResultSet rs = s.executeQuery(sql)) {
        rs.next();
        long now = rs.getLong(2);
        long oldest = rs.getLong(3);
        boolean noWriter = rs.wasNull();
        look = new GapTracker.Look(now, noWriter ? Long.MAX_VALUE : oldest, rs.getLong(4) > 0);
      } finally {
        if (ownTransaction) {
          s.execute("COMMIT");
        }
      }
    }
    long now = System.nanoTime();
    if (look.fresh()) {
      staleSinceNanos = 0;
      nextNanos = now + EVERY_NANOS;
    } else {
      nextNanos = now + EVERY_NANOS / 2 + ThreadLocalRandom.current().nextLong(EVERY_NANOS);
      reportStale(now);
    }
    return look;
  }

  private void reportStale(long now) {
    if (staleSinceNanos == 0) {
      staleSinceNanos = now;
    } else if (now - staleSinceNanos > STALE_WARN_NANOS
        && now - staleWarnedNanos > STALE_WARN_NANOS) {
      staleWarnedNanos = now;
      LOG.warn(
          "information_schema.innodb_trx has not been refreshed for {} s: InnoDB refreshes it only after "
              + "100 ms without readers, so something polls it faster. Skipped outbox ids stay unresolved (nothing is "
              + "lost, but pruning waits) until it is refreshed.",
          TimeUnit.NANOSECONDS.toSeconds(now - staleSinceNanos));
    }
  }
}

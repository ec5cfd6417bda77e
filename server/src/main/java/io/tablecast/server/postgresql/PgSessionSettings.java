package io.tablecast.server.postgresql;

import io.tablecast.server.capture.Identifiers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The settings PostgreSQL sessions of the server run with beside the role's and database's own: per
 * whole-table read, the pinned output settings and no time limits ({@link #tableReads}); per pooled
 * connection, no JIT compilation, no idle limit and generic plans ({@link #pool}).
 */
final class PgSessionSettings {

  /**
   * The pool's sessions, set up once per connection in one statement:
   *
   * <ul>
   *   <li>No JIT compilation ({@code jit = off}). The tail's read of the outbox compares {@code
   *       txid} with values the planner cannot see, so it estimates a third to a half of the
   *       outbox's rows; once the outbox holds a million or so (an hour's retention at a few
   *       hundred changes a second), that estimate passes {@code jit_above_cost} and every read,
   *       which finds a few rows through the index, first compiled itself: 15-20 ms a poll, the
   *       median latency of every change at 1,000/s going from about 1 ms to 20 (BENCHMARKS.md,
   *       2026-12-03). The server's statements are short index reads, or whole-table reads whose
   *       cost is the rows' transfer and parsing.
   *   <li>No {@code idle_session_timeout} (PostgreSQL 14+): a role's or database's (DBAs set one
   *       for interactive users) closed the pool's idle connections under it, so each next use
   *       found its connection closed; the pool ends its own connections (idle ones after 10
   *       minutes, every one after 30). Skipped on PostgreSQL 13, which has no such setting.
   *   <li>Generic plans for prepared statements ({@code plan_cache_mode = force_generic_plan}),
   *       when the driver prepares statements on the server ({@code serverPrepares}). The tail's
   *       read is the same statement at every poll with another snapshot; by default PostgreSQL
   *       planned it again for each snapshot's values, since its plan for any snapshot expected
   *       more rows than one for the values at hand, and planning the read took three to five times
   *       as long as running it (0.15-0.3 ms against 0.04-0.05 on this project's machine, at every
   *       poll). With the read bounded by its own snapshot as well ({@link
   *       PgOutboxQueries#newRows}) the generic plan is the same index scans, planned once per
   *       connection. The server's other repeated statements with parameters (a reconciliation
   *       range, pruning, the catalog looks) are index scans under a {@code LIMIT} or reads of the
   *       catalogs, whose plans do not depend on their values either.
   * </ul>
   *
   * <p>Through PgBouncer in transaction mode these may land on another client's server connection:
   * what PostgreSQL's documentation advises for a pooler's connections anyway, and a JIT a short
   * statement does not need. Generic plans are not asked for there: such a pooler needs {@code
   * prepareThreshold=0} (docs/CONFIGURATION.md), with which pgjdbc prepares nothing on the server,
   * so they would bring nothing and could change other clients' plans.
   */
  static String pool(boolean serverPrepares) {
    return "SELECT set_config('jit', 'off', false),"
        + " CASE WHEN current_setting('server_version_num')::int >= 140000"
        + " THEN set_config('idle_session_timeout', '0', false) END"
        + (serverPrepares ? ", set_config('plan_cache_mode', 'force_generic_plan', false)" : "");
  }

  /**
   * Whether pgjdbc prepares statements on the server with {@code driverOptions} (names in lower
   * case): not with {@code prepareThreshold} 0 or less, nor with {@code preferQueryMode=simple}.
   */
  static boolean serverPrepares(Map<String, String> driverOptions) {
    String threshold = driverOptions.get("preparethreshold");
    if (threshold != null) {
      try {
        if (Integer.parseInt(threshold.trim()) <= 0) {
          return false;
        }
      } catch (NumberFormatException notANumber) {
        return true; // pgjdbc refuses such a URL itself
      }
    }
    return !"simple".equalsIgnoreCase(driverOptions.getOrDefault("preferquerymode", "").trim());
  }

  private PgSessionSettings() {}

  /**
   * The statement to run at the start of each transaction that reads whole tables (snapshot,
   * resync, a reconciliation range), so the rows print as the pinned capture function prints them:
   * one {@code SELECT set_config(name, value, true), ...} (each as {@code SET LOCAL}), one round
   * trip for all of them. Also {@code statement_timeout = 0} and {@code
   * idle_in_transaction_session_timeout = 0}: a whole-table read takes as long as the table is
   * large, its transaction waits while the server handles the rows read, and cut short by a timeout
   * of the server's role or database it would be retried for ever.
   */
  static String tableReads() {
    StringBuilder out = new StringBuilder("SELECT ");
    List<String> settings = new ArrayList<>(PgTriggers.PINNED_SETTINGS);
    settings.add("statement_timeout=0");
    settings.add("idle_in_transaction_session_timeout=0"); // rows are handled between fetches
    for (String s : settings) {
      int eq = s.indexOf('=');
      out.append(out.length() == 7 ? "" : ", ")
          .append("set_config(")
          .append(Identifiers.literal(s.substring(0, eq)))
          .append(", ")
          .append(Identifiers.literal(s.substring(eq + 1)))
          .append(", true)");
    }
    return out.toString();
  }
}

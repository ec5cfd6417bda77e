package io.tablecast.server.postgresql;

import io.tablecast.server.capture.Identifiers;
import java.util.ArrayList;
import java.util.List;

/**
 * The settings PostgreSQL sessions of the server run with beside the role's and database's own: per
 * whole-table read, the pinned output settings and no time limits ({@link #tableReads}); per pooled
 * connection, no idle limit ({@link #POOL}).
 */
final class PgSessionSettings {

  /**
   * No {@code idle_session_timeout} (PostgreSQL 14+) on the pool's sessions: a role's or database's
   * (DBAs set one for interactive users) closed the pool's idle connections under it, so each next
   * use found its connection closed; the pool ends its own connections (idle ones after 10 minutes,
   * every one after 30). A {@code set_config} in a {@code SELECT}, which PostgreSQL 13, without the
   * setting, skips. Through PgBouncer in transaction mode it may land on another client's server
   * connection: the setting PostgreSQL's documentation advises for a pooler's connections anyway.
   */
  static final String POOL =
      "SELECT set_config('idle_session_timeout', '0', false)"
          + " WHERE current_setting('server_version_num')::int >= 140000";

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

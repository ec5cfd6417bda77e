package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The capture triggers whose {@code DEFINER} account no longer exists. A MySQL/MariaDB trigger runs
 * as the account that created it (the one that ran {@code tablecast install}); with that account
 * dropped, every write of the trigger's table fails ("ERROR 1449: The user specified as a definer
 * does not exist", MariaDB 10.11; MySQL 8.0.22 and later refuse such a {@code DROP USER} unless the
 * account dropping it holds {@code SET_USER_ID}). {@code install} recreates them as the account
 * that runs it ({@link MysqlInstallScript}), and the capture check names them. Whether an account
 * exists is read from {@code mysql.user}. A user that may not read it cannot tell and finds none:
 * it is told once, with the grant that lets it tell, and asked again only after {@link #ASK_AGAIN}
 * (an install account with the grants docs/SECURITY.md lists sees the triggers but may not read
 * {@code mysql.user}, and its server's capture check was refused every 10 s, error 1142, which the
 * MariaDB driver logs at WARN, saying nothing of what it could not tell). One per dialect, that is
 * per server or command.
 */
final class TriggerDefiners {
  private static final Logger LOG = RecentEvents.logger(TriggerDefiners.class);

  /** How long after a refused look at {@code mysql.user} it is not asked again. */
  static final Duration ASK_AGAIN = Duration.ofHours(1);

  /** MySQL's "SELECT command denied" on {@code mysql.user}: whether accounts exist is unknown. */
  private static final MysqlDdlLocks LOCKS = new MysqlDdlLocks();

  /** When {@code mysql.user} was last refused to this user (System.nanoTime), 0: not refused. */
  private long refusedAtNanos;

  /**
   * The {@code tablecast_*} triggers of {@code schemas} whose definer account does not exist, each
   * (its schema and name) with that account as the catalog shows it ({@code deploy@%}); empty when
   * this user may not read {@code mysql.user}.
   */
  synchronized Map<TableId, String> gone(Connection c, Collection<String> schemas)
      throws SQLException {
    if (schemas.isEmpty()
        || (refusedAtNanos != 0 && System.nanoTime() - refusedAtNanos < ASK_AGAIN.toNanos())) {
      return Map.of();
    }
    String sql =
        "SELECT t.TRIGGER_SCHEMA, t.TRIGGER_NAME, t.DEFINER FROM information_schema.TRIGGERS t"
            + " WHERE t.TRIGGER_SCHEMA IN ("
            + String.join(", ", Collections.nCopies(schemas.size(), "?"))
            + ") AND t.TRIGGER_NAME LIKE 'tablecast\\_%' AND NOT EXISTS (SELECT 1 FROM mysql.user u"
            + " WHERE CONCAT(u.User, '@', u.Host) = t.DEFINER)";
    Map<TableId, String> out = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      List<String> list = List.copyOf(schemas);
      for (int i = 0; i < list.size(); i++) {
        ps.setString(i + 1, list.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(new TableId(rs.getString(1), rs.getString(2)), rs.getString(3));
        }
      }
    } catch (SQLException e) {
      if (!LOCKS.isReadDenied(e)) {
        throw e;
      }
      if (refusedAtNanos == 0) {
        LOG.warn(
            "Cannot tell whether the accounts the capture triggers run as still exist: this user may"
                + " not read mysql.user ({}). A trigger whose account was dropped fails every write"
                + " of its table (ERROR 1449); grant this user SELECT on mysql.user to have such"
                + " triggers named and recreated, or run `tablecast check` as an administrator"
                + " (docs/SECURITY.md). Asked again in {} min",
            e.getMessage(),
            ASK_AGAIN.toMinutes());
      }
      refusedAtNanos = System.nanoTime();
      return Map.of();
    }
    refusedAtNanos = 0;
    return out;
  }

  /**
   * The triggers of one table run as one gone account, and the cached tables whose changes they
   * record (the table itself, or a parent's cached children).
   */
  record Gone(TableId on, String definer, List<String> triggers, Set<TableId> cachedTables) {
    /** What these triggers do to the table's writers, and the way out: one message a table. */
    String problem() {
      return "capture trigger"
          + (triggers.size() == 1 ? " " : "s ")
          + String.join(", ", triggers)
          + " on "
          + on
          + (triggers.size() == 1 ? "" : ": each")
          + " runs as "
          + definer
          + ", an account that no longer exists: every write of "
          + on
          + " fails (ERROR 1449). Run `tablecast install` (or start a server with install_triggers:"
          + " true) as an account that stays: it recreates "
          + (triggers.size() == 1 ? "the trigger" : "them")
          + " as that account (docs/SECURITY.md)";
    }
  }

  /**
   * {@code status}'s triggers whose definer is gone, one entry per table and account: the three
   * triggers of a table (insert, update, delete) were three ERROR lines, and three warnings of
   * {@code check}, for one cause.
   */
  static List<Gone> byTable(CaptureStatus status) {
    Map<List<Object>, Gone> out = new LinkedHashMap<>();
    for (RequiredTrigger t : status.definerGone()) {
      Gone g =
          out.computeIfAbsent(
              List.of(t.on(), t.goneDefiner()),
              k -> new Gone(t.on(), t.goneDefiner(), new ArrayList<>(), new LinkedHashSet<>()));
      if (!g.triggers().contains(t.name())) {
        g.triggers().add(t.name());
      }
      g.cachedTables().add(t.cachedTable());
    }
    return List.copyOf(out.values());
  }
}

package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The capture triggers whose {@code DEFINER} account no longer exists. A MySQL/MariaDB trigger runs
 * as the account that created it (the one that ran {@code tablecast install}); with that account
 * dropped, every write of the trigger's table fails ("ERROR 1449: The user specified as a definer
 * does not exist", MariaDB 10.11; MySQL 8.0.22 and later refuse such a {@code DROP USER} unless the
 * account dropping it holds {@code SET_USER_ID}). {@code install} recreates them as the account
 * that runs it ({@link MysqlInstallScript}), and the capture check names them. Whether an account
 * exists is read from {@code mysql.user}: a user that may not read it (the least-privilege serving
 * user) cannot tell, and finds none.
 */
final class TriggerDefiners {
  private TriggerDefiners() {}

  /** MySQL's "SELECT command denied" on {@code mysql.user}: whether accounts exist is unknown. */
  private static final MysqlDdlLocks LOCKS = new MysqlDdlLocks();

  /**
   * The {@code tablecast_*} triggers of {@code schemas} whose definer account does not exist, each
   * (its schema and name) with that account as the catalog shows it ({@code deploy@%}); empty when
   * this user may not read {@code mysql.user}.
   */
  static Map<TableId, String> gone(Connection c, Collection<String> schemas) throws SQLException {
    if (schemas.isEmpty()) {
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
      if (LOCKS.isReadDenied(e)) {
        return Map.of(); // cannot tell: the administrator's install and check can
      }
      throw e;
    }
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
  static List<Gone> gone(CaptureStatus status) {
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

package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MySQL/MariaDB show a trigger in {@code information_schema.TRIGGERS} only to holders of the {@code
 * TRIGGER} privilege on its table, a privilege that also lets them create and drop triggers. The
 * least-privilege serving user lacks it (docs/SECURITY.md), so for that user "no trigger visible"
 * means "cannot tell", not "not installed". This tells the two apart from the user's own grants
 * (direct grants at global, schema or table level; a TRIGGER held through a role is not seen, which
 * errs towards "cannot tell").
 */
final class TriggerPrivilege {
  private TriggerPrivilege() {}

  /** Whether the connection's user holds TRIGGER on the table (so it would see its triggers). */
  static boolean holds(Connection c, TableId table) throws SQLException {
    String grantee;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT CURRENT_USER()")) {
      rs.next();
      String user = rs.getString(1);
      int at = user.lastIndexOf('@');
      grantee = "'" + user.substring(0, at) + "'@'" + user.substring(at + 1) + "'";
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT 1 FROM information_schema.USER_PRIVILEGES "
                + "WHERE GRANTEE = ? AND PRIVILEGE_TYPE = 'TRIGGER' "
                + "UNION ALL SELECT 1 FROM information_schema.SCHEMA_PRIVILEGES "
                + "WHERE GRANTEE = ? AND TABLE_SCHEMA = ? AND PRIVILEGE_TYPE = 'TRIGGER' "
                + "UNION ALL SELECT 1 FROM information_schema.TABLE_PRIVILEGES "
                + "WHERE GRANTEE = ? AND TABLE_SCHEMA = ? AND TABLE_NAME = ? AND PRIVILEGE_TYPE = 'TRIGGER'")) {
      ps.setString(1, grantee);
      ps.setString(2, grantee);
      ps.setString(3, table.schema());
      ps.setString(4, grantee);
      ps.setString(5, table.schema());
      ps.setString(6, table.name());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }
}

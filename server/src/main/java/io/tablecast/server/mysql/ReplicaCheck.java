package io.tablecast.server.mysql;

import io.tablecast.server.capture.CaptureFinding;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether a MySQL/MariaDB server replicates from another. Replication applies the primary's row
 * changes as row events (binlog_format ROW, MySQL 8's default; MIXED for some statements), which
 * fire no trigger on the replica: capture installed there records none of them, and the mirrors
 * would never change, silently.
 */
final class ReplicaCheck {
  private ReplicaCheck() {}

  /** Error or warning findings; none for a server that replicates from nobody. */
  static List<CaptureFinding> findings(Connection c, MysqlFlavor flavor) throws SQLException {
    String show = flavor == MysqlFlavor.MARIADB ? "SHOW ALL SLAVES STATUS" : "SHOW REPLICA STATUS";
    List<String> sources = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(show)) {
      ResultSetMetaData meta = rs.getMetaData();
      while (rs.next()) {
        boolean running =
            "Yes".equalsIgnoreCase(value(rs, meta, "Slave_IO_Running", "Replica_IO_Running"))
                || "Yes"
                    .equalsIgnoreCase(value(rs, meta, "Slave_SQL_Running", "Replica_SQL_Running"));
        if (running) {
          sources.add(
              value(rs, meta, "Master_Host", "Source_Host")
                  + ":"
                  + value(rs, meta, "Master_Port", "Source_Port"));
        }
      }
    } catch (SQLException e) {
      return List.of(
          CaptureFinding.warn(
              "source",
              "cannot tell whether this database replicates from another ("
                  + show
                  + " failed: "
                  + e.getMessage()
                  + "; it needs "
                  + (flavor == MysqlFlavor.MARIADB
                      ? "the SLAVE MONITOR privilege"
                      : "the REPLICATION CLIENT privilege")
                  + "). On a replica no change would be captured: make sure source.jdbc_url "
                  + "names the primary"));
    }
    if (sources.isEmpty()) {
      return List.of();
    }
    return List.of(
        CaptureFinding.error(
            "source",
            "this database is a replica of "
                + String.join(", ", sources)
                + ": replication applies the primary's changes as row events, which fire no "
                + "trigger here, so capture installed here would record none of them. Point "
                + "source.jdbc_url at the primary"));
  }

  /** The column named {@code older} or, since MySQL 8.0.22, {@code newer}. */
  private static String value(ResultSet rs, ResultSetMetaData meta, String older, String newer)
      throws SQLException {
    for (int i = 1; i <= meta.getColumnCount(); i++) {
      String label = meta.getColumnLabel(i);
      if (label.equalsIgnoreCase(older) || label.equalsIgnoreCase(newer)) {
        return rs.getString(i);
      }
    }
    return null;
  }
}

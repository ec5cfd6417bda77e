package io.tablecast.server.mysql;

import io.tablecast.server.capture.CapturePlan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.LongSupplier;

/**
 * Whether the outbox was truncated or re-created since the tail read it: MySQL/MariaDB then hand
 * out its ids from 1 again, below the ids the tail has read, and the tail would skip every change
 * until the new ids passed the old ones (found only by reconciliation, as drift, or never with it
 * off). Told by the outbox's next id ({@code information_schema.TABLES.AUTO_INCREMENT}), read after
 * the last id the tail read: InnoDB never hands out an id at or below one already handed out, but
 * after a {@code TRUNCATE} or a {@code DROP} and {@code CREATE}. The capture check looks; the tail
 * then reads every cached table again, which positions it on the new ids ({@code
 * OutboxTruncatedTest}).
 */
final class OutboxRenumbering {

  private final MysqlFlavor flavor;

  /** The highest outbox id the tail has read (0 before its first snapshot). Any thread. */
  private final LongSupplier lastRead;

  OutboxRenumbering(MysqlFlavor flavor, LongSupplier lastRead) {
    this.flavor = flavor;
    this.lastRead = lastRead;
  }

  /**
   * Looks once on {@code c}.
   *
   * @return what was found, for the log, or null when the outbox's ids still follow the tail's
   */
  String look(Connection c, CapturePlan plan) throws SQLException {
    long before = lastRead.getAsLong();
    if (before <= 0) {
      return null;
    }
    if (flavor == MysqlFlavor.MYSQL) {
      try (Statement s = c.createStatement()) {
        // MySQL 8 serves TABLES from a cache for a day by default: a stale next id would be low
        s.execute("SET SESSION information_schema_stats_expiry = 0");
      }
    }
    long next;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT AUTO_INCREMENT FROM information_schema.TABLES "
                + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
      ps.setString(1, plan.outboxId().schema());
      ps.setString(2, plan.outboxId().name());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null; // gone: the tail's reads say so
        }
        next = rs.getLong(1);
        if (rs.wasNull()) {
          return null;
        }
      }
    }
    if (next > before || lastRead.getAsLong() < before) { // (the tail positioned itself again)
      return null;
    }
    return "the outbox "
        + plan.outboxTable()
        + " hands out id "
        + next
        + " next, and the server has read up to id "
        + before
        + ": it was truncated or re-created, and changes recorded since would be skipped";
  }
}

package io.tablecast.server.tail;

import java.sql.SQLException;

/**
 * A connection of the tail reached another database instance than the one its position was read
 * from ({@link InstanceWatch}): the read is not made, and the next poll reads every cached table
 * again instead.
 */
public final class InstanceChangedException extends SQLException {
  private static final long serialVersionUID = 1L;

  InstanceChangedException(DatabaseInstance before, DatabaseInstance now) {
    super(
        "the database is another instance than the one the server read so far ("
            + before
            + ", now "
            + now
            + "): a failover, a restore, a restart or a crash, which may have lost or renumbered "
            + "outbox rows; every cached table is read again whole and the mirrors get the "
            + "differences");
  }
}

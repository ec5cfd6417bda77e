package io.tablecast.server.tail;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Lends a statement on the tail's thread one of the source's connections, watched as the tail's
 * reads are ({@link PollingChangeSource#watched()}): one whose answer was lost on the way is given
 * up on the database's word ({@link LostAnswers}), rather than keeping the tail, and every table,
 * waiting for ever. For the short statements a poll makes besides its read: a capture check, a lock
 * probe, a description of a table found altered.
 */
@FunctionalInterface
public interface WatchedConnections {
  /** A connection of the source's pool, to be closed by the caller. */
  Connection get() throws SQLException;
}

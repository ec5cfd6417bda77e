package io.tablecast.server.tail;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Ends, on the database's side, the session of a connection the server gave up on because its
 * answer did not come (a host gone without a word, a NAT that forgot the connection): closing the
 * connection ends nothing there, and the session would keep its transaction's locks and snapshot
 * until the database's keepalive found the connection gone, hours by default.
 */
@FunctionalInterface
public interface AbandonedSessions {

  /** Does nothing: where the database cannot tell the server's sessions from others. */
  AbandonedSessions NONE = c -> () -> {};

  /**
   * What ends {@code c}'s session once it is given up; taken before, while {@code c} can still say
   * which session it is.
   */
  Runnable of(Connection c) throws SQLException;
}

package io.tablecast.server.tail;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * What a database family says of its server sessions, for {@link LostAnswers}: which session a
 * connection is, and whether that session has been waiting for its client, as a session whose
 * answer, or whose client's next request, was lost on the way does.
 */
public interface SessionProbe {

  /**
   * The server's id of the session {@code c} (a pooled connection) is, as its driver learned it
   * when it connected (no round trip), or -1 when the driver cannot say.
   */
  long sessionOf(Connection c) throws SQLException;

  /**
   * The server's id of the session {@code c} is, as the database itself says it, one round trip on
   * {@code c}. Where it is not {@link #sessionOf}'s, a pooler or proxy (PgBouncer, ProxySQL) speaks
   * for the database, and the id the driver knows is the pooler's own, which may name another
   * client's session on the database: such an id is never taken for the read's session, nor is its
   * session ended.
   */
  default long askSessionOf(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sessionIdQuery())) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The query whose one value is the id of the session that runs it. */
  String sessionIdQuery();

  /**
   * How many seconds the server session {@code session} has been waiting for its client's next
   * request, asked on {@code other}; -1 when it is working on a request, or is not there.
   */
  long idleSeconds(Connection other, long session) throws SQLException;

  /**
   * Ends, asked on {@code other}, the server session {@code session} when it still waits for its
   * client after {@code idleSeconds} and is this server's own (the caller vouches for the id with
   * {@link #askSessionOf}, and for the instance, whose restart would give the id to another
   * session; this checks the user, and what else the database shows): a session whose client gave
   * up on it (the read's answer was lost on the way) would otherwise keep its transaction's locks
   * and snapshot until the database's keepalive found the connection gone, hours by default, and an
   * {@code ALTER TABLE} queued behind those locks holds up every writer of the table. True when
   * ended; false by default, where the database cannot tell the server's sessions from others.
   */
  default boolean end(Connection other, long session, long idleSeconds) throws SQLException {
    return false;
  }

  /**
   * Driver properties that bound the connection the question is asked on to a few seconds, to
   * connect and for each answer: the database may be unreachable too.
   */
  Map<String, String> boundedConnection();
}

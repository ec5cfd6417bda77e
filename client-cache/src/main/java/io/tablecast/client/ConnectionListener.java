package io.tablecast.client;

import java.util.List;

/**
 * Told how a {@link TablecastClient}'s connection goes: registered with {@link
 * TablecastClient.Builder#connectionListener} (before the first connection) or {@link
 * TablecastClient#addConnectionListener}. Every method has an empty default, so a listener
 * overrides only what it wants (more events may be added the same way).
 *
 * <p>Called on the client's listener thread, in order with the change events of its mirrors (a
 * {@code resumed} or {@code resnapshotted} comes after the events of the rows it brought). A
 * listener that throws is logged and does not affect the client or other listeners.
 */
public interface ConnectionListener {

  /**
   * A server welcomed the client: the mirrors are being subscribed (resumed or snapshotted).
   *
   * @param server the server's {@code host:port}, as configured
   */
  default void connected(String server) {}

  /**
   * An attempt to connect to a server ended before it welcomed the client; the client tries the
   * next server after its backoff, unless it was closed. Told for every attempt, so once per
   * backoff while no server can be reached.
   *
   * @param server the server's {@code host:port}, as configured
   * @param reason why: "Connection refused", "connection timed out after 5000 ms", "unknown host",
   *     "the server reported AUTHENTICATION_FAILED: ...", "the connection closed before the
   *     server's welcome", a TLS handshake's failure, ...
   */
  default void connectFailed(String server, String reason) {}

  /**
   * The connection to a server that had welcomed the client ended; the client reconnects (to the
   * next server) after its backoff, unless it was closed. Mirrors keep their rows meanwhile.
   *
   * @param server the server's {@code host:port}
   * @param reason why: "connection closed", "no message from ... for 3 heartbeats", "the server
   *     reported SLOW_CONSUMER: ...", "client closed", ...
   */
  default void disconnected(String server, String reason) {}

  /**
   * After a reconnect, the server resumed {@code tables} from the last position: no snapshot was
   * needed, and the changes missed while disconnected arrive as ordinary change events.
   *
   * @param tables the qualified names of the resumed tables
   * @param position the stream position they were resumed after
   */
  default void resumed(List<String> tables, long position) {}

  /**
   * A table whose mirrors had held it got a new snapshot (the server could not resume it, e.g. a
   * restarted server), swapped in at once; its listeners got only the real differences.
   *
   * @param table the qualified table name
   * @param inserted rows whose key was new
   * @param updated rows that changed
   * @param deleted rows that were gone
   */
  default void resnapshotted(String table, int inserted, int updated, int deleted) {}
}

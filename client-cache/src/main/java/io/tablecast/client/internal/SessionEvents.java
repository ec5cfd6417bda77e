package io.tablecast.client.internal;

import io.tablecast.protocol.ErrorCode;
import java.util.List;

/**
 * What happens to a client's session with its servers, told to the API layer (which tells the
 * user's connection and error listeners). Called on the connection's event loop: implementations
 * hand the news to another thread and never block. Internal.
 */
public interface SessionEvents {

  /** A server ({@code host:port}) welcomed the client. */
  void connected(String server);

  /**
   * An attempt to connect to a server ({@code host:port}) ended before its welcome, for {@code
   * reason}: no connection, a refused or failed handshake, a close; the client tries again.
   */
  void connectFailed(String server, String reason);

  /** The connection to a server that had welcomed the client ended, for {@code reason}. */
  void disconnected(String server, String reason);

  /** The server resumed {@code tables} after {@code position}: no snapshot was needed. */
  void resumed(List<String> tables, long position);

  /** The connection ended before the snapshot of {@code table} in flight did. */
  void snapshotCutShort(String table);

  /** A table that had been in sync got a new snapshot; counts are the rows that differed. */
  void resnapshotted(String table, int inserted, int updated, int deleted);

  /**
   * The server reported an error: with {@code table}, it refused that table's subscription;
   * without, it refused or ended the connection.
   */
  void serverError(ErrorCode code, String message, String table);
}

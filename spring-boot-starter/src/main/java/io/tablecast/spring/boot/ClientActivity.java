package io.tablecast.spring.boot;

import io.tablecast.client.ConnectionListener;
import io.tablecast.client.ErrorListener;
import io.tablecast.client.ServerError;
import io.tablecast.client.TablecastClient;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the client's {@link ConnectionListener} and {@link ErrorListener} told: whether it is
 * connected, to which server, the last disconnection, why the last attempt to connect failed and
 * the server's refusals. Health and readiness read it (the meters are the client's own {@code
 * TablecastClientMetrics}). The client built by the auto-configuration hears it from the first
 * connection on; an application's own client is attached when the context starts.
 */
final class ClientActivity {
  private volatile Boolean connected; // null: not known yet
  private volatile String server;
  private volatile String lastDisconnect;
  private volatile String lastConnectFailure;
  private volatile String lastConnectionError;
  private volatile boolean attached;
  private final Map<String, String> refusedTables = new ConcurrentHashMap<>();

  private final ConnectionListener connectionListener =
      new ConnectionListener() {
        @Override
        public void connected(String server) {
          ClientActivity.this.server = server;
          lastConnectFailure = null;
          connected = true;
        }

        @Override
        public void connectFailed(String server, String reason) {
          connected = false;
          lastConnectFailure = server + ": " + reason;
        }

        @Override
        public void disconnected(String server, String reason) {
          connected = false;
          lastDisconnect = server + ": " + reason;
        }
      };

  private final ErrorListener errorListener =
      new ErrorListener() {
        @Override
        public void serverError(ServerError code, String message, String table) {
          if (table != null) {
            refusedTables.put(table, code + ": " + message);
          } else {
            lastConnectionError = code + ": " + message;
          }
        }
      };

  /** To register on the builder, so that the first connection is heard. */
  ConnectionListener connectionListener() {
    return connectionListener;
  }

  /** To register on the builder, so that the first connection's errors are heard. */
  ErrorListener errorListener() {
    return errorListener;
  }

  /** The listeners were registered on the builder of the client. */
  void attachedAtBuild() {
    attached = true;
  }

  /** Registers the listeners on a client built elsewhere, unless they already are. */
  synchronized void attachTo(TablecastClient client) {
    if (!attached) {
      client.addConnectionListener(connectionListener);
      client.addErrorListener(errorListener);
      attached = true;
    }
  }

  /** True or false once a connection event was heard, null before. */
  Boolean connected() {
    return connected;
  }

  /** The server of the last connection, or null. */
  String server() {
    return server;
  }

  /** The last disconnection, "host:port: reason", or null. */
  String lastDisconnect() {
    return lastDisconnect;
  }

  /**
   * Why the last attempt to connect failed, "host:port: reason", or null once a server welcomed the
   * client.
   */
  String lastConnectFailure() {
    return lastConnectFailure;
  }

  /** The last error the server gave for the connection (not a table), "CODE: message", or null. */
  String lastConnectionError() {
    return lastConnectionError;
  }

  /** What the server said when it refused {@code table}, "CODE: message", or null. */
  String refusal(String table) {
    return refusedTables.get(table);
  }
}

package io.tablecast.spring.boot;

import io.tablecast.client.ConnectionListener;
import io.tablecast.client.ErrorListener;
import io.tablecast.client.ServerError;
import io.tablecast.client.TablecastClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * What the client's {@link ConnectionListener} and {@link ErrorListener} told: whether it is
 * connected, and counts of reconnects, re-snapshots, unmapped rows and server errors. Health and
 * metrics read it. The client built by the auto-configuration hears it from the first connection
 * on; an application's own client is attached when the context starts.
 */
final class ClientActivity {
  private volatile Boolean connected; // null: not known yet
  private volatile String server;
  private volatile String lastDisconnect;
  private volatile String lastConnectionError;
  private volatile boolean attached;
  private final AtomicLong connects = new AtomicLong();
  private final AtomicLong disconnects = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final Counts resnapshots = new Counts();
  private final Counts unmappedRows = new Counts();
  private final Counts serverErrors = new Counts();
  private final Map<String, String> refusedTables = new ConcurrentHashMap<>();

  private final ConnectionListener connectionListener =
      new ConnectionListener() {
        @Override
        public void connected(String server) {
          ClientActivity.this.server = server;
          connected = true;
          if (connects.incrementAndGet() > 1) {
            reconnects.incrementAndGet();
          }
        }

        @Override
        public void disconnected(String server, String reason) {
          connected = false;
          lastDisconnect = server + ": " + reason;
          disconnects.incrementAndGet();
        }

        @Override
        public void resnapshotted(String table, int inserted, int updated, int deleted) {
          resnapshots.increment(table);
        }
      };

  private final ErrorListener errorListener =
      new ErrorListener() {
        @Override
        public void rowNotMapped(
            String table, Object key, Class<?> rowType, RuntimeException cause) {
          unmappedRows.increment(table);
        }

        @Override
        public void serverError(ServerError code, String message, String table) {
          serverErrors.increment(code.name());
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

  /** The last error the server gave for the connection (not a table), "CODE: message", or null. */
  String lastConnectionError() {
    return lastConnectionError;
  }

  /** What the server said when it refused {@code table}, "CODE: message", or null. */
  String refusal(String table) {
    return refusedTables.get(table);
  }

  AtomicLong reconnects() {
    return reconnects;
  }

  AtomicLong disconnects() {
    return disconnects;
  }

  /** Re-snapshots by table. */
  Counts resnapshots() {
    return resnapshots;
  }

  /** Rows not mapped to a typed mirror's row type, by table. */
  Counts unmappedRows() {
    return unmappedRows;
  }

  /** Server errors by code. */
  Counts serverErrors() {
    return serverErrors;
  }

  /** Counters by key (a table, an error code), created on first use; watchers hear of new keys. */
  static final class Counts {
    private final ConcurrentMap<String, AtomicLong> counts = new ConcurrentHashMap<>();
    private final List<BiConsumer<String, AtomicLong>> watchers = new CopyOnWriteArrayList<>();

    void increment(String key) {
      AtomicLong count = counts.get(key);
      if (count == null) {
        AtomicLong created = new AtomicLong();
        count = counts.putIfAbsent(key, created);
        if (count == null) {
          count = created;
          for (BiConsumer<String, AtomicLong> watcher :
              watchers) { // after the put: one added meanwhile sees it in watch()
            watcher.accept(key, created);
          }
        }
      }
      count.incrementAndGet();
    }

    long get(String key) {
      AtomicLong count = counts.get(key);
      return count == null ? 0 : count.get();
    }

    /** Tells {@code watcher} of every key so far and of every later new key (some maybe twice). */
    void watch(BiConsumer<String, AtomicLong> watcher) {
      watchers.add(watcher);
      for (Map.Entry<String, AtomicLong> e : List.copyOf(counts.entrySet())) {
        watcher.accept(e.getKey(), e.getValue());
      }
    }
  }
}

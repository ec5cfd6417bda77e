package io.tablecast.client;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What a client did, counted as it happens (a few atomic increments per connection event, one per
 * applied transaction and table): connections, disconnections, server errors by code, and per table
 * a {@link TableActivity}. {@link TablecastClientMetrics} reads it; it names no Micrometer type, so
 * a client without Micrometer keeps it at no cost beside the counts. Thread-safe.
 */
final class ClientActivity {
  private final String clientName;
  private volatile boolean connected;
  private final AtomicLong connects = new AtomicLong();
  private final AtomicLong disconnects = new AtomicLong();
  private final Map<ServerError, AtomicLong> serverErrors = new EnumMap<>(ServerError.class);

  // guarded by this: tables are added rarely (a mirror of a new table), read per event
  private final Map<String, TableActivity> tables = new LinkedHashMap<>();
  private final List<Consumer<TableActivity>> tableWatchers = new ArrayList<>();
  private final List<NearCacheMirror<?>> nearCaches = new ArrayList<>();
  private final List<Consumer<NearCacheMirror<?>>> nearCacheWatchers = new ArrayList<>();

  ClientActivity(String clientName) {
    this.clientName = clientName;
    for (ServerError code : ServerError.values()) {
      serverErrors.put(code, new AtomicLong());
    }
  }

  /** The client's name ({@link TablecastClient.Builder#clientName}). */
  String clientName() {
    return clientName;
  }

  void connected() {
    connects.incrementAndGet();
    connected = true;
  }

  void disconnected() {
    connected = false;
    disconnects.incrementAndGet();
  }

  void resumed(List<String> tables) {
    for (String t : tables) {
      table(t).resumed();
    }
  }

  void serverError(ServerError code) {
    serverErrors.get(code).incrementAndGet();
  }

  /** True while a server has welcomed the client and the connection has not ended. */
  boolean isConnected() {
    return connected;
  }

  /** Connections made after one had ended. */
  long reconnects() {
    return Math.max(0, connects.get() - 1);
  }

  /** Connections to a server that had welcomed the client, ended. */
  long disconnects() {
    return disconnects.get();
  }

  /** Errors the server reported with {@code code}. */
  long serverErrors(ServerError code) {
    return serverErrors.get(code).get();
  }

  /** The activity of {@code table}, created on first use (a mirror of it, or news of it). */
  TableActivity table(String table) {
    List<Consumer<TableActivity>> watchers;
    TableActivity created;
    synchronized (this) {
      TableActivity known = tables.get(table);
      if (known != null) {
        return known;
      }
      created = new TableActivity(table);
      tables.put(table, created);
      watchers = List.copyOf(tableWatchers);
    }
    for (Consumer<TableActivity> w : watchers) {
      w.accept(created);
    }
    return created;
  }

  /**
   * Tells {@code watcher} of every table so far and of each later one, once each (a table created
   * while this runs is told either here or by its creator, never by both).
   */
  void watchTables(Consumer<TableActivity> watcher) {
    List<TableActivity> known;
    synchronized (this) {
      tableWatchers.add(watcher);
      known = List.copyOf(tables.values());
    }
    for (TableActivity t : known) {
      watcher.accept(t);
    }
  }

  /** A near cache was created: its watchers hear of it. */
  void nearCache(NearCacheMirror<?> created) {
    List<Consumer<NearCacheMirror<?>>> watchers;
    synchronized (this) {
      nearCaches.add(created);
      watchers = List.copyOf(nearCacheWatchers);
    }
    for (Consumer<NearCacheMirror<?>> w : watchers) {
      w.accept(created);
    }
  }

  /** Tells {@code watcher} of every near cache so far and of each later one, once each. */
  void watchNearCaches(Consumer<NearCacheMirror<?>> watcher) {
    List<NearCacheMirror<?>> known;
    synchronized (this) {
      nearCacheWatchers.add(watcher);
      known = List.copyOf(nearCaches);
    }
    for (NearCacheMirror<?> n : known) {
      watcher.accept(n);
    }
  }
}

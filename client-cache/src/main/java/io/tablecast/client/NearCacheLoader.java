package io.tablecast.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.AsyncCacheLoader;
import io.tablecast.client.internal.FetchHandler;
import io.tablecast.client.internal.ServerSession;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Loads a {@link NearCacheMirror}'s misses with {@code fetch} requests ({@link
 * ServerSession#fetch}), many keys to a request: without a batch window a miss is asked for at once
 * when none of the cache's requests is in flight, else with the misses that come meanwhile as soon
 * as the one in flight is answered (as a database groups commits); with a window, the misses of
 * each window go together. Answers complete the loads on the connection's event loop, in the
 * stream's order. Thread-safe.
 *
 * <p>There is no {@code asyncLoadAll} on purpose: with one, Caffeine keeps a {@code getAll}'s keys
 * loading until the last of them is answered, so a key answered by an earlier request would skip
 * the batches between its answer and the last one (a batch skips keys in flight) and be held as it
 * was. Without it each key is loaded by {@link #asyncLoad} and held from its own answer; the keys
 * of a {@code getAll} still share requests as any misses do.
 *
 * @param <V> the row type
 */
final class NearCacheLoader<V> implements AsyncCacheLoader<Object, NearCacheLoader.Held<V>> {

  /** A held key: its row, or null when the table has no row of that key; its weight in bytes. */
  record Held<V>(V row, int weight) {}

  /** What the loader needs of the cache's rows. */
  interface Rows<V> {
    /** The row held for a row received. */
    Held<V> held(ObjectNode row);

    /** What a key without a row holds. */
    Held<V> absent();

    /** The normalized key of a row received, or null. */
    Object keyOf(ObjectNode row);

    /** The failure of a row that cannot be mapped to the row type. */
    TablecastException unmappable(Object key, RuntimeException e);

    /** Why loads cannot succeed now, or null. */
    TablecastException failure();
  }

  private final String table;
  private final NearCacheOptions options;
  private final ServerSession session;
  private final Rows<V> rows;

  /** Misses not asked for yet, by key; guarded by itself. */
  private final Map<Object, CompletableFuture<Held<V>>> waiting = new LinkedHashMap<>();

  /** Requests sent and not answered; guarded by {@link #waiting}. */
  private int inFlight;

  NearCacheLoader(String table, NearCacheOptions options, ServerSession session, Rows<V> rows) {
    this.table = table;
    this.options = options;
    this.session = session;
    this.rows = rows;
  }

  @Override
  public CompletableFuture<Held<V>> asyncLoad(Object key, Executor executor) {
    CompletableFuture<Held<V>> f = new CompletableFuture<>();
    TablecastException failed = rows.failure();
    if (failed != null) {
      f.completeExceptionally(failed);
      return f;
    }
    Map<Object, CompletableFuture<Held<V>>> full = null;
    boolean adaptive = options.batchWindow().isZero();
    boolean first;
    synchronized (waiting) {
      first = waiting.isEmpty();
      CompletableFuture<Held<V>> same = waiting.putIfAbsent(key, f);
      if (same != null) {
        return same;
      }
      if (waiting.size() >= options.maxKeysPerFetch() || (adaptive && inFlight == 0)) {
        full = take();
      }
    }
    if (full != null) {
      send(full);
    } else if (first && !adaptive) {
      CompletableFuture.delayedExecutor(options.batchWindow().toNanos(), TimeUnit.NANOSECONDS)
          .execute(this::flush);
    }
    return f;
  }

  /** The batch window of the first waiting miss ended: send what waits. */
  private void flush() {
    Map<Object, CompletableFuture<Held<V>>> batch;
    synchronized (waiting) {
      batch = take();
    }
    if (!batch.isEmpty()) {
      send(batch);
    }
  }

  /** The waiting misses, as a request about to be sent. Holds {@link #waiting}. */
  private Map<Object, CompletableFuture<Held<V>>> take() {
    Map<Object, CompletableFuture<Held<V>>> batch = new LinkedHashMap<>(waiting);
    waiting.clear();
    if (!batch.isEmpty()) {
      inFlight++;
    }
    return batch;
  }

  /** A request was answered: without a batch window, the misses that came meanwhile go now. */
  private void answered() {
    Map<Object, CompletableFuture<Held<V>>> next = null;
    synchronized (waiting) {
      inFlight--;
      if (options.batchWindow().isZero()) {
        next = take();
      }
    }
    if (next != null && !next.isEmpty()) {
      send(next);
    }
  }

  private void send(Map<Object, CompletableFuture<Held<V>>> batch) {
    session.fetch(
        table,
        new ArrayList<>(batch.keySet()),
        new FetchHandler() {
          @Override
          public void answered(List<ObjectNode> found) {
            Map<Object, ObjectNode> byKey = new HashMap<>();
            for (ObjectNode row : found) {
              Object key = rows.keyOf(row);
              if (key != null) {
                byKey.put(key, row);
              }
            }
            batch.forEach(
                (key, f) -> {
                  ObjectNode row = byKey.get(key);
                  try {
                    f.complete(row == null ? rows.absent() : rows.held(row));
                  } catch (RuntimeException e) {
                    f.completeExceptionally(rows.unmappable(key, e));
                  }
                });
            NearCacheLoader.this.answered();
          }

          @Override
          public void failed(String why) {
            TablecastException t = new TablecastException(null, why);
            batch.values().forEach(f -> f.completeExceptionally(t));
            NearCacheLoader.this.answered();
          }
        });
  }
}

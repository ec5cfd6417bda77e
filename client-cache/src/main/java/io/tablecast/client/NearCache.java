package io.tablecast.client;

import com.github.benmanes.caffeine.cache.stats.CacheStats;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A bounded copy of the hot rows of one table, for a table that should not be held whole: a miss is
 * loaded from the server's image by key (misses close together in time share one request, and
 * concurrent misses for one key wait for one load), and the rows held are kept current from the
 * change stream. Bounded by rows or bytes with Caffeine's eviction, optionally expiring unread rows
 * ({@link NearCacheOptions}); its statistics are Caffeine's.
 *
 * <p>A row is never older than one this cache showed before: a load is answered in the stream's
 * order, so the changes made before the answer are in it and those after it follow it. The absence
 * of a row is cached as well (until the row is inserted, which the stream brings). Reads are per
 * key: unlike a {@link TableMirror}, a transaction that changes several rows is not applied to all
 * of them at once for a reader, and there is no scan. Keys are normalized as a mirror's.
 * Thread-safe.
 *
 * @param <V> the row type: a record or POJO mapped by Jackson, or {@code Map<String, Object>}
 */
public interface NearCache<V> {

  /** The qualified table name ({@code schema.table}). */
  String table();

  /**
   * The row with a single-column key (or a composite key given as a {@code List}), or null when
   * there is none; a miss waits for the server, up to {@link NearCacheOptions#loadTimeout()}.
   *
   * @throws TablecastException when the load failed or timed out (the message says why: the table
   *     is unknown or denied, the client is closed, no server answered in time)
   * @throws IllegalArgumentException when no row was found and, by the table's columns as last
   *     heard, none can have {@code key} (as {@link TableMirror#get(Object)})
   */
  V get(Object key);

  /** The row with a composite key given part by part in primary-key column order, or null. */
  V get(Object first, Object... rest);

  /**
   * The row, or null when there is none, once held or loaded; completes exceptionally with a {@link
   * TablecastException} when the load fails. Never blocks.
   */
  CompletableFuture<V> getAsync(Object key);

  /**
   * The rows of {@code keys} that exist, by normalized key: held rows at once, the misses loaded
   * together (as many requests as {@link NearCacheOptions#maxKeysPerFetch()} requires).
   *
   * @throws TablecastException as {@link #get}
   */
  Map<Object, V> getAll(Collection<?> keys);

  /** The row if held now (null otherwise, also when held as absent); never loads. */
  V getIfPresent(Object key);

  /** Drops a held row; the next read loads it again. */
  void invalidate(Object key);

  /** Drops every held row. */
  void invalidateAll();

  /** The number of keys held (rows and known absences), approximately, as Caffeine counts them. */
  long estimatedSize();

  /** Hits, misses, loads, load failures, load time and evictions so far. */
  CacheStats stats();

  /** The stream position of the last change applied, -1 before the table is subscribed. */
  long position();

  /**
   * Why this cache's rows may differ from the table, as the server said, or null while it follows
   * it.
   */
  String staleReason();
}

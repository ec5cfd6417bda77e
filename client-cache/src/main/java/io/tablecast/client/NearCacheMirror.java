package io.tablecast.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.AsyncLoadingCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import io.tablecast.client.NearCacheLoader.Held;
import io.tablecast.client.internal.MirrorSink;
import io.tablecast.client.internal.RowKeys;
import io.tablecast.client.internal.ServerSession;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.row.PackedRow;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link NearCache}: a Caffeine {@link AsyncLoadingCache} of rows by normalized key whose loader
 * gathers misses into {@code fetch} requests ({@link ServerSession#fetch}), and a {@link
 * MirrorSink} that keeps the rows held current from the stream. Both answers and batches are
 * applied on the connection's event loop in arrival order; a batch skips keys whose load is in
 * flight (the answer, written behind the batch by the server, includes it) and keys not held.
 *
 * @param <V> the row type
 */
final class NearCacheMirror<V> implements NearCache<V> {
  private static final Logger log = LoggerFactory.getLogger(NearCacheMirror.class);

  /** Bytes a held row costs beside its row-form size, for {@link NearCacheOptions#maximumBytes}. */
  static final int ROW_OVERHEAD_BYTES = 64;

  private final String table;
  private final Class<?> rowType;
  private final RowMapping<V> mapping;
  private final NearCacheOptions options;
  private final ServerSession session;
  private final AsyncLoadingCache<Object, Held<V>> cache;
  private final Held<V> absent = new Held<>(null, ROW_OVERHEAD_BYTES);
  private final Sink sink = new Sink();

  private volatile List<String> primaryKey = List.of();

  /** The table's columns as last heard (empty before the first answer): for {@link KeyMisses}. */
  private volatile List<Column> columns = List.of();

  private final KeyFormLookups<V> lookups =
      new KeyFormLookups<>(this::loadRow, () -> primaryKey, () -> columns);

  private volatile long position = -1;
  private volatile String staleReason;

  /** Why a server refused the table after it was served (null: it was not, or is served again). */
  private volatile String refused;

  /** Why loads cannot succeed (the table was refused, the client closed); null otherwise. */
  private volatile TablecastException failure;

  NearCacheMirror(
      String table,
      Class<?> rowType,
      RowMapping<V> mapping,
      NearCacheOptions options,
      ServerSession session) {
    this.table = table;
    this.rowType = rowType;
    this.mapping = mapping;
    this.options = options;
    this.session = session;
    Caffeine<Object, Object> builder = Caffeine.newBuilder().recordStats();
    if (options.expireAfterAccess() != null) {
      builder.expireAfterAccess(options.expireAfterAccess());
    }
    NearCacheLoader<V> loader = new NearCacheLoader<>(table, options, session, new Rows());
    this.cache =
        options.maximumRows() > 0
            ? builder.maximumSize(options.maximumRows()).buildAsync(loader)
            : builder
                .maximumWeight(options.maximumBytes())
                .<Object, Held<V>>weigher((k, h) -> h.weight())
                .buildAsync(loader);
  }

  MirrorSink sink() {
    return sink;
  }

  NearCacheOptions options() {
    return options;
  }

  /** The row type's simple name ({@code Map} for generic rows), as metrics tag it. */
  String rowTypeName() {
    return rowType.getSimpleName();
  }

  /** The client closed: loads fail from now on and nothing is held. */
  void close() {
    failure = new TablecastException(null, "client is closed; near cache of " + table + " closed");
    cache.synchronous().invalidateAll();
  }

  @Override
  public String table() {
    return table;
  }

  @Override
  public V get(Object key) {
    return found(key, normalized(key));
  }

  @Override
  public V get(Object first, Object... rest) {
    Object[] given = new Object[rest.length + 1];
    given[0] = first;
    System.arraycopy(rest, 0, given, 1, rest.length);
    return found(given, RowKeys.fromUser(first, rest));
  }

  private V found(Object given, Object normalized) {
    V row = await(lookups.find(given, normalized), normalized);
    if (row == null) {
      KeyMisses.check(table, primaryKey, columns, normalized, given);
    }
    return row;
  }

  @Override
  public CompletableFuture<V> getAsync(Object key) {
    return lookups.find(key, normalized(key));
  }

  @Override
  public Map<Object, V> getAll(Collection<?> keys) {
    List<Object> normalized = new ArrayList<>(keys.size());
    keys.forEach(k -> normalized.add(normalized(k)));
    Map<Object, Held<V>> held = await(cache.getAll(normalized), keys.size() + " keys");
    Map<Object, V> out = new HashMap<>();
    int i = 0;
    for (Object given : keys) {
      Object key = normalized.get(i++);
      Held<V> h = held.get(key);
      V row = h != null && h.row() != null ? h.row() : await(lookups.inOtherForms(given, key), key);
      if (row != null) {
        out.put(key, row);
      }
    }
    return out;
  }

  @Override
  public V getIfPresent(Object key) {
    Object normalized = normalized(key);
    V row = heldRow(normalized);
    if (row == null) {
      for (Object other : lookups.otherForms(key, normalized)) {
        row = row != null ? row : heldRow(other);
      }
    }
    return row;
  }

  private V heldRow(Object normalized) {
    CompletableFuture<Held<V>> f = cache.getIfPresent(normalized);
    return f != null && f.isDone() && !f.isCompletedExceptionally() ? f.join().row() : null;
  }

  @Override
  public void invalidate(Object key) {
    Object normalized = normalized(key);
    cache.synchronous().invalidate(normalized);
    cache.synchronous().invalidateAll(lookups.otherForms(key, normalized));
  }

  private CompletableFuture<V> loadRow(Object key) {
    return load(key).thenApply(Held::row);
  }

  @Override
  public void invalidateAll() {
    cache.synchronous().invalidateAll();
  }

  @Override
  public long estimatedSize() {
    return cache.synchronous().estimatedSize();
  }

  @Override
  public CacheStats stats() {
    return cache.synchronous().stats();
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public String staleReason() {
    String refusal = refused;
    String server = staleReason;
    return refusal == null ? server : server == null ? refusal : refusal + "; " + server;
  }

  @Override
  public String toString() {
    return "NearCache[" + table + ", " + options + "]";
  }

  /**
   * The held or loading row of {@code key}; a failed load Caffeine has not removed yet (its callers
   * hear of the failure first) is not handed out again: the key is loaded anew.
   */
  private CompletableFuture<Held<V>> load(Object key) {
    CompletableFuture<Held<V>> f = cache.get(key);
    if (f.isCompletedExceptionally()) {
      cache.asMap().remove(key, f);
      f = cache.get(key);
    }
    return f;
  }

  private Object normalized(Object key) {
    int columns = primaryKey.size();
    return RowKeys.fromUser(key, columns > 0 ? columns : key instanceof List<?> l ? l.size() : 1);
  }

  private <T> T await(CompletableFuture<T> f, Object what) {
    return NearCacheWaits.await(f, options.loadTimeout(), table, what, session::connectedServer);
  }

  private Held<V> held(ObjectNode row) {
    int bytes = row instanceof PackedRow p ? p.bytes().length : row.toString().length();
    return new Held<>(mapping.map(row), bytes + ROW_OVERHEAD_BYTES);
  }

  private TablecastException unmappable(Object key, RuntimeException e) {
    return new TablecastException(
        null,
        "the row of "
            + table
            + " with key "
            + key
            + " cannot be mapped to "
            + rowType.getName()
            + ": "
            + e.getMessage());
  }

  /** What the loader needs of this cache's rows. */
  private final class Rows implements NearCacheLoader.Rows<V> {
    @Override
    public Held<V> held(ObjectNode row) {
      return NearCacheMirror.this.held(row);
    }

    @Override
    public Held<V> absent() {
      return absent;
    }

    @Override
    public Object keyOf(ObjectNode row) {
      return RowKeys.fromRowOrNull(row, primaryKey);
    }

    @Override
    public TablecastException unmappable(Object key, RuntimeException e) {
      return NearCacheMirror.this.unmappable(key, e);
    }

    @Override
    public TablecastException failure() {
      return failure;
    }
  }

  // ------------------------------------------------------------------------- the stream

  /**
   * A held key whose row changed: the new row (or its absence) replaces it. A key not held, or
   * whose load is in flight, is left alone. Event loop.
   */
  private void changed(Object key, ObjectNode after) {
    CompletableFuture<Held<V>> f = cache.asMap().get(key);
    if (f == null || !f.isDone() || f.isCompletedExceptionally()) {
      return;
    }
    // the synchronous view replaces the value without counting a load in the statistics
    ConcurrentMap<Object, Held<V>> values = cache.synchronous().asMap();
    Held<V> now = f.join();
    try {
      values.replace(key, now, after == null ? absent : held(after));
    } catch (RuntimeException e) {
      log.error("{}; dropped from the near cache", unmappable(key, e).getMessage());
      values.remove(key, now);
    }
  }

  /** What the session tells this near cache. Event loop, but for table() and isReady(). */
  private final class Sink implements MirrorSink {
    private volatile boolean ready;

    @Override
    public String table() {
      return table;
    }

    @Override
    public boolean isReady() {
      return ready;
    }

    @Override
    public boolean holdsWholeTable() {
      return false;
    }

    @Override
    public String setSchema(List<ColumnInfo> columns, List<String> pk) {
      if (!primaryKey.isEmpty() && !primaryKey.equals(pk)) {
        cache.synchronous().invalidateAll(); // keyed by the old key
      }
      primaryKey = List.copyOf(pk);
      NearCacheMirror.this.columns = WireTypes.columns(columns);
      return null;
    }

    @Override
    public boolean keepsRowBytes() {
      return false;
    }

    @Override
    public void snapshotProgress(long rowsReceived, long rowsExpected) {}

    @Override
    public SnapshotDiff install(Map<Object, ObjectNode> rows, long at) {
      // a snapshot instead of a resume: what changed meanwhile is not known, so nothing held is
      // kept (loads in flight are answered after this snapshot and stay)
      cache.asMap().values().removeIf(f -> f.isDone());
      position = at;
      failure = null;
      refused = null;
      ready = true;
      return SnapshotDiff.NONE;
    }

    @Override
    public void apply(List<RowChange> changes, long at, long captureMillis) {
      for (RowChange c : changes) {
        if (c.oldKey() != null) {
          changed(c.oldKey(), null);
        }
        changed(c.key(), c.after());
      }
      position = at;
    }

    @Override
    public void advance(long at) {
      position = at;
    }

    @Override
    public void stale(String reason) {
      staleReason = reason;
    }

    @Override
    public void fail(ErrorCode code, String message) {
      failure = new TablecastException(WireTypes.serverError(code), message);
      if (ready) {
        refused = MirrorStaleness.refusal(message);
      }
    }

    @Override
    public void tooLarge(String message) {
      log.warn("{}", message);
    }

    @Override
    public Map<Object, ObjectNode> images() {
      return null; // not the whole table: another mirror of it needs a snapshot
    }
  }
}

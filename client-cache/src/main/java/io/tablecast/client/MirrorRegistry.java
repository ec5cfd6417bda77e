package io.tablecast.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.client.internal.ServerSession;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A client's mirrors, one per table and row type: creates each on first request, with the row
 * mapping its type needs, and attaches it to the session, which subscribes its table.
 */
final class MirrorRegistry {

  private record Key(String table, Class<?> rowType) {}

  private final ServerSession session;

  /** Makes the mapper of typed rows, at the first typed mirror. */
  private final Supplier<ObjectMapper> mapperSource;

  /**
   * The mapper of typed rows, once a typed mirror asked for it: a client of generic mirrors never
   * builds one (Jackson's default mapper with its Java time module, tens of milliseconds of a
   * client's start, more in a cold JVM).
   */
  private ObjectMapper objectMapper;

  private final ListenerDispatcher dispatcher;
  private final ClientListeners clientListeners;
  private final Map<Key, Mirror<?>> mirrors = new ConcurrentHashMap<>();
  private final Map<Key, NearCacheMirror<?>> nearCaches = new ConcurrentHashMap<>();

  /** The shape all mirrors of a table hold, by table (empty: the whole table). */
  private final Map<String, Optional<MirrorShape>> shapes = new ConcurrentHashMap<>();

  private final AtomicBoolean closed = new AtomicBoolean();

  /** Where mirrors are saved for a warm restart; null when they are not. */
  private final WarmRestart warmRestart;

  MirrorRegistry(
      ServerSession session,
      Supplier<ObjectMapper> mapperSource,
      ListenerDispatcher dispatcher,
      ClientListeners clientListeners,
      WarmRestart warmRestart) {
    this.session = session;
    this.warmRestart = warmRestart;
    this.mapperSource = mapperSource;
    this.dispatcher = dispatcher;
    this.clientListeners = clientListeners;
  }

  /**
   * The mirror of {@code table} with rows of {@code rowType} ({@code Map} for generic rows). Any
   * thread.
   */
  <V> Mirror<V> mirror(String table, Class<V> rowType) {
    return mirror(table, rowType, null);
  }

  /**
   * The mirror of {@code table} with rows of {@code rowType} holding {@code shape} of the table
   * (null: all of it). Any thread.
   *
   * @throws IllegalArgumentException when mirrors of the table hold another shape
   */
  <V> Mirror<V> mirror(String table, Class<V> rowType, MirrorShape shape) {
    checkArguments(table, rowType);
    claimShape(table, shape);
    @SuppressWarnings("unchecked")
    Mirror<V> m =
        (Mirror<V>)
            mirrors.computeIfAbsent(
                new Key(table, rowType),
                k -> {
                  boolean generic = rowType == Map.class;
                  Mirror<V> created =
                      new Mirror<>(
                          table,
                          rowType,
                          rowMapper(rowType),
                          generic
                              ? RowFit.generic(table)
                              : RowFit.typed(table, rowType, objectMapper()),
                          dispatcher,
                          clientListeners,
                          warmRestart == null ? null : warmRestart.place(table, rowType, shape),
                          shape);
                  clientListeners.activity().table(table).attach(created);
                  if (warmRestart == null) {
                    session.attach(created.sink());
                    return created;
                  }
                  session.restoring();
                  try {
                    created.readSaved();
                  } finally {
                    session.attachRestored(created.sink());
                  }
                  return created;
                });
    return m;
  }

  /**
   * The near cache of {@code table} with rows of {@code rowType}, bounded by {@code options}. Any
   * thread.
   *
   * @throws IllegalArgumentException when it exists already with other options
   */
  <V> NearCache<V> nearCache(String table, Class<V> rowType, NearCacheOptions options) {
    checkArguments(table, rowType);
    if (options == null) {
      throw new IllegalArgumentException("options must not be null");
    }
    claimShape(table, null);
    @SuppressWarnings("unchecked")
    NearCacheMirror<V> n =
        (NearCacheMirror<V>)
            nearCaches.computeIfAbsent(
                new Key(table, rowType),
                k -> {
                  NearCacheMirror<V> created =
                      new NearCacheMirror<>(table, rowType, rowMapper(rowType), options, session);
                  session.attach(created.sink());
                  clientListeners.activity().nearCache(created);
                  return created;
                });
    if (!n.options().toString().equals(options.toString())) {
      throw new IllegalArgumentException(
          "the near cache of "
              + table
              + " with rows of "
              + rowType.getName()
              + " exists already with "
              + n.options()
              + ", not "
              + options);
    }
    return n;
  }

  /**
   * Makes {@code shape} the one of {@code table}'s mirrors, or checks that it is: a table is
   * subscribed once per connection, so all its mirrors and near caches hold one shape.
   */
  private void claimShape(String table, MirrorShape shape) {
    Optional<MirrorShape> held = shapes.computeIfAbsent(table, t -> Optional.ofNullable(shape));
    if (!Objects.equals(held.orElse(null), shape)) {
      throw new IllegalArgumentException(
          "mirrors of "
              + table
              + " hold "
              + held.map(MirrorShape::toString).orElse("the whole table")
              + ", not "
              + (shape == null ? "the whole table" : shape)
              + ": a table is subscribed once per connection, so all its mirrors and near caches"
              + " hold the same rows and columns (use another client for another shape)");
    }
  }

  private void checkArguments(String table, Class<?> rowType) {
    if (table == null || table.isBlank()) {
      throw new IllegalArgumentException(
          "table must be a qualified name like schema.table, was "
              + (table == null ? null : "\"" + table + "\""));
    }
    if (rowType == null) {
      throw new IllegalArgumentException("rowType must not be null");
    }
    if (closed.get()) {
      throw new TablecastException(null, "client is closed; cannot mirror " + table);
    }
  }

  @SuppressWarnings("unchecked") // V is Map<String, Object> when rowType is Map.class
  private <V> RowMapping<V> rowMapper(Class<V> rowType) {
    return rowType == Map.class
        ? (RowMapping<V>) new GenericRowMapping()
        : new TypedRowMapping<>(rowType, objectMapper());
  }

  /** The mapper of typed rows, made at the first call. */
  private synchronized ObjectMapper objectMapper() {
    if (objectMapper == null) {
      objectMapper = mapperSource.get();
    }
    return objectMapper;
  }

  /** Makes every mirror not ready; no mirror can be created any more. Idempotent. */
  void close() {
    if (closed.compareAndSet(false, true)) {
      for (Mirror<?> m : mirrors.values()) {
        m.close();
      }
      nearCaches.values().forEach(NearCacheMirror::close);
    }
  }
}

package io.tablecast.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link NearCache} is bounded and loads: at most so many rows ({@link #maximumRows}) or so
 * many bytes ({@link #maximumBytes}), optionally expiring rows not read for a while. Misses go to
 * the server in requests of up to {@link #maxKeysPerFetch} keys: by default a miss is asked for at
 * once when none of the cache's requests is in flight, else together with the other misses that
 * came meanwhile as soon as the one in flight is answered; a {@link #batchWindow} makes misses wait
 * that long for others instead. Immutable; each {@code with} method returns a copy.
 *
 * <pre>{@code
 * NearCacheOptions.maximumRows(10_000).expireAfterAccess(Duration.ofMinutes(10))
 * }</pre>
 */
public final class NearCacheOptions {

  /** How long a miss waits for others to share its request, by default: not at all. */
  public static final Duration DEFAULT_BATCH_WINDOW = Duration.ZERO;

  /** Keys one request carries at most, by default. */
  public static final int DEFAULT_MAX_KEYS_PER_FETCH = 256;

  /** Keys one request may carry at most (the server refuses more). */
  public static final int MAX_KEYS_PER_FETCH = 1_000;

  /** How long {@link NearCache#get} waits for a load, by default. */
  public static final Duration DEFAULT_LOAD_TIMEOUT = Duration.ofSeconds(5);

  private final long maximumRows;
  private final long maximumBytes;
  private final Duration expireAfterAccess;
  private final Duration batchWindow;
  private final int maxKeysPerFetch;
  private final Duration loadTimeout;

  private NearCacheOptions(
      long maximumRows,
      long maximumBytes,
      Duration expireAfterAccess,
      Duration batchWindow,
      int maxKeysPerFetch,
      Duration loadTimeout) {
    this.maximumRows = maximumRows;
    this.maximumBytes = maximumBytes;
    this.expireAfterAccess = expireAfterAccess;
    this.batchWindow = batchWindow;
    this.maxKeysPerFetch = maxKeysPerFetch;
    this.loadTimeout = loadTimeout;
  }

  /** A near cache of at most {@code rows} rows (at least 1). */
  public static NearCacheOptions maximumRows(long rows) {
    if (rows < 1) {
      throw new IllegalArgumentException("maximumRows must be at least 1, was " + rows);
    }
    return new NearCacheOptions(
        rows, -1, null, DEFAULT_BATCH_WINDOW, DEFAULT_MAX_KEYS_PER_FETCH, DEFAULT_LOAD_TIMEOUT);
  }

  /**
   * A near cache of at most about {@code bytes} bytes of rows (at least 1), each row weighed as its
   * size in the row form plus 64 bytes of overhead.
   */
  public static NearCacheOptions maximumBytes(long bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException("maximumBytes must be at least 1, was " + bytes);
    }
    return new NearCacheOptions(
        -1, bytes, null, DEFAULT_BATCH_WINDOW, DEFAULT_MAX_KEYS_PER_FETCH, DEFAULT_LOAD_TIMEOUT);
  }

  /** Rows not read for {@code expiry} leave the cache (none by default). */
  public NearCacheOptions expireAfterAccess(Duration expiry) {
    positive("expireAfterAccess", expiry);
    return new NearCacheOptions(
        maximumRows, maximumBytes, expiry, batchWindow, maxKeysPerFetch, loadTimeout);
  }

  /**
   * How long the first miss of a request waits for other misses to share it; zero (the default): it
   * is sent at once unless a request of this cache is in flight, and the misses that come meanwhile
   * go together when that one is answered.
   */
  public NearCacheOptions batchWindow(Duration window) {
    Objects.requireNonNull(window, "batchWindow");
    if (window.isNegative()) {
      throw new IllegalArgumentException("batchWindow must not be negative, was " + window);
    }
    return new NearCacheOptions(
        maximumRows, maximumBytes, expireAfterAccess, window, maxKeysPerFetch, loadTimeout);
  }

  /** Keys one request carries at most, 1 to {@link #MAX_KEYS_PER_FETCH}. */
  public NearCacheOptions maxKeysPerFetch(int keys) {
    if (keys < 1 || keys > MAX_KEYS_PER_FETCH) {
      throw new IllegalArgumentException(
          "maxKeysPerFetch must be 1 to " + MAX_KEYS_PER_FETCH + ", was " + keys);
    }
    return new NearCacheOptions(
        maximumRows, maximumBytes, expireAfterAccess, batchWindow, keys, loadTimeout);
  }

  /**
   * How long {@link NearCache#get} waits for a load before it fails ({@link
   * #DEFAULT_LOAD_TIMEOUT}).
   */
  public NearCacheOptions loadTimeout(Duration timeout) {
    positive("loadTimeout", timeout);
    return new NearCacheOptions(
        maximumRows, maximumBytes, expireAfterAccess, batchWindow, maxKeysPerFetch, timeout);
  }

  private static void positive(String name, Duration d) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + d);
    }
  }

  /** The bound in rows, or -1 when bounded in bytes. */
  public long maximumRows() {
    return maximumRows;
  }

  /** The bound in bytes, or -1 when bounded in rows. */
  public long maximumBytes() {
    return maximumBytes;
  }

  /** How long an unread row stays, or null when rows do not expire. */
  public Duration expireAfterAccess() {
    return expireAfterAccess;
  }

  public Duration batchWindow() {
    return batchWindow;
  }

  public int maxKeysPerFetch() {
    return maxKeysPerFetch;
  }

  public Duration loadTimeout() {
    return loadTimeout;
  }

  @Override
  public String toString() {
    return "NearCacheOptions[maximumRows="
        + maximumRows
        + ", maximumBytes="
        + maximumBytes
        + ", expireAfterAccess="
        + expireAfterAccess
        + ", batchWindow="
        + batchWindow
        + ", maxKeysPerFetch="
        + maxKeysPerFetch
        + ", loadTimeout="
        + loadTimeout
        + "]";
  }
}

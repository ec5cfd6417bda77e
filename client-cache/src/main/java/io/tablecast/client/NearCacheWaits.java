package io.tablecast.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/** A near cache's blocking reads: waiting for a load, with what to do when it takes too long. */
final class NearCacheWaits {
  private NearCacheWaits() {}

  /**
   * The result of {@code f} within {@code timeout}.
   *
   * @param what the key or keys loaded, for the messages
   * @param server the server connected to now, or null
   * @throws TablecastException when the load failed, timed out (naming the server and the setting
   *     to raise) or was interrupted
   */
  static <T> T await(
      CompletableFuture<T> f,
      Duration timeout,
      String table,
      Object what,
      Supplier<String> server) {
    try {
      return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      String connected = server.get();
      throw new TablecastException(
          null,
          "no row of "
              + table
              + " for "
              + what
              + " within "
              + timeout
              + " ("
              + (connected == null ? "no server connected" : "connected to " + connected)
              + "); raise NearCacheOptions.loadTimeout if the server is slow");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof TablecastException t
          ? t
          : new TablecastException(null, "loading " + what + " of " + table + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TablecastException(null, "interrupted while loading " + what + " of " + table);
    }
  }
}

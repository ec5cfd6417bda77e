package io.tablecast.client;

import io.tablecast.client.internal.ServerSession;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** {@link TablecastClient#sync} and {@link TablecastClient#syncAsync} over the session. */
final class SyncCalls {
  private SyncCalls() {}

  /** Waits for the session's answer; throws as {@link TablecastClient#sync} says. */
  static void await(ServerSession session, Duration timeout) throws InterruptedException {

    CompletableFuture<Void> done = session.sync();
    try {
      done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw new TablecastException(null, e.getCause().getMessage());
    } catch (TimeoutException e) {
      done.cancel(false);
      String server = session.connectedServer();
      throw new TablecastException(
          null,
          "sync: no answer within "
              + timeout.toMillis()
              + " ms ("
              + (server != null
                  ? "connected to " + server + ", which has not read the database since the call"
                  : "not connected to a server; reconnecting")
              + ")");
    }
  }

  /** The session's answer, failing with a {@link TablecastException}. */
  @SuppressWarnings("FutureReturnValueIgnored") // its reaction completes the future returned
  static CompletableFuture<Void> async(ServerSession session) {
    CompletableFuture<Void> answered = new CompletableFuture<>();
    session
        .sync()
        .whenComplete(
            (ok, failure) -> {
              if (failure == null) {
                answered.complete(null);
              } else {
                answered.completeExceptionally(new TablecastException(null, failure.getMessage()));
              }
            });
    return answered;
  }
}

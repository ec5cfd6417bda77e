package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.tablecast.server.tail.ReadBarrier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;

/**
 * Read-your-writes from a server that serves from the stream: it asks the capture leader, with a
 * NATS request on {@code tablecast.<stream>.sync}, for a stream sequence that holds every change
 * the database committed before the request. The leader answers once a read of the outbox that
 * began after the request has been published (its tail's {@link ReadBarrier}), with the sequence of
 * the last message it stored; the server answers its client once it has read the stream that far.
 * Standbys do not listen: only the leader answers, and while none leads the request fails with the
 * reason.
 */
final class StreamSyncs {
  /** How long a server waits for the leader's answer (a takeover included). */
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private StreamSyncs() {}

  /** The subject of the requests of {@code stream}: not one the stream stores. */
  static String subject(String stream) {
    return NatsStreams.subject(stream) + ".sync";
  }

  /**
   * Capture: answers the requests through {@code barrier}, each with {@code lastSequence} once the
   * read that covers it was published. Stops with the connection.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the reply is the reaction; a closed connection
  // (capture stopping) leaves the request to time out at the server, which says so
  static Dispatcher answer(
      Connection nats, String stream, ReadBarrier barrier, LongSupplier lastSequence) {
    Dispatcher d =
        nats.createDispatcher(
            request -> {
              String replyTo = request.getReplyTo();
              if (replyTo != null) {
                barrier
                    .request()
                    .thenRun(
                        () ->
                            nats.publish(
                                replyTo,
                                Long.toString(lastSequence.getAsLong())
                                    .getBytes(StandardCharsets.US_ASCII)));
              }
            });
    d.subscribe(subject(stream));
    return d;
  }

  /**
   * Server: asks the leader. Completes with the sequence, or exceptionally ({@link
   * IllegalStateException}) saying why no leader answered.
   */
  static CompletableFuture<Long> ask(Connection nats, String stream) {
    return nats.requestWithTimeout(subject(stream), new byte[0], TIMEOUT)
        .handle(
            (Message m, Throwable e) -> {
              if (e == null && m != null && !m.isStatusMessage()) {
                return Long.parseLong(new String(m.getData(), StandardCharsets.US_ASCII));
              }
              throw new IllegalStateException(
                  "no tablecast capture answered on NATS subject "
                      + subject(stream)
                      + " ("
                      + (e != null ? why(e) : "status " + m.getStatus())
                      + "): sync needs the capture leader, which reads the database; a standby"
                      + " takes over within nats.capture_takeover");
            });
  }

  private static String why(Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
  }
}

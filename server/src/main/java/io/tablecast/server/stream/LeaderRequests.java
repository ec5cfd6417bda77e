package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.tablecast.server.tail.ReadBarrier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * What a server that serves from the stream asks of the capture leader, with NATS requests: only
 * the leader listens (standbys do not), and while none leads a request fails with the reason. A
 * request a leader took and never answered (it stopped, or was killed, holding it) is asked again
 * after {@code nats.capture_takeover}, by when a standby leads, until {@link #TIMEOUT}.
 *
 * <ul>
 *   <li><b>sync</b> ({@code tablecast.<stream>.sync}), read-your-writes: a stream sequence that
 *       holds every change the database committed before the request. The leader answers once a
 *       read of the outbox that began after the request has been published (its tail's {@link
 *       ReadBarrier}), with the sequence of the last message it stored; the server answers its
 *       client once it has read the stream that far.
 *   <li><b>reread</b> ({@code tablecast.<stream>.reread}): a table whose image on the server could
 *       not take a change. The leader has it read again with its next poll and publishes the read,
 *       which every server reconciles its image with.
 * </ul>
 */
final class LeaderRequests {
  /** How long a server waits for the leader's answer (a takeover included). */
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private LeaderRequests() {}

  /** The subject of the sync requests of {@code stream}: not one the stream stores. */
  static String subject(String stream) {
    return NatsStreams.subject(stream) + ".sync";
  }

  /** The subject of the re-read requests of {@code stream}. */
  static String rereadSubject(String stream) {
    return NatsStreams.subject(stream) + ".reread";
  }

  /**
   * Capture: answers the sync requests through {@code barrier}, each with {@code lastSequence} once
   * the read that covers it was published. Stops with the connection.
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
   * Server: asks the leader for a sync. Completes with the sequence, or exceptionally ({@link
   * IllegalStateException}) saying why no leader answered.
   */
  static CompletableFuture<Long> ask(Connection nats, String stream, Duration captureTakeover) {
    return request(nats, subject(stream), new byte[0], captureTakeover)
        .thenApply(m -> Long.parseLong(new String(m.getData(), StandardCharsets.US_ASCII)));
  }

  /**
   * Capture: takes the re-read requests, hands each table to {@code reread} (any thread: it must
   * only queue it for the tail) and says so to the server that asked. Stops with the connection.
   */
  static Dispatcher answerRereads(Connection nats, String stream, Consumer<String> reread) {
    Dispatcher d =
        nats.createDispatcher(
            request -> {
              reread.accept(new String(request.getData(), StandardCharsets.UTF_8));
              if (request.getReplyTo() != null) {
                nats.publish(request.getReplyTo(), new byte[0]);
              }
            });
    d.subscribe(rereadSubject(stream));
    return d;
  }

  /**
   * Server: asks the leader to re-read {@code table}. Completes once the leader has taken the
   * request, or exceptionally ({@link IllegalStateException}) saying why none did.
   */
  static CompletableFuture<Void> askReread(Connection nats, String stream, String table) {
    return request(nats, rereadSubject(stream), table.getBytes(StandardCharsets.UTF_8), TIMEOUT)
        .thenApply(m -> null);
  }

  /**
   * A request to the leader: its answer, or a failure naming the subject and why none came. When no
   * answer comes within {@code askAgainAfter} (a leader took it and stopped holding it), it is
   * asked again, until {@link #TIMEOUT}; nobody listening fails it at once.
   */
  private static CompletableFuture<Message> request(
      Connection nats, String subject, byte[] body, Duration askAgainAfter) {
    return request(nats, subject, body, askAgainAfter, System.nanoTime() + TIMEOUT.toNanos());
  }

  private static CompletableFuture<Message> request(
      Connection nats, String subject, byte[] body, Duration askAgainAfter, long deadline) {
    long wait = Math.min(askAgainAfter.toNanos(), deadline - System.nanoTime());
    CompletableFuture<Message> asked =
        nats.requestWithTimeout(subject, body, TIMEOUT)
            // our own timeout: NATS's fires on a timer up to 5 s late, and fails as no responders
            .orTimeout(Math.max(wait, 0), TimeUnit.NANOSECONDS);
    return asked
        .thenApply(
            m -> {
              if (m.isStatusMessage()) {
                throw unanswered(subject, "status " + m.getStatus());
              }
              return m;
            })
        .exceptionallyCompose(
            e -> {
              Throwable cause = unwrap(e);
              if (cause instanceof TimeoutException && deadline - System.nanoTime() > 0) {
                return request(nats, subject, body, askAgainAfter, deadline);
              }
              return CompletableFuture.failedFuture(
                  cause instanceof Unanswered ? cause : unanswered(subject, why(cause)));
            });
  }

  /**
   * The failure of a request no leader answered: a type of its own, since the NATS client's {@link
   * CancellationException} is an {@link IllegalStateException} too.
   */
  private static final class Unanswered extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    Unanswered(String message) {
      super(message);
    }
  }

  private static Unanswered unanswered(String subject, String why) {
    return new Unanswered(
        "no tablecast capture answered on NATS subject "
            + subject
            + " ("
            + why
            + "): only the capture leader answers, and a standby takes over within"
            + " nats.capture_takeover");
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  private static String why(Throwable e) {
    Throwable cause = unwrap(e);
    if (cause instanceof CancellationException && cause.getMessage() == null) {
      return "nobody listens"; // how the NATS client fails a request on the no-responders status
    }
    if (cause instanceof TimeoutException) {
      return "no answer within " + TIMEOUT.toSeconds() + " s";
    }
    return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
  }
}

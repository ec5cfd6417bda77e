package io.tablecast.server.stream;

import io.nats.client.Connection;
import java.sql.SQLTransientConnectionException;

/**
 * Tells a quiet stream from a connection to NATS that went silent without closing ({@link
 * NatsLiveness}): both deliver nothing to a server reading the stream, which read nothing and said
 * nothing meanwhile, its mirrors looking current while the stream moved on. Once nothing has been
 * heard from the stream for {@link #QUIET_NANOS}, the tail pings NATS; when no answer comes, the
 * read fails and the connection is made again. While it cannot be made, the reads fail, and every
 * table is said stale after 5 s of failing reads, as with a database that went away. The ping is
 * asked for only after a quiet spell, never while messages arrive.
 *
 * <p>Tail thread.
 */
final class SilentConnectionCheck {

  /** How long nothing may be heard from the stream before NATS is pinged. */
  static final long QUIET_NANOS = 5_000_000_000L;

  private final Connection nats;
  private final String stream;
  private long askedAt = System.nanoTime();

  /** NATS did not answer, and the stream has not been subscribed to again since. */
  private boolean madeAgain;

  SilentConnectionCheck(Connection nats, String stream) {
    this.nats = nats;
    this.stream = stream;
  }

  /**
   * After a read that found nothing, on a connection the client takes as connected: when nothing
   * was heard since {@code heardNanos} (a message or a part of one, {@link GroupReader#heardNanos})
   * for {@link #QUIET_NANOS}, nor asked, pings NATS, and when it does not answer, starts making the
   * connection again and throws.
   */
  void check(long heardNanos) throws SQLTransientConnectionException, InterruptedException {
    long now = System.nanoTime();
    if (now - Math.max(heardNanos, askedAt) < QUIET_NANOS) {
      return;
    }
    askedAt = now; // asked at most once per quiet spell
    String what = "NATS stream " + stream;
    if (!NatsLiveness.answersOrReconnects(nats, what)) {
      madeAgain = true;
      throw new SQLTransientConnectionException(
          what
              + ": nothing came for "
              + QUIET_NANOS / 1_000_000_000L
              + " s, and NATS did not answer a ping within "
              + NatsLiveness.ANSWER_WITHIN.toSeconds()
              + " s; the connection is made again");
    }
  }

  /**
   * True once after NATS did not answer: the connection was made again, and the stream is to be
   * subscribed to again from the message after the last one read, at once rather than when the
   * client finds its consumer's heartbeats missing (seconds later).
   */
  boolean subscribeAgain() {
    boolean again = madeAgain;
    madeAgain = false;
    return again;
  }
}

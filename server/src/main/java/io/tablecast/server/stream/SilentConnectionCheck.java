package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.ForceReconnectOptions;
import io.tablecast.server.log.RecentEvents;
import java.io.IOException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * Tells a quiet stream from a connection to NATS that went silent without closing (a NAT or
 * firewall that forgot it, a host powered off): both deliver nothing, and the client's status stays
 * CONNECTED until its own pings give the connection up, minutes later by default (two unanswered
 * pings two minutes apart). A server read nothing meanwhile and said nothing: its mirrors looked
 * current while the stream moved on. Once nothing has been heard from the stream for {@link
 * #QUIET_NANOS}, the tail asks NATS for a round trip; when none comes back within {@link
 * #ANSWER_WITHIN}, the read fails and the connection is made again on a thread of its own (the
 * client's forced reconnect waits until one is made). While it cannot be made, the reads fail, and
 * every table is said stale after 5 s of failing reads, as with a database that went away. The
 * round trip is asked for only after a quiet spell, so a connection busy delivering large messages
 * is never taken for a silent one.
 *
 * <p>Tail thread, but for the reconnecting thread it starts.
 */
final class SilentConnectionCheck {
  private static final Logger LOG = RecentEvents.logger(SilentConnectionCheck.class);

  /** How long nothing may be heard from the stream before NATS is asked for a round trip. */
  static final long QUIET_NANOS = 5_000_000_000L;

  /** How long NATS has to answer the ping. */
  static final Duration ANSWER_WITHIN = Duration.ofSeconds(3);

  private final Connection nats;
  private final String stream;
  private final AtomicBoolean reconnecting = new AtomicBoolean();
  private long askedAt = System.nanoTime();

  SilentConnectionCheck(Connection nats, String stream) {
    this.nats = nats;
    this.stream = stream;
  }

  /**
   * After a read that found nothing, on a connection the client takes as connected: when nothing
   * was heard since {@code heardNanos} (a message or a part of one, {@link GroupReader#heardNanos})
   * for {@link #QUIET_NANOS}, nor asked, asks NATS for a round trip, and when it does not answer,
   * starts making the connection again and throws.
   */
  void check(long heardNanos) throws SQLTransientConnectionException {
    long now = System.nanoTime();
    if (now - Math.max(heardNanos, askedAt) < QUIET_NANOS) {
      return;
    }
    askedAt = now; // asked at most once per quiet spell
    try {
      nats.flush(ANSWER_WITHIN); // a ping, and its pong
    } catch (TimeoutException | RuntimeException e) {
      String why =
          "NATS stream "
              + stream
              + ": nothing came for "
              + QUIET_NANOS / 1_000_000_000L
              + " s, and NATS did not answer a ping within "
              + ANSWER_WITHIN.toSeconds()
              + " s; the connection is made again";
      reconnect();
      throw new SQLTransientConnectionException(why, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void reconnect() {
    if (!reconnecting.compareAndSet(false, true)) {
      return;
    }
    Thread t =
        new Thread(
            () -> {
              try {
                // closed at once: a graceful close waits for a peer that does not answer
                nats.forceReconnect(ForceReconnectOptions.FORCE_CLOSE_INSTANCE);
              } catch (IOException | RuntimeException e) {
                LOG.warn("NATS stream {}: reconnecting failed: {}", stream, e.toString());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                reconnecting.set(false);
              }
            },
            "tablecast-nats-reconnect");
    t.setDaemon(true);
    t.start();
  }
}

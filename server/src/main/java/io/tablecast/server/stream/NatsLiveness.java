package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.ForceReconnectOptions;
import io.tablecast.server.log.RecentEvents;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;

/**
 * Whether a connection to NATS still answers, and making it again when it does not. A connection a
 * NAT or firewall forgot, or to a NATS host powered off, stays open and quiet: the client's status
 * stays CONNECTED, requests and publishes time out one after the other, and the client's own pings
 * (two minutes apart, two may go unanswered) give the connection up only after minutes. A ping (a
 * flush) with {@link #ANSWER_WITHIN} to answer tells it, and a forced reconnect, the silent
 * connection closed at once, ends it: the client connects again and its subscriptions and publishes
 * carry on over the new connection.
 */
final class NatsLiveness {
  private static final Logger LOG = RecentEvents.logger(NatsLiveness.class);

  /** How long NATS has to answer the ping. */
  static final Duration ANSWER_WITHIN = Duration.ofSeconds(3);

  /** Connections being made again (the client's forced reconnect waits until one is made). */
  private static final Set<Connection> RECONNECTING = ConcurrentHashMap.newKeySet();

  private NatsLiveness() {}

  /**
   * True when {@code nats} answers a ping within {@link #ANSWER_WITHIN}; otherwise starts making
   * the connection again on a thread of its own, logs it naming {@code what} used it, and returns
   * false.
   */
  static boolean answersOrReconnects(Connection nats, String what) throws InterruptedException {
    try {
      nats.flush(ANSWER_WITHIN);
      return true;
    } catch (TimeoutException | RuntimeException e) {
      LOG.warn(
          "{}: NATS did not answer a ping within {} s; the connection is made again",
          what,
          ANSWER_WITHIN.toSeconds());
      reconnect(nats, what);
      return false;
    }
  }

  private static void reconnect(Connection nats, String what) {
    if (!RECONNECTING.add(nats)) {
      return;
    }
    Thread t =
        new Thread(
            () -> {
              try {
                // closed at once: a graceful close waits for a peer that does not answer
                nats.forceReconnect(ForceReconnectOptions.FORCE_CLOSE_INSTANCE);
              } catch (IOException | RuntimeException e) {
                LOG.warn("{}: connecting to NATS again failed: {}", what, e.toString());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                RECONNECTING.remove(nats);
              }
            },
            "tablecast-nats-reconnect");
    t.setDaemon(true);
    t.start();
  }
}

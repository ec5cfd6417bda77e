package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.Consumer;
import io.nats.client.ErrorListener;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.support.Status;
import io.tablecast.server.log.RecentEvents;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;

/**
 * What the NATS client reports about its connections, in the server's log (SLF4J, and the console's
 * recent events) instead of jnats' own {@code java.util.logging} lines on stderr, which bypass the
 * server's logging settings and log every JetStream flow-control reply at INFO. Errors the NATS
 * server sends, slow consumers, discarded messages and missed heartbeats are WARN; the same
 * exception again (a reconnect attempt every 250 ms while NATS is away, which capture and servers
 * already report once per cause) and flow control are DEBUG.
 */
final class NatsClientEvents implements ErrorListener {
  private static final Logger LOG = RecentEvents.logger(NatsClientEvents.class);

  /**
   * The last exception told, per connection name: a server or capture waiting for NATS connects
   * anew every few seconds, each time with a new listener, and said the same WARN at each attempt.
   */
  private static final Map<String, String> LAST_EXCEPTION = new ConcurrentHashMap<>();

  @Override
  public void errorOccurred(Connection conn, String error) {
    LOG.warn("NATS {} reported: {}", name(conn), error);
  }

  @Override
  public void exceptionOccurred(Connection conn, Exception exp) {
    String said = describe(conn, exp);
    if (said.equals(LAST_EXCEPTION.put(name(conn), said))) {
      LOG.debug("NATS client of {}: {}", name(conn), said);
    } else {
      LOG.warn("NATS client of {}: {}", name(conn), said);
    }
  }

  /**
   * The exception in words, with the servers tried: a timeout says nothing of itself ({@code
   * TimeoutException: null}), and is what a port that does not answer in NATS's protocol gives.
   */
  static String describe(Connection conn, Exception exp) {
    String servers = conn == null ? "" : " (servers " + conn.getOptions().getServers() + ")";
    if (exp instanceof java.util.concurrent.TimeoutException && exp.getMessage() == null) {
      return "no answer in the NATS protocol within "
          + NatsStreams.CONNECT_TIMEOUT.toSeconds()
          + " s"
          + servers
          + ": is it a NATS server's port, and does it answer?";
    }
    return exp.getClass().getSimpleName() + ": " + exp.getMessage() + servers;
  }

  @Override
  public void slowConsumerDetected(Connection conn, Consumer consumer) {
    LOG.warn(
        "NATS client of {} is a slow consumer: {} messages pending, {} dropped",
        name(conn),
        consumer.getPendingMessageCount(),
        consumer.getDroppedCount());
  }

  @Override
  public void messageDiscarded(Connection conn, Message msg) {
    LOG.warn("NATS client of {} discarded a message on {}", name(conn), msg.getSubject());
  }

  @Override
  public void heartbeatAlarm(
      Connection conn,
      JetStreamSubscription sub,
      long lastStreamSequence,
      long lastConsumerSequence) {
    LOG.warn(
        "NATS client of {}: no heartbeat from its consumer after stream sequence {}",
        name(conn),
        lastStreamSequence);
  }

  @Override
  public void unhandledStatus(Connection conn, JetStreamSubscription sub, Status status) {
    LOG.warn("NATS client of {}: unhandled status {}", name(conn), status);
  }

  @Override
  public void pullStatusWarning(Connection conn, JetStreamSubscription sub, Status status) {
    LOG.debug("NATS client of {}: pull status {}", name(conn), status);
  }

  @Override
  public void pullStatusError(Connection conn, JetStreamSubscription sub, Status status) {
    LOG.warn("NATS client of {}: pull status {}", name(conn), status);
  }

  @Override
  public void flowControlProcessed(
      Connection conn, JetStreamSubscription sub, String subject, FlowControlSource source) {
    LOG.debug("NATS client of {}: flow control {} on {}", name(conn), source, subject);
  }

  @Override
  public void socketWriteTimeout(Connection conn) {
    LOG.warn("NATS client of {}: a socket write timed out", name(conn));
  }

  private static String name(Connection conn) {
    return conn == null ? "?" : conn.getOptions().getConnectionName();
  }
}

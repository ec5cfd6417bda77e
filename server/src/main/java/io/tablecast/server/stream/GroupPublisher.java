package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.PublishOptions;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.tablecast.server.log.RecentEvents;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Appends message groups to the stream, fenced: each message is published with {@code
 * Nats-Expected-Last-Sequence} set to the last sequence this publisher knows, so that a publisher
 * whose view is stale (another capture appended meanwhile) is refused (JetStream error {@value
 * #WRONG_LAST_SEQUENCE}) and stops, and with {@code Nats-Msg-Id} so that a retry after a lost
 * acknowledgement is stored once. A message NATS did not acknowledge (NATS restarting, the
 * connection lost) is published again, the same, until it is, or until the publisher is closed.
 */
final class GroupPublisher {
  private static final Logger LOG = RecentEvents.logger(GroupPublisher.class);

  /** JetStream's error code for a wrong {@code Nats-Expected-Last-Sequence}. */
  static final int WRONG_LAST_SEQUENCE = 10071;

  /** Room left in each part for the headers (they count in {@code max_payload}). */
  static final int HEADER_ROOM = 4096;

  private final Connection connection;
  private final JetStream js;
  private final String stream;
  private final String subject;
  private final String runId;
  private final int partBytes;
  private final CountDownLatch closed = new CountDownLatch(1);
  private volatile long lastSequence;
  private long groups;

  /** A message is being published again after NATS did not acknowledge it. */
  private volatile boolean retrying;

  /** Another publisher appended to the stream: this one must stop. */
  static final class FencedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    FencedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * @param lastSequence the stream's last sequence when this publisher started
   * @param runId unique to this run of capture: message ids never repeat another run's
   */
  GroupPublisher(Connection connection, String stream, long lastSequence, String runId)
      throws IOException {
    this.connection = connection;
    this.js = connection.jetStream();
    this.stream = stream;
    this.subject = NatsStreams.subject(stream);
    this.lastSequence = lastSequence;
    this.runId = runId;
    this.partBytes = (int) Math.max(1024, connection.getServerInfo().getMaxPayload() - HEADER_ROOM);
  }

  /** The sequence of the last message this publisher appended or started after. */
  long lastSequence() {
    return lastSequence;
  }

  /** True while a message NATS did not acknowledge is being published again. */
  boolean retrying() {
    return retrying;
  }

  /** Largest payload of one part. */
  int partBytes() {
    return partBytes;
  }

  /**
   * Appends one group, in parts of at most {@link #partBytes()}; returns once NATS acknowledged
   * every part.
   *
   * @param cursor on the last part (null: none)
   * @return false when the publisher was closed before the group was stored
   * @throws FencedException when another publisher appended to the stream
   */
  boolean publish(String kind, byte[] payload, long captureMillis, String cursor)
      throws InterruptedException {
    long group = ++groups;
    int count = Math.max(1, (payload.length + partBytes - 1) / partBytes);
    for (int i = 1; i <= count; i++) {
      Headers h = new Headers();
      h.put(StreamHeaders.GROUP, runId + "-" + group);
      h.put(StreamHeaders.PART, i + "/" + count);
      h.put(StreamHeaders.KIND, kind);
      h.put(StreamHeaders.CAPTURE_MILLIS, Long.toString(captureMillis));
      if (i == count && cursor != null) {
        h.put(StreamHeaders.CURSOR, cursor);
      }
      byte[] part =
          Arrays.copyOfRange(payload, (i - 1) * partBytes, Math.min(payload.length, i * partBytes));
      String msgId = runId + "-" + group + "-" + i;
      if (!append(NatsMessage.builder().subject(subject).headers(h).data(part).build(), msgId)) {
        return false;
      }
    }
    if (count > 1) {
      LOG.info("batch of {} bytes published in {} parts", payload.length, count);
    }
    return true;
  }

  /** Publishes one message until acknowledged; false when closed first. */
  private boolean append(NatsMessage message, String msgId) throws InterruptedException {
    long backoff = 50;
    boolean warned = false;
    while (closed.getCount() > 0) {
      PublishOptions.Builder options = PublishOptions.builder().messageId(msgId).stream(stream);
      if (lastSequence > 0) { // 0 would not be checked by NATS: an empty stream is not fenced
        options.expectedLastSequence(lastSequence);
      }
      try {
        PublishAck ack = js.publish(message, options.build());
        lastSequence = ack.getSeqno();
        retrying = false;
        if (warned) {
          LOG.info("NATS stored the batch at sequence {}, publishing goes on", lastSequence);
        }
        return true;
      } catch (JetStreamApiException e) {
        if (e.getApiErrorCode() == WRONG_LAST_SEQUENCE) {
          Boolean stored = storedEarlier(msgId);
          if (Boolean.TRUE.equals(stored)) {
            return true;
          }
          if (stored == null) { // not known: ask again
            warned = retrying(warned, backoff, e);
            if (closed.await(backoff, TimeUnit.MILLISECONDS)) {
              return false;
            }
            continue;
          }
          throw new FencedException(
              "another publisher appended to stream "
                  + stream
                  + " after sequence "
                  + lastSequence
                  + " (NATS error "
                  + WRONG_LAST_SEQUENCE
                  + "): this capture stops; only one capture may publish to a stream",
              e);
        }
        warned = retrying(warned, backoff, e);
      } catch (IOException | IllegalStateException e) { // timeouts, connection lost or closed
        warned = retrying(warned, backoff, e);
        if (connection.getStatus() == Connection.Status.CONNECTED) {
          // a timeout on a connection the client takes as connected: it may have gone silent
          NatsLiveness.answersOrReconnects(connection, "publishing to NATS stream " + stream);
        }
      }
      if (closed.await(backoff, TimeUnit.MILLISECONDS)) {
        return false;
      }
      backoff = Math.min(2_000, backoff * 2);
    }
    return false;
  }

  private boolean retrying(boolean warned, long backoff, Exception e) {
    retrying = true;
    if (!warned) {
      LOG.warn(
          "publishing to NATS stream {} failed, retrying every {} ms at most until stored "
              + "(the outbox keeps the changes): {}",
          stream,
          2_000,
          e.toString());
    } else {
      LOG.debug("publishing again in {} ms: {}", backoff, e.toString());
    }
    return true;
  }

  /**
   * A refused expected sequence after a publish whose acknowledgement was lost: when the stream's
   * last message is this very one, it was stored, and this publisher is still the only one.
   */
  @SuppressWarnings("NullableOptional") // three answers: stored, not stored, not known
  private Boolean storedEarlier(String msgId) {
    try {
      MessageInfo last = connection.jetStreamManagement().getLastMessage(stream, subject);
      Headers h = last.getHeaders();
      if (h != null && msgId.equals(h.getFirst("Nats-Msg-Id"))) {
        lastSequence = last.getSeq();
        return Boolean.TRUE;
      }
      return Boolean.FALSE;
    } catch (IOException | JetStreamApiException | IllegalStateException e) {
      LOG.debug("cannot read the last message of stream {}: {}", stream, e.toString());
      return null;
    }
  }

  /** Stops waiting for NATS: a publish in progress returns false. */
  void close() {
    closed.countDown();
  }
}

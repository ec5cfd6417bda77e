package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.impl.Headers;
import io.tablecast.server.log.RecentEvents;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * Reads the stream's message groups in order through an ordered consumer (which JetStream's client
 * recreates after a lost connection or a gap, from the next sequence), putting the parts of each
 * group back together. A group is returned only whole; parts of a group that a capture left
 * unfinished (it stopped between parts) are dropped when the next group begins.
 */
final class GroupReader implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(GroupReader.class);

  /**
   * A whole group: what it holds, the stream sequence of its last part, and the id of the capture
   * run that published it (null for a gap).
   */
  // the payload is read once, decoded, and dropped
  @SuppressWarnings("ArrayRecordComponent")
  record Group(long sequence, String kind, String run, String cursor, byte[] payload) {}

  /**
   * The kind of the {@link Group} that says messages are missing before {@code sequence} (the
   * stream's limits or a trim removed them before this reader got them): no payload; the message at
   * {@code sequence} comes next.
   */
  static final String GAP = "gap";

  /** How often JetStream tells an idle consumer it is alive. */
  static final Duration HEARTBEAT = Duration.ofSeconds(1);

  private final JetStreamSubscription subscription;
  private final ByteArrayOutputStream parts = new ByteArrayOutputStream();
  private String groupId;
  private int nextPart;
  private long expected;
  private Message held;

  /** When the last message, or part of one, came (System.nanoTime()). */
  private long heardNanos = System.nanoTime();

  /** Reads {@code stream} from {@code firstSequence} on. */
  GroupReader(Connection nats, String stream, long firstSequence) throws IOException {
    this.expected = Math.max(1, firstSequence);
    try {
      this.subscription =
          nats.jetStream()
              .subscribe(
                  NatsStreams.subject(stream),
                  PushSubscribeOptions.builder().stream(stream)
                      .ordered(true)
                      .configuration(
                          ConsumerConfiguration.builder()
                              .deliverPolicy(DeliverPolicy.ByStartSequence)
                              .startSequence(Math.max(1, firstSequence))
                              // a lost consumer (NATS restarted) is noticed after 3 missed beats
                              .idleHeartbeat(HEARTBEAT)
                              .build())
                      .build());
    } catch (JetStreamApiException e) {
      throw NatsStreams.refused(nats, stream, e);
    }
  }

  /** The next whole group, waiting up to {@code maxWait} for its parts; null when none came. */
  Group next(Duration maxWait) throws InterruptedException {
    long deadline = System.nanoTime() + maxWait.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0 && held == null) {
        return null;
      }
      Message m = held != null ? held : subscription.nextMessage(Duration.ofNanos(left));
      held = null;
      if (m == null) {
        return null;
      }
      heardNanos = System.nanoTime();
      Group g = take(m);
      if (g != null) {
        return g;
      }
    }
  }

  /** When the last message came, a part of a group included (System.nanoTime()). */
  long heardNanos() {
    return heardNanos;
  }

  private Group take(Message m) {
    Headers h = m.getHeaders();
    StreamHeaders.Part part = StreamHeaders.Part.of(h);
    String id = h.getFirst(StreamHeaders.GROUP);
    long seq = m.metaData().streamSequence();
    if (seq > expected) {
      Group gap = new Group(seq, GAP, null, null, null);
      LOG.info("sequences {} to {} are gone from the stream", expected, seq - 1);
      expected = seq;
      groupId = null; // a group begun before the gap cannot be completed
      parts.reset();
      held = m;
      return gap;
    }
    expected = seq + 1;
    if (part.number() == 1) {
      if (groupId != null) {
        LOG.info("group {} was left unfinished by its capture; dropped", groupId);
      }
      groupId = id;
      nextPart = 1;
      parts.reset();
    } else if (!id.equals(groupId) || part.number() != nextPart) {
      LOG.info(
          "part {} of group {} at sequence {} without its first parts; dropped", part, id, seq);
      return null;
    }
    parts.writeBytes(m.getData());
    nextPart++;
    if (!part.last()) {
      return null;
    }
    groupId = null;
    byte[] payload = parts.toByteArray();
    parts.reset();
    return new Group(
        seq,
        h.getFirst(StreamHeaders.KIND),
        id.substring(0, Math.max(0, id.lastIndexOf('-'))), // the run's id, then the group's number
        h.getFirst(StreamHeaders.CURSOR),
        payload);
  }

  @Override
  public void close() {
    try {
      subscription.unsubscribe();
    } catch (IllegalStateException e) {
      // the connection is closed already
    }
  }
}

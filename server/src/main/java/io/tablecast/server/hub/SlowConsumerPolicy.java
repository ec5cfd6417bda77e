package io.tablecast.server.hub;

import io.netty.buffer.ByteBuf;
import io.tablecast.protocol.Message;
import io.tablecast.server.config.SlowConsumerSettings;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.metrics.ServerMetrics;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to a session whose channel stays unwritable (its client reads slower than the
 * changes come): with coalescing on ({@code slow_consumer.coalesce_max_keys} &gt; 0) its changes
 * are folded per key into the latest image ({@link Coalescer}) instead of being queued, and sent as
 * one batch at the latest position once the channel is writable again. Past {@code
 * coalesce_max_keys} keys or {@code coalesce_max_bytes} approximate bytes, or when the coalesced
 * batch would encode to more than {@code coalesce_max_bytes}, the session is dropped with {@code
 * SLOW_CONSUMER}: it reconnects and resumes or takes a new snapshot. Without coalescing, {@link
 * Subscriber#send} drops it past {@code max_pending_bytes}. Hub thread only.
 */
final class SlowConsumerPolicy {

  private static final Logger LOG = LoggerFactory.getLogger(SlowConsumerPolicy.class);

  private final TableImages images;
  private final SlowConsumerSettings limits;
  private final ServerMetrics metrics;

  SlowConsumerPolicy(TableImages images, SlowConsumerSettings limits, ServerMetrics metrics) {
    this.images = images;
    this.limits = limits;
    this.metrics = metrics;
  }

  /**
   * Whether a batch for {@code s} is to be coalesced rather than sent: coalescing is on, no
   * catch-up is being written, and the channel is unwritable or earlier changes are pending.
   */
  boolean coalesces(Subscriber s) {
    return limits.coalesceMaxKeys() > 0
        && !s.catchingUp()
        && ((s.coalescer != null && !s.coalescer.isEmpty()) || !s.channel().isWritable());
  }

  /** Whether a heartbeat to {@code s} would only grow its queue (it reads nothing anyway). */
  boolean skipsHeartbeat(Subscriber s) {
    return limits.coalesceMaxKeys() > 0 && !s.channel().isWritable();
  }

  /** Folds a batch into the session's coalescer; drops the session past the limits. */
  void coalesce(Subscriber s, long pos, long captureMillis, List<Message.Change> changes) {
    List<Message.Change> mine = PolicyFilter.visible(images, changes, s.tables(), s.policy());
    if (mine.isEmpty()) {
      return;
    }
    if (s.coalescer == null) {
      s.coalescer = new Coalescer((table, row) -> JsonEdge.keyOf(row, images.primaryKeyOf(table)));
    }
    try {
      s.coalescer.add(pos, captureMillis, mine);
    } catch (RuntimeException e) {
      s.slowConsumer("its pending changes could not be coalesced (" + e.getMessage() + ")");
      return;
    }
    metrics.coalesced(mine.size());
    int keys = s.coalescer.keys();
    long bytes = s.coalescer.approxBytes();
    if (keys > limits.coalesceMaxKeys()) {
      s.slowConsumer(
          keys
              + " changed keys pending while it did not read (slow_consumer.coalesce_max_keys "
              + limits.coalesceMaxKeys()
              + ")");
    } else if (bytes > limits.coalesceMaxBytes()) {
      s.slowConsumer(
          "about "
              + bytes
              + " bytes of changed rows pending while it did not read "
              + "(slow_consumer.coalesce_max_bytes "
              + limits.coalesceMaxBytes()
              + ")");
    }
  }

  /**
   * Sends a session's coalesced changes as one batch at their latest position, unless the batch
   * would encode to more than {@code coalesce_max_bytes}: then the session is dropped instead, so
   * no frame over that size is ever sent.
   */
  void flush(Subscriber s) {
    Message.ChangeBatch batch = drain(s);
    if (batch == null) {
      return;
    }
    ByteBuf frame = s.encoding().encode(batch, s.channel().alloc());
    if (frame.readableBytes() > limits.coalesceMaxBytes()) {
      int size = frame.readableBytes();
      frame.release();
      s.slowConsumer(
          "its coalesced changes encode to "
              + size
              + " bytes (slow_consumer.coalesce_max_bytes "
              + limits.coalesceMaxBytes()
              + ")");
      return;
    }
    LOG.debug(
        "{}: {} coalesced changes sent at position {}",
        s,
        batch.changes().size(),
        batch.position());
    s.send(frame);
  }

  /**
   * Takes a session's coalesced changes as one batch at their latest position, or null when it has
   * none: a large batch for a coalescing session is written after them, at its own pace.
   */
  Message.ChangeBatch drain(Subscriber s) {
    Coalescer c = s.coalescer;
    if (c == null || c.isEmpty() || s.closed) {
      return null;
    }
    long pos = c.position();
    long captureMillis = c.captureMillis();
    List<Message.Change> net = c.drain();
    return new Message.ChangeBatch(pos, net.isEmpty() ? 0 : captureMillis, net);
  }
}

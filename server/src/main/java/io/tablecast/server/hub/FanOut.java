package io.tablecast.server.hub;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.tablecast.protocol.Message;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.log.RecentEvents;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Sends batches and heartbeats to the sessions. A batch is encoded once per distinct (table set,
 * encoding, access policy) and every session of that kind gets a retained duplicate of the same
 * bytes; sessions the {@link SlowConsumerPolicy} coalesces for get their changes folded instead.
 * Hub thread only.
 */
final class FanOut {

  private static final Logger LOG = RecentEvents.logger(FanOut.class);

  /**
   * What a kind of session gets of a batch that has nothing for it: a marker, compared by identity.
   */
  private static final Object NOTHING = new Object();

  private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  private final TableImages images;
  private final SlowConsumerPolicy slow;
  private final CatchUps catchUps;
  private final long heartbeatNanos;

  /** Nonce of the last ping sent to sessions that are catching up. */
  private long pingNonce;

  FanOut(TableImages images, SlowConsumerPolicy slow, CatchUps catchUps, long heartbeatNanos) {
    this.images = images;
    this.slow = slow;
    this.catchUps = catchUps;
    this.heartbeatNanos = heartbeatNanos;
  }

  /**
   * Cache key of an encoded batch: sessions with equal table sets, encodings and access policies
   * (row filter value, columns) share the bytes.
   */
  private record EncodedKey(Set<String> tables, Encoding encoding, SessionPolicy policy) {}

  /**
   * Sends one applied batch to every session that may see some of it. {@code fitsOneFrame} says the
   * whole batch is small enough for one frame (then so is every session's share of it); otherwise a
   * session whose share is too large gets it in {@link BatchParts}, at its own pace.
   */
  void batch(
      Collection<Subscriber> sessions,
      long pos,
      long captureMillis,
      List<Message.Change> changes,
      boolean fitsOneFrame) {
    Map<EncodedKey, Object> encoded = new HashMap<>();
    try {
      for (Subscriber s : sessions) {
        if (s.tables().isEmpty() || s.closed) {
          continue;
        }
        boolean coalesces = slow.coalesces(s);
        if (coalesces && fitsOneFrame) {
          slow.coalesce(s, pos, captureMillis, changes);
          continue;
        }
        Object frame =
            encoded.computeIfAbsent(
                new EncodedKey(s.tables(), s.encoding(), s.policy()),
                key -> {
                  List<Message.Change> mine =
                      PolicyFilter.visible(images, changes, key.tables(), key.policy());
                  if (mine.isEmpty()) {
                    return NOTHING;
                  }
                  return fitsOneFrame || BatchParts.fitOneFrame(mine)
                      ? key.encoding()
                          .encode(new Message.ChangeBatch(pos, captureMillis, mine), alloc)
                      : mine;
                });
        if (frame == NOTHING) {
          continue;
        }
        if (frame instanceof ByteBuf b) {
          if (coalesces) {
            slow.coalesce(s, pos, captureMillis, changes); // its share is small after all
          } else {
            s.send(b.retainedDuplicate());
          }
        } else {
          @SuppressWarnings("unchecked")
          List<Message.Change> mine = (List<Message.Change>) frame;
          catchUps.largeBatch(
              s, new BatchParts(coalesces ? slow.drain(s) : null, pos, captureMillis, mine));
        }
      }
    } finally {
      for (Object o : encoded.values()) {
        if (o instanceof ByteBuf b) {
          b.release();
        }
      }
    }
  }

  /**
   * A session sent nothing for the heartbeat interval gets an empty batch at the current position.
   * A session that is catching up (snapshot or resume replay queued or being written) must not get
   * a position before its catch-up ends, so it gets a {@code ping} instead (no position; written
   * straight to the channel, between whole catch-up frames): it keeps clients waiting for their
   * snapshot from taking the silence for a dead connection.
   */
  void heartbeats(Collection<Subscriber> sessions, long position) {
    long now = System.nanoTime();
    EnumMap<Encoding, ByteBuf> frames = new EnumMap<>(Encoding.class);
    EnumMap<Encoding, ByteBuf> pings = new EnumMap<>(Encoding.class);
    long nonce = 0;
    try {
      for (Subscriber s : sessions) {
        if (s.closed) {
          continue;
        }
        if (s.catchingUp()) {
          long streamed = s.catchUpWriteNanos;
          long last = streamed - s.lastWriteNanos > 0 ? streamed : s.lastWriteNanos;
          if (now - last < heartbeatNanos) {
            continue; // a streaming catch-up is liveness enough
          }
          if (nonce == 0) {
            nonce = ++pingNonce;
          }
          long n = nonce;
          s.sendPing(
              pings
                  .computeIfAbsent(s.encoding(), e -> e.encode(new Message.Ping(n), alloc))
                  .retainedDuplicate());
          continue;
        }
        if (s.coalescer != null && !s.coalescer.isEmpty()) {
          if (s.channel().isWritable()) {
            slow.flush(s); // in case the writability event raced with the last fold
          }
          continue; // a heartbeat's position would overtake the coalesced changes
        }
        if (now - s.lastWriteNanos < heartbeatNanos || slow.skipsHeartbeat(s)) {
          continue;
        }
        s.send(
            frames
                .computeIfAbsent(
                    s.encoding(),
                    e -> e.encode(new Message.ChangeBatch(position, 0, List.of()), alloc))
                .retainedDuplicate());
      }
    } catch (RuntimeException e) {
      LOG.error("heartbeat failed", e);
    } finally {
      frames.values().forEach(ByteBuf::release);
      pings.values().forEach(ByteBuf::release);
    }
  }
}

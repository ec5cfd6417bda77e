package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import java.util.List;

/**
 * One batch too large for one frame, cut for one session: {@code change_part}s of at most {@link
 * #PART_CHANGES} changes or about {@link #PART_BYTES}, then the {@code change_batch} of the same
 * position with the last changes, which tells the client to apply them all at once. Written by a
 * {@link CatchUpSender}, so the parts go out only as fast as the client reads them and are encoded
 * one by one off the hub thread: a session costs the server at most its write buffer however large
 * the transaction, and the slow-consumer limit counts only what waits behind the batch, never the
 * batch itself.
 *
 * <p>This is the one way a batch is split, on every path that carries batches (live fan-out and
 * resume replays; the NATS stream will cut its messages the same way). A single row larger than a
 * part still travels whole, in a part of its own.
 */
final class BatchParts implements CatchUpSender.Frames {

  /** Most changes in one part. */
  static final int PART_CHANGES = 2048;

  /** A part ends once its changes' approximate size reaches this. */
  static final long PART_BYTES = 512L << 10;

  private Message prefix;
  private final long position;
  private final long captureMillis;
  private final List<Message.Change> changes;
  private int next;
  private boolean ended;

  /**
   * @param prefix a message to write before the batch (a slow session's coalesced changes), or null
   * @param changes the changes the session may see, in batch order
   */
  BatchParts(Message prefix, long position, long captureMillis, List<Message.Change> changes) {
    this.prefix = prefix;
    this.position = position;
    this.captureMillis = captureMillis;
    this.changes = changes;
  }

  /** The position of the batch. */
  long position() {
    return position;
  }

  @Override
  public Message next() {
    if (prefix != null) {
      Message m = prefix;
      prefix = null;
      return m;
    }
    if (ended) {
      return null;
    }
    int from = next;
    long bytes = 0;
    while (next < changes.size() && next - from < PART_CHANGES && bytes < PART_BYTES) {
      bytes += approxBytes(changes.get(next++));
    }
    List<Message.Change> part = changes.subList(from, next);
    if (next < changes.size()) {
      return new Message.ChangePart(position, part);
    }
    ended = true;
    return new Message.ChangeBatch(position, captureMillis, part);
  }

  /**
   * Whether {@code changes} fit one frame: at most {@link #PART_CHANGES} changes of at most about
   * {@link #PART_BYTES}. Stops counting as soon as they do not.
   */
  static boolean fitOneFrame(List<Message.Change> changes) {
    if (changes.size() > PART_CHANGES) {
      return false;
    }
    long bytes = 0;
    for (Message.Change c : changes) {
      bytes += approxBytes(c);
      if (bytes > PART_BYTES) {
        return false;
      }
    }
    return true;
  }

  /** The approximate encoded size of one change (see {@link ResumeBuffer#approxBytes}). */
  static long approxBytes(Message.Change c) {
    return 48
        + c.table().length()
        + JsonEdge.approxBytes(c.key())
        + JsonEdge.approxBytes(c.before())
        + JsonEdge.approxBytes(c.after());
  }
}

package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.protocol.Message;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The most recent batches of this server run, so that a client that reconnects within the window
 * can resume instead of taking a new snapshot. Bounded by a batch count and an approximate byte
 * size; the oldest batches are evicted first. Hub thread only.
 */
final class ResumeBuffer {

  /**
   * A batch as applied, with every table's changes: as a list (a batch read again from a {@link
   * BatchHistory}, held while it is replayed), or packed (kept in this buffer, {@link
   * PackedChanges}).
   */
  static final class Retained {
    private final long position;
    private final long captureMillis;
    private final List<Message.Change> list;
    private final PackedChanges packed;
    private final long approxBytes;

    /**
     * @param approxBytes the changes' size as {@link BatchParts#approxBytes} estimates it
     */
    Retained(long position, long captureMillis, List<Message.Change> changes, long approxBytes) {
      this(position, captureMillis, changes, null, approxBytes);
    }

    private Retained(
        long position,
        long captureMillis,
        List<Message.Change> list,
        PackedChanges packed,
        long approxBytes) {
      this.position = position;
      this.captureMillis = captureMillis;
      this.list = list;
      this.packed = packed;
      this.approxBytes = approxBytes;
    }

    long position() {
      return position;
    }

    long captureMillis() {
      return captureMillis;
    }

    /** The changes; a packed batch's are made anew at each call. */
    List<Message.Change> changes() {
      return packed != null ? packed.changes() : list;
    }

    boolean isEmpty() {
      return packed != null ? packed.size() == 0 : list.isEmpty();
    }

    /** The bytes the batch holds on to (packed), or its changes' estimated size (a list). */
    long approxBytes() {
      return approxBytes;
    }
  }

  private final int maxBatches;
  private final long maxBytes;
  private final ArrayDeque<Retained> batches = new ArrayDeque<>();
  private long bytes;

  /** The batch packed last, whose table and layout arrays the next one shares when it can. */
  private PackedChanges last;

  /** Every batch with a position at or below this one has been evicted (or predates the run). */
  private long evictedThrough;

  ResumeBuffer(int maxBatches, long maxBytes, long startPosition) {
    this.maxBatches = maxBatches;
    this.maxBytes = maxBytes;
    this.evictedThrough = startPosition;
  }

  /**
   * Keeps a batch, packed, evicting the oldest past the bounds (counted in the bytes the packed
   * batches hold); returns the changes' approximate size as the wire's {@link
   * BatchParts#approxBytes} estimates it.
   */
  long append(long position, long captureMillis, List<Message.Change> changes) {
    long size = 64;
    for (Message.Change c : changes) {
      size += BatchParts.approxBytes(c);
    }
    PackedChanges packed = PackedChanges.of(changes, last);
    last = packed;
    Retained kept = new Retained(position, captureMillis, null, packed, packed.retainedBytes());
    batches.addLast(kept);
    bytes += kept.approxBytes();
    while (!batches.isEmpty() && (batches.size() > maxBatches || bytes > maxBytes)) {
      Retained old = batches.removeFirst();
      bytes -= old.approxBytes();
      evictedThrough = old.position();
    }
    return size;
  }

  /** True when every batch after {@code position} (up to {@code current}) is still retained. */
  boolean covers(long position, long current) {
    return position >= evictedThrough && position <= current;
  }

  /** The retained batches with a position greater than {@code position}, oldest first. */
  List<Retained> after(long position) {
    List<Retained> out = new ArrayList<>();
    Iterator<Retained> it = batches.descendingIterator();
    while (it.hasNext()) {
      Retained r = it.next();
      if (r.position() <= position) {
        break;
      }
      out.add(r);
    }
    java.util.Collections.reverse(out);
    return out;
  }

  int size() {
    return batches.size();
  }

  long approxBytes() {
    return bytes;
  }

  /** A cheap estimate of a row image's encoded size; no serialization. */
  static long approxBytes(JsonNode node) {
    if (node == null) {
      return 1;
    }
    if (node.isObject()) {
      long n = 4;
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        n += 2 + e.getKey().length() + approxBytes(e.getValue());
      }
      return n;
    }
    if (node.isArray()) {
      long n = 4;
      for (JsonNode child : node) {
        n += approxBytes(child);
      }
      return n;
    }
    if (node.isTextual()) {
      return 2L + node.textValue().length();
    }
    return 9;
  }
}

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

  /** A batch as applied, with every table's changes. */
  record Retained(
      long position, long captureMillis, List<Message.Change> changes, long approxBytes) {}

  private final int maxBatches;
  private final long maxBytes;
  private final ArrayDeque<Retained> batches = new ArrayDeque<>();
  private long bytes;

  /** Every batch with a position at or below this one has been evicted (or predates the run). */
  private long evictedThrough;

  ResumeBuffer(int maxBatches, long maxBytes, long startPosition) {
    this.maxBatches = maxBatches;
    this.maxBytes = maxBytes;
    this.evictedThrough = startPosition;
  }

  /** Keeps a batch, evicting the oldest past the bounds; returns its approximate size in bytes. */
  long append(long position, long captureMillis, List<Message.Change> changes) {
    long size = 64;
    for (Message.Change c : changes) {
      size += BatchParts.approxBytes(c);
    }
    batches.addLast(new Retained(position, captureMillis, changes, size));
    bytes += size;
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

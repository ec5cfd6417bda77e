package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * The pending changes of one session whose channel is unwritable, reduced per key to their net
 * effect ("latest image"): INSERT+UPDATE → INSERT, UPDATE+UPDATE → UPDATE, UPDATE+DELETE → DELETE,
 * INSERT+DELETE → nothing, DELETE+INSERT → UPDATE. An UPDATE that changes the key counts as a
 * DELETE of the old key and an INSERT of the new one. {@link #drain()} returns the net changes,
 * which the hub sends as ONE batch at {@link #position()}: applied atomically it takes the client
 * from its last position to that position, so transactions stay atomic.
 *
 * <p>Its memory is tracked as {@link #approxBytes()}, estimated like {@link ResumeBuffer} does (no
 * serialization), so the hub can bound it in bytes as well as in keys. Hub thread only.
 */
final class Coalescer {

  /** Net state of one key since coalescing started. */
  private static final class Entry {
    /** Whether the client has the row (the first change was an UPDATE or DELETE of it). */
    final boolean existedBefore;

    /**
     * The row the client has (from the first change's before image; may be null if not captured).
     */
    ObjectNode before;

    /** The latest row, or null when the row is gone now. */
    ObjectNode after;

    Entry(boolean existedBefore, ObjectNode before) {
      this.existedBefore = existedBefore;
      this.before = before;
    }

    /** Approximate memory of this entry, key included (see {@link ResumeBuffer#approxBytes}). */
    long approxBytes(String table, ArrayNode key) {
      return ENTRY_OVERHEAD
          + table.length()
          + JsonEdge.approxBytes(key)
          + JsonEdge.approxBytes(before)
          + JsonEdge.approxBytes(after);
    }
  }

  /** Bytes counted per entry on top of its images: map entries, the entry object, references. */
  static final long ENTRY_OVERHEAD = 48;

  /** table → key (normalized, equal keys are equal nodes) → entry, in first-change order. */
  private final Map<String, LinkedHashMap<ArrayNode, Entry>> tables = new LinkedHashMap<>();

  /** Computes a row's key in its table; throws for rows without their key columns. */
  private final BiFunction<String, ObjectNode, ArrayNode> keyOf;

  private int keys;
  private long bytes;
  private long position = -1;

  /** When (nanoTime) the first batch since the last drain was added; 0 while empty. */
  private long firstAddedNanos;

  private long captureMillis;

  Coalescer(BiFunction<String, ObjectNode, ArrayNode> keyOf) {
    this.keyOf = keyOf;
  }

  /** Whether nothing is pending (no batch was added since the last drain). */
  boolean isEmpty() {
    return position < 0;
  }

  /** Distinct keys pending, all tables. */
  int keys() {
    return keys;
  }

  /** Approximate memory of the pending changes (images and keys), all tables. */
  long approxBytes() {
    return bytes;
  }

  /**
   * How long the oldest change held here has waited (ms at {@code nowNanos}; 0 while empty): a
   * coalescing session's delivery lag, since nothing of it is written to the channel meanwhile.
   */
  long heldMillis(long nowNanos) {
    return isEmpty() ? 0 : TimeUnit.NANOSECONDS.toMillis(Math.max(0, nowNanos - firstAddedNanos));
  }

  /** Position of the newest batch added. */
  long position() {
    return position;
  }

  /** Capture time of the newest batch added. */
  long captureMillis() {
    return captureMillis;
  }

  /** Folds the changes of one batch (already filtered to the session's tables) into the state. */
  void add(long batchPosition, long batchCaptureMillis, List<Message.Change> changes) {
    if (isEmpty()) {
      firstAddedNanos = System.nanoTime();
    }
    for (Message.Change c : changes) {
      switch (c.op()) {
        case INSERT:
          written(c.table(), c.key(), c.after(), null, false);
          break;
        case UPDATE:
          {
            ArrayNode oldKey = c.before() == null ? c.key() : keyOf.apply(c.table(), c.before());
            if (!oldKey.equals(c.key())) {
              deleted(c.table(), oldKey, c.before());
              written(c.table(), c.key(), c.after(), null, false);
            } else {
              written(c.table(), c.key(), c.after(), c.before(), true);
            }
            break;
          }
        case DELETE:
          deleted(c.table(), c.key(), c.before());
          break;
        default:
          throw new IllegalArgumentException("unknown operation " + c.op());
      }
    }
    position = batchPosition;
    captureMillis = batchCaptureMillis;
  }

  /**
   * The entry of a key, new or existing; its bytes are no longer counted until {@link #counted}.
   */
  private Entry entry(String table, ArrayNode key, boolean existedBefore, ObjectNode before) {
    LinkedHashMap<ArrayNode, Entry> byKey =
        tables.computeIfAbsent(table, t -> new LinkedHashMap<>());
    Entry e = byKey.get(key);
    if (e == null) {
      e = new Entry(existedBefore, before);
      byKey.put(key, e);
      keys++;
    } else {
      bytes -= e.approxBytes(table, key);
    }
    return e;
  }

  private void counted(String table, ArrayNode key, Entry e) {
    bytes += e.approxBytes(table, key);
  }

  /** The row now is {@code after}; an UPDATE says the client had the row ({@code before}). */
  private void written(
      String table, ArrayNode key, ObjectNode after, ObjectNode before, boolean update) {
    Entry e = entry(table, key, update, before);
    e.after = after;
    counted(table, key, e);
  }

  private void deleted(String table, ArrayNode key, ObjectNode before) {
    Entry e = entry(table, key, true, before);
    if (!e.existedBefore) {
      tables.get(table).remove(key); // inserted and deleted while pending: the client never sees it
      keys--;
      return;
    }
    if (e.before == null) {
      e.before = before; // the first change (an UPDATE) did not capture it; the DELETE always does
    }
    e.after = null;
    counted(table, key, e);
  }

  /**
   * The net changes, table by table in the order keys first changed, and resets. Deletes of a table
   * come before its inserts and updates, so a client never sees two rows with one key.
   */
  List<Message.Change> drain() {
    List<Message.Change> out = new ArrayList<>(keys);
    for (Map.Entry<String, LinkedHashMap<ArrayNode, Entry>> t : tables.entrySet()) {
      String table = t.getKey();
      for (Map.Entry<ArrayNode, Entry> k : t.getValue().entrySet()) {
        Entry e = k.getValue();
        if (e.after == null && e.existedBefore) {
          out.add(new Message.Change(table, Op.DELETE, k.getKey(), e.before, null));
        }
      }
      for (Map.Entry<ArrayNode, Entry> k : t.getValue().entrySet()) {
        Entry e = k.getValue();
        if (e.after == null) {
          continue; // deleted (above), or inserted and deleted again: nothing
        }
        if (e.existedBefore) {
          out.add(new Message.Change(table, Op.UPDATE, k.getKey(), e.before, e.after));
        } else {
          out.add(new Message.Change(table, Op.INSERT, k.getKey(), null, e.after));
        }
      }
    }
    tables.clear();
    keys = 0;
    bytes = 0;
    position = -1;
    firstAddedNanos = 0;
    captureMillis = 0;
    return out;
  }
}

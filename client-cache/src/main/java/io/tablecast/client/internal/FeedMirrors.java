package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.internal.MirrorSink.RowChange;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The mirrors a {@link TableFeed} feeds from one subscribed table (one per row type), told
 * together. Confined to the connection's event loop.
 */
final class FeedMirrors {
  private final List<MirrorSink> mirrors = new ArrayList<>();

  void add(MirrorSink m) {
    mirrors.add(m);
  }

  boolean isEmpty() {
    return mirrors.isEmpty();
  }

  /** Every mirror, in the order they were added. */
  List<MirrorSink> all() {
    return mirrors;
  }

  /** The shape every mirror of the table has (its first mirror's); null for all rows. */
  Message.Shape shape() {
    return mirrors.isEmpty() ? null : mirrors.get(0).shape();
  }

  /** Whether some mirror holds the whole table (is not a near cache). */
  boolean anyHoldsWholeTable() {
    return mirrors.stream().anyMatch(MirrorSink::holdsWholeTable);
  }

  /** Whether some mirror is ready (has held the table). */
  boolean anyReady() {
    for (MirrorSink m : mirrors) {
      if (m.isReady()) {
        return true;
      }
    }
    return false;
  }

  /** The rows of the first mirror that can give them as images; null when none can. */
  Map<Object, ObjectNode> images() {
    Map<Object, ObjectNode> images = null;
    for (int i = 0; i < mirrors.size() && images == null; i++) {
      images = mirrors.get(i).images();
    }
    return images;
  }

  /**
   * Adds what to write for each mirror saved to a file, with the header {@code header} makes of its
   * row type's name.
   */
  void collectSaves(List<MirrorFile.ToWrite> out, Function<String, MirrorFile.Header> header) {
    for (MirrorSink m : mirrors) {
      if (m.file() == null) {
        continue;
      }
      MirrorFile.Rows rows = m.rowsToSave();
      if (rows != null) {
        out.add(new MirrorFile.ToWrite(m.file(), header.apply(m.rowTypeName()), rows));
      }
    }
  }

  /** Tells every mirror how many rows of the snapshot in flight came, of how many. */
  void snapshotProgress(long received, long expected) {
    for (MirrorSink m : mirrors) {
      m.snapshotProgress(received, expected);
    }
  }

  /** The stream was resumed after {@code position}: every mirror is there, caught up. */
  void resumed(long position) {
    for (MirrorSink m : mirrors) {
      m.advance(position);
      m.caughtUp();
    }
  }

  /**
   * Tells every mirror the table's columns; returns why the first that cannot follow them can't.
   */
  String setSchema(List<ColumnInfo> columns, List<String> pk) {
    String cannot = null;
    for (MirrorSink m : mirrors) {
      String why = m.setSchema(columns, pk);
      cannot = cannot != null ? cannot : why;
    }
    return cannot;
  }

  void stale(String reason) {
    for (MirrorSink m : mirrors) {
      m.stale(reason);
    }
  }

  void advance(long position) {
    for (MirrorSink m : mirrors) {
      m.advance(position);
    }
  }

  void apply(List<RowChange> keyed, long position, long captureMillis) {
    for (MirrorSink m : mirrors) {
      m.apply(keyed, position, captureMillis);
    }
  }

  void tooLarge(String message) {
    for (MirrorSink m : mirrors) {
      m.tooLarge(message);
    }
  }

  void fail(ErrorCode code, String message) {
    for (MirrorSink m : mirrors) {
      m.fail(code, message);
    }
  }
}

package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message.Change;
import io.tablecast.protocol.Message.SnapshotBegin;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshots of one table as its {@link TableFeed} receives them, at most one in flight ({@link
 * IncomingSnapshot}): begun, fed rows (the feed's mirrors told how far it came), and either taken
 * at its end to be installed, refused whole when it does not fit in the heap, or cut short by the
 * connection's end, counted in a row so that the log says what decides it when it keeps happening.
 * What the table's stream state and mirrors make of each outcome is the feed's. Confined to the
 * connection's event loop.
 */
final class FeedSnapshots {

  /** Logs under {@link TableFeed}, as before this was split out of it. */
  private static final Logger log = LoggerFactory.getLogger(TableFeed.class);

  private final String table;

  /** How snapshots are sized against the heap. */
  private final SnapshotSizing.Settings sizingSettings;

  /** The feed's mirrors: a snapshot is made for those it has when it begins. */
  private final FeedMirrors mirrors;

  /** A snapshot in flight, its rows swapped into the mirrors at its end; null otherwise. */
  private IncomingSnapshot snapshot;

  /** The snapshot in flight was refused (too big for the heap): its rows and end are dropped. */
  private boolean refused;

  /** Snapshots cut short by the connection's end since the table was last in sync. */
  private int cutShortInARow;

  FeedSnapshots(String table, SnapshotSizing.Settings sizingSettings, FeedMirrors mirrors) {
    this.table = table;
    this.sizingSettings = sizingSettings;
    this.mirrors = mirrors;
  }

  /** Whether a snapshot is in flight (begun, neither ended, refused nor let go). */
  boolean inFlight() {
    return snapshot != null;
  }

  /** The snapshot {@code b} begins, for the mirrors the table has now; it replaces any other. */
  void begin(SnapshotBegin b) {
    snapshot = new IncomingSnapshot(table, b, sizingSettings, mirrors.all());
    refused = false;
    snapshot.tellProgress(mirrors);
  }

  /**
   * Adds rows of the snapshot in flight, keyed by {@code primaryKey}. Returns why the snapshot does
   * not fit in the heap when these rows refuse it: it is dropped whole then (its rows are let go at
   * once), the rest of its rows and its end ignored; else null.
   */
  String add(List<ObjectNode> rows, List<String> primaryKey) {
    if (refused) {
      return null;
    }
    if (snapshot == null) {
      log.warn("snapshot rows for {} without a snapshot begin; ignored", table);
      return null;
    }
    String tooLarge = snapshot.add(rows, primaryKey);
    if (tooLarge != null) {
      log.error("{}", tooLarge);
      snapshot = null;
      refused = true;
      return tooLarge;
    }
    snapshot.tellProgress(mirrors);
    return null;
  }

  /**
   * The snapshot's end came: returns the snapshot to install, no longer in flight; null when there
   * is none (it was refused, or never began: logged).
   */
  IncomingSnapshot end() {
    if (refused) {
      refused = false;
      return null;
    }
    IncomingSnapshot done = snapshot;
    if (done == null) {
      log.warn("snapshot end for {} without a snapshot begin; ignored", table);
      return null;
    }
    snapshot = null;
    return done;
  }

  /**
   * The table is in sync again (a snapshot installed, or the stream resumed): no snapshot is in
   * flight, and none was cut short since.
   */
  void settled() {
    snapshot = null;
    cutShortInARow = 0;
  }

  /** The server refused the table's subscription: a snapshot in flight is let go. */
  void discard() {
    snapshot = null;
  }

  /**
   * Applies a batch's changes of the table, keyed by {@code primaryKey}, to the snapshot in flight
   * (there must be one) when the batch is newer than it.
   */
  void apply(List<Change> changes, long batchPosition, List<String> primaryKey) {
    snapshot.apply(changes, batchPosition, primaryKey);
  }

  /** The table took the primary key {@code pk}: a snapshot in flight is keyed anew. */
  void rekey(List<String> pk) {
    if (snapshot != null) {
      snapshot.rekey(pk);
    }
  }

  /** Tells {@code m}, a mirror just added, how far a snapshot in flight came. */
  void tellProgress(MirrorSink m) {
    if (snapshot != null) {
      snapshot.tellProgress(m);
    }
  }

  /**
   * The connection dropped: a snapshot in flight is discarded and, unless the client is {@code
   * closing}, logged as cut short (the table is subscribed fresh on reconnect). Returns whether one
   * was cut short.
   */
  boolean connectionEnded(boolean closing) {
    boolean cut = snapshot != null && !refused && !closing;
    if (cut) {
      log.warn("{}", snapshot.cutShort(++cutShortInARow));
    }
    snapshot = null;
    refused = false;
    return cut;
  }
}

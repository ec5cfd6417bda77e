package io.tablecast.client.internal;

import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream side of one client: a {@link TableFeed} per mirrored table and the position of the
 * last change applied. Applies snapshots, resumes and change batches to the mirrors and decides, on
 * each welcome, which tables resume and which start fresh. Knows nothing of sockets: {@link
 * ServerSession} speaks to the server and hands it the stream's messages. Confined to the
 * connection's event loop.
 */
final class MirrorStream {
  private static final Logger log = LoggerFactory.getLogger(MirrorStream.class);

  /** The tables to subscribe on a new connection: those to resume and those to start fresh. */
  record Subscriptions(List<String> resume, List<String> fresh) {}

  private final Map<String, TableFeed> feeds = new LinkedHashMap<>();
  private final SessionEvents events;
  private String sessionEpoch;
  private String lastEpoch;
  private long lastPosition = -1;

  /**
   * The changes of a batch that arrives in parts, kept aside until its final {@code change_batch}
   * so that no reader sees part of it; {@link #partPosition} is its position, -1 when none.
   */
  private List<Message.Change> parts = new ArrayList<>();

  private long partPosition = -1;

  private final SnapshotSizing.Settings sizing;

  /** Tables whose mirrors need a fresh snapshot to go on, with why; taken by the session. */
  private final Map<String, String> freshNeeded = new LinkedHashMap<>();

  MirrorStream(SessionEvents events, SnapshotSizing.Settings sizing) {
    this.sizing = sizing;
    this.events = events;
  }

  /** Adds a mirror to its table's feed (seeded from a sibling when the table is in sync). */
  void attach(MirrorSink m) {
    TableFeed f = feeds.computeIfAbsent(m.table(), t -> new TableFeed(t, sizing, freshNeeded::put));
    if (f.addMirror(m) && lastEpoch == null) {
      // restored from a file before any connection: the stream resumes from the file's position
      lastEpoch = f.epoch();
      lastPosition = f.position();
    }
  }

  /** What every saved mirror holds now, to be written by another thread. */
  List<MirrorFile.ToWrite> toSave() {
    List<MirrorFile.ToWrite> out = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (TableFeed f : feeds.values()) {
      f.collectSaves(out, now);
    }
    return out;
  }

  /** The tables whose mirrors need a fresh snapshot to go on, with why, since the last call. */
  Map<String, String> takeFreshNeeded() {
    if (freshNeeded.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>(freshNeeded);
    freshNeeded.clear();
    return out;
  }

  /**
   * For a subscribe of {@code tables} about to be sent: those whose mirrors are all near caches, to
   * be subscribed without rows.
   */
  List<String> withoutRows(List<String> tables) {
    List<String> out = new ArrayList<>();
    for (String t : tables) {
      TableFeed f = feeds.get(t);
      if (f != null && f.subscribeWithoutRows()) {
        out.add(t);
      }
    }
    return out;
  }

  /** The shapes of those of {@code tables} whose mirrors hold a shape, by table. */
  Map<String, Message.Shape> shapes(List<String> tables) {
    Map<String, Message.Shape> out = new LinkedHashMap<>();
    for (String t : tables) {
      TableFeed f = feeds.get(t);
      if (f != null && f.shape() != null) {
        out.put(t, f.shape());
      }
    }
    return out;
  }

  /** The position the mirrors of {@code table} are at; -1 when none. */
  long position(String table) {
    TableFeed f = feeds.get(table);
    return f == null ? -1 : f.position();
  }

  String lastEpoch() {
    return lastEpoch;
  }

  long lastPosition() {
    return lastPosition;
  }

  /**
   * Whether {@code table}, about to be subscribed alone on a session welcomed before its mirrors
   * were attached, is exactly at the last epoch and position, so that it may resume; it leaves the
   * stream until answered either way.
   */
  boolean resumes(String table) {
    TableFeed f = feeds.get(table);
    boolean resumes = lastEpoch != null && f.resumableFrom(lastEpoch, lastPosition);
    f.subscribing();
    return resumes;
  }

  /**
   * A new session with server epoch {@code epoch} began: every table with mirrors is to be
   * subscribed again, resuming only those known to be exactly at the last epoch and position.
   */
  Subscriptions welcomed(String epoch) {
    sessionEpoch = epoch;
    List<String> resume = new ArrayList<>();
    List<String> fresh = new ArrayList<>();
    for (TableFeed f : feeds.values()) {
      if (!f.hasMirrors()) {
        continue;
      }
      // resume only tables known to be exactly at (lastEpoch, lastPosition); a table whose
      // snapshot was requested but had not ended (e.g. after an epoch change) is stale
      (lastEpoch != null && f.resumableFrom(lastEpoch, lastPosition) ? resume : fresh).add(f.table);
      f.subscribing();
    }
    return new Subscriptions(resume, fresh);
  }

  /**
   * The connection dropped ({@code closing}: the client closed it): snapshots in flight and parts
   * of a batch are discarded, synced rows stay.
   */
  void disconnected(boolean closing) {
    parts = new ArrayList<>();
    partPosition = -1;
    for (TableFeed f : feeds.values()) {
      if (f.disconnected(closing)) {
        events.snapshotCutShort(f.table);
      }
    }
  }

  /**
   * A connection-level refusal: mirrors still waiting for data fail with it, ready ones are stale
   * with it (see {@link TableFeed#connectionRefused}).
   */
  void connectionRefused(ErrorCode code, String message) {
    for (TableFeed f : feeds.values()) {
      f.connectionRefused(code, message);
    }
  }

  /** The server refused the subscription to {@code table}. */
  void fail(String table, ErrorCode code, String message) {
    TableFeed f = feeds.get(table);
    if (f != null) {
      f.fail(code, message);
    }
  }

  void snapshotBegin(Message.SnapshotBegin b) {
    TableFeed f = feeds.get(b.table());
    if (f != null) {
      log.info(
          "{} of {} started: {} rows at position {}",
          f.synced() ? "resnapshot" : "snapshot",
          b.table(),
          b.rowCount(),
          b.position());
      f.beginSnapshot(b);
    }
  }

  void snapshotRows(Message.SnapshotRows r) {
    TableFeed f = feeds.get(r.table());
    if (f != null) {
      f.snapshotRows(r.rows());
    }
  }

  void snapshotEnd(Message.SnapshotEnd e) {
    TableFeed f = feeds.get(e.table());
    if (f == null) {
      return;
    }
    boolean resnapshot = f.wasEverReady(); // before the snapshot makes its mirrors ready
    MirrorSink.SnapshotDiff diff = f.endSnapshot(sessionEpoch, e.position(), resnapshot);
    if (diff != null) {
      recordPosition(e.position());
      if (resnapshot) {
        events.resnapshotted(e.table(), diff.inserted(), diff.updated(), diff.deleted());
      }
    }
  }

  void resumed(Message.Resumed r) {
    Map<String, Message.TableSchemaInfo> schemas = new LinkedHashMap<>();
    for (Message.TableSchemaInfo s : r.schemas()) {
      schemas.put(s.table(), s);
    }
    for (String t : r.tables()) {
      TableFeed f = feeds.get(t);
      if (f != null) {
        Message.TableSchemaInfo s = schemas.get(t);
        f.resumed(
            sessionEpoch,
            s == null ? null : s.columns(),
            s == null ? null : s.primaryKey(),
            r.position());
      }
    }
    recordPosition(r.position());
    log.info("resumed {} at position {} (no snapshot needed)", r.tables(), r.position());
    events.resumed(r.tables(), r.position());
  }

  /** A table's column list changed while serving. */
  void schemaChanged(Message.SchemaChanged s) {
    TableFeed f = feeds.get(s.table());
    if (f != null) {
      f.schemaChanged(s.columns(), s.primaryKey(), s.version());
    }
  }

  /** The server said whether a table is stale. */
  void tableStatus(Message.TableStatus s) {
    TableFeed f = feeds.get(s.table());
    if (f != null) {
      f.status(s.stale(), s.reason());
    }
  }

  /** Keeps a part of a large batch aside until the batch's final {@code change_batch}. */
  void part(Message.ChangePart p) {
    if (partPosition != -1 && p.position() != partPosition) {
      throw new IllegalStateException(
          "protocol violation: a part of the batch at position "
              + p.position()
              + " arrived before the batch at position "
              + partPosition
              + " ended");
    }
    partPosition = p.position();
    parts.addAll(p.changes());
  }

  void batch(Message.ChangeBatch b) {
    List<Message.Change> all = b.changes();
    if (partPosition != -1) {
      if (b.position() != partPosition) {
        throw new IllegalStateException(
            "protocol violation: the batch at position "
                + partPosition
                + " arrived in parts and did not end before the batch at position "
                + b.position());
      }
      parts.addAll(b.changes());
      all = parts;
      parts = new ArrayList<>();
      partPosition = -1;
      log.debug("batch {} arrived in parts: {} changes", b.position(), all.size());
    }
    Map<String, List<Message.Change>> byTable = new LinkedHashMap<>();
    for (Message.Change c : all) {
      byTable.computeIfAbsent(c.table(), t -> new ArrayList<>()).add(c);
    }
    for (TableFeed f : feeds.values()) {
      List<Message.Change> changes = byTable.remove(f.table);
      if (changes != null) {
        f.apply(changes, b.position(), b.captureMillis());
      } else {
        f.advance(b.position());
      }
    }
    if (!byTable.isEmpty()) {
      log.debug("batch {} has changes for unsubscribed tables {}", b.position(), byTable.keySet());
    }
    // a batch (e.g. a heartbeat before the first answer) says nothing about tables that do not
    // follow this session's stream yet; recording it would let them resume from a later position
    if (feeds.values().stream().anyMatch(TableFeed::inStream)) {
      recordPosition(b.position());
    }
    if (log.isDebugEnabled()) {
      log.debug("applied batch {} with {} changes", b.position(), all.size());
    }
  }

  private void recordPosition(long position) {
    if (sessionEpoch != null && sessionEpoch.equals(lastEpoch)) {
      lastPosition = Math.max(lastPosition, position);
    } else {
      lastEpoch = sessionEpoch;
      lastPosition = position;
    }
  }
}

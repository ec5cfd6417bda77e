package io.tablecast.server.hub;

import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.metrics.ServerMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handles the subscribes of the sessions: checks each name (access, cached, not yet subscribed),
 * enforces {@code max_subscriptions_per_connection}, and starts the catch-up that precedes the live
 * stream — a resume replay or a snapshot (see {@link CatchUps}) — and once it and the batches held
 * back meanwhile are written, handles the subscribes that waited for it. Hub thread only.
 */
final class Subscriptions {

  private static final Logger LOG = LoggerFactory.getLogger(Subscriptions.class);

  private final String epoch;
  private final TableImages images;
  private final ResumeBuffer resume;
  private final LongSupplier position;
  private final int maxSubscriptions;
  private final SlowConsumerPolicy slow;
  private final ServerMetrics metrics;
  private final CatchUps catchUps;
  private final StaleTables stale;

  /** Where batches older than the resume buffer are read again; null for a single server. */
  private final BatchHistory history;

  private final TableReadPositions readPositions;
  private final SubqueryMemberships memberships;

  Subscriptions(
      String epoch,
      TableImages images,
      ResumeBuffer resume,
      LongSupplier position,
      int maxSubscriptions,
      SlowConsumerPolicy slow,
      ServerMetrics metrics,
      CatchUps catchUps,
      StaleTables stale,
      BatchHistory history,
      TableReadPositions readPositions,
      SubqueryMemberships memberships) {
    this.memberships = memberships;
    this.stale = stale;
    this.history = history;
    this.readPositions = readPositions;
    this.epoch = epoch;
    this.images = images;
    this.resume = resume;
    this.position = position;
    this.maxSubscriptions = maxSubscriptions;
    this.slow = slow;
    this.metrics = metrics;
    this.catchUps = catchUps;
    catchUps.onIdle(this::next);
  }

  /** A session's catch-ups are all written: handle the next subscribe that waited for them. */
  private void next(Subscriber s) {
    Message.Subscribe next = s.queuedSubscribes.poll();
    if (next != null) {
      s.queuedNames -= next.tables().size();
      subscribe(s, next);
    }
  }

  void subscribe(Subscriber s, Message.Subscribe sub) {
    if (s.closed) {
      return;
    }
    int max = maxSubscriptions;
    if (sub.tables().size() > max) {
      refuse(
          s,
          "a subscribe may name at most max_subscriptions_per_connection ("
              + max
              + ") tables, this one names "
              + sub.tables().size());
      return;
    }
    if (s.catchingUp()) {
      if (s.queuedNames + sub.tables().size() > max) {
        refuse(
            s,
            "subscribes naming "
                + (s.queuedNames + sub.tables().size())
                + " tables are waiting for the "
                + "current snapshot; at most max_subscriptions_per_connection ("
                + max
                + ") may wait");
        return;
      }
      s.queuedSubscribes.add(sub);
      s.queuedNames += sub.tables().size();
      return;
    }
    List<TableImage> known = new ArrayList<>();
    for (String name : new LinkedHashSet<>(sub.tables())) {
      TableImage image = images.get(name);
      Message.Error unreadable = image == null ? null : RowFilterColumns.refusal(s, image);
      if (!s.policy().allowsTable(name)) {
        // checked first: a denied name does not tell whether the table is cached
        s.sendMessage(
            new Message.Error(
                ErrorCode.ACCESS_DENIED,
                "access to table '" + name + "' is denied to principal '" + s.principal() + "'",
                name));
      } else if (image == null) {
        s.sendMessage(
            new Message.Error(
                ErrorCode.UNKNOWN_TABLE,
                "table '"
                    + name
                    + "' is not cached by this "
                    + "server; tables you may subscribe to: "
                    + images.readableNames(s.policy()::allowsTable),
                name));
      } else if (s.tables().contains(name)) {
        s.sendMessage(
            new Message.Error(
                ErrorCode.PROTOCOL_VIOLATION,
                "table '"
                    + name
                    + "' is already subscribed "
                    + "on this connection; a table is subscribed once per connection (its changes keep coming; "
                    + "reconnect for a new snapshot)",
                name));
      } else if (unreadable != null) {
        s.sendMessage(unreadable);
      } else if (takesShape(s, sub, image, images, memberships)) {
        known.add(image);
      }
    }
    List<String> names = new ArrayList<>();
    known.forEach(i -> names.add(i.name()));
    if (s.tables().size() + names.size() > max) {
      refuse(
          s,
          "this subscribe would bring the connection to "
              + (s.tables().size() + names.size())
              + " tables; max_subscriptions_per_connection is "
              + max);
      return;
    }
    long at = position.getAsLong();
    // a subquery's rows are known now, not at a past position: such a shape takes a snapshot
    boolean replayable = names.stream().noneMatch(t -> s.policy().readsOtherTables(t));
    if (replayable
        && sub.resumeEpoch() != null
        && sub.resumeEpoch().equals(epoch)
        && s.tables().isEmpty()
        && resume.covers(sub.resumePosition(), at)
        && (s.encoding() != Encoding.BINARY || layoutsKept(known, sub.resumePosition()))) {
      List<Message.TableSchemaInfo> schemas = schemas(s, known);
      s.addTables(names);
      metrics.resumed();
      catchUps.start(
          s,
          new ResumeReplay(
              s,
              new Message.Resumed(names, schemas, sub.resumePosition()),
              resume.after(sub.resumePosition()),
              images.primaryKeys(names)));
      tellStale(s, names);
      return;
    }
    if (replayable
        && history != null
        && sub.resumeEpoch() != null
        && sub.resumeEpoch().equals(epoch)
        && s.tables().isEmpty()
        && !known.isEmpty()
        && sub.resumePosition() > 0
        && sub.resumePosition() < at) {
      slow.flush(s);
      s.addTables(names);
      catchUps.start(s, streamResume(s, known, names, sub, sub.resumePosition(), at));
      tellStale(s, names);
      return;
    }
    if (sub.resumeEpoch() != null) {
      LOG.info(
          "{} cannot resume from epoch {} position {} (this run: epoch {}, position {}{}); sending a"
              + " snapshot",
          s,
          sub.resumeEpoch(),
          sub.resumePosition(),
          epoch,
          at,
          replayable ? "" : "; its shape's subquery reads another table, whose past is not kept");
    }
    if (known.isEmpty()) {
      return;
    }
    slow.flush(s); // its pending changes (positions <= at) go before the snapshot
    List<SnapshotFrames.TableRows> copies = new ArrayList<>();
    for (TableImage image : known) {
      copies.add(copy(image, sub, s.policy()));
    }
    s.addTables(names);
    catchUps.start(s, new SnapshotFrames(s, copies, at, metrics));
    tellStale(s, names);
  }

  /**
   * A resume from a position the resume buffer no longer holds, read from the {@link BatchHistory}
   * up to {@code at}; the snapshot at {@code at} is taken now, in case the history cannot replay.
   */
  private StreamResume streamResume(
      Subscriber s,
      List<TableImage> known,
      List<String> names,
      Message.Subscribe sub,
      long from,
      long at) {
    List<SnapshotFrames.TableRows> copies = new ArrayList<>();
    Map<String, HistoryChanges.Layout> layouts = new HashMap<>();
    for (TableImage image : known) {
      copies.add(copy(image, sub, s.policy()));
      layouts.put(image.name(), new HistoryChanges.Layout(image.schema(), image.form()));
    }
    return new StreamResume(
        s,
        new Message.Resumed(names, schemas(s, known), from),
        at,
        history,
        new HistoryChanges(layouts, s.policy(), readPositions.after(from)),
        images.primaryKeys(names),
        new SnapshotFrames(s, copies, at, metrics),
        metrics);
  }

  /**
   * Takes the shape the subscribe asks of {@code image}'s table, if any, into the session's policy;
   * false, after telling the client why, when the shape cannot be used (the table is then not
   * subscribed, as for an unknown one).
   */
  private static boolean takesShape(
      Subscriber s,
      Message.Subscribe sub,
      TableImage image,
      TableImages images,
      SubqueryMemberships memberships) {
    Message.Shape asked = sub.shape(image.name());
    if (asked == null) {
      return true;
    }
    try {
      s.shape(
          image.name(), asked, ShapeRequests.parse(asked, image, images, memberships, s.policy()));
      return true;
    } catch (IllegalArgumentException e) {
      s.sendMessage(
          new Message.Error(
              ErrorCode.PROTOCOL_VIOLATION,
              "the shape asked of table '" + image.name() + "' cannot be used: " + e.getMessage(),
              image.name()));
      return false;
    }
  }

  /**
   * What a snapshot of {@code image} sends: its rows, or none for a table the subscribe asks
   * without rows (a near cache, which fetches the rows it wants).
   */
  private static SnapshotFrames.TableRows copy(
      TableImage image, Message.Subscribe sub, SessionPolicy policy) {
    if (sub.withoutRows(image.name())) {
      return new SnapshotFrames.TableRows(image.schema(), image.form(), List.of(), false);
    }
    if (!policy.readsOtherTables(image.name())) {
      return new SnapshotFrames.TableRows(image.schema(), image.form(), image.copyRows(), false);
    }
    // the other table's rows as they are now, at the snapshot's position: filtered here, on the
    // hub thread, not later by the thread that writes the snapshot
    List<byte[]> rows = new ArrayList<>();
    for (byte[] row : image.copyRows()) {
      if (policy.shapeMatches(image.name(), PackedRow.of(image.form(), row))) {
        rows.add(row);
      }
    }
    return new SnapshotFrames.TableRows(image.schema(), image.form(), rows, true);
  }

  /** The tables' columns as the session may see them. */
  private static List<Message.TableSchemaInfo> schemas(Subscriber s, List<TableImage> known) {
    List<Message.TableSchemaInfo> schemas = new ArrayList<>();
    known.forEach(
        i ->
            schemas.add(
                new Message.TableSchemaInfo(
                    i.name(),
                    s.policy().project(i.name(), i.schema().columns(), i.schema().primaryKey()),
                    i.schema().primaryKey())));
    return schemas;
  }

  /**
   * Whether every retained change of {@code tables} after {@code position} is in its table's layout
   * now: a version-3 session reads the replayed rows' bytes with the layout {@code resumed}
   * announces, so a resume across an {@code ALTER TABLE} of one of them takes a snapshot instead.
   */
  private boolean layoutsKept(List<TableImage> tables, long position) {
    Map<String, RowForm> forms = new HashMap<>();
    tables.forEach(i -> forms.put(i.name(), i.form()));
    for (ResumeBuffer.Retained r : resume.after(position)) {
      for (Message.Change c : r.changes()) {
        RowForm now = forms.get(c.table());
        if (now != null && (otherLayout(c.before(), now) || otherLayout(c.after(), now))) {
          LOG.info(
              "cannot resume {} from position {}: its columns changed since; sending a snapshot",
              c.table(),
              position);
          return false;
        }
      }
    }
    return true;
  }

  private static boolean otherLayout(
      com.fasterxml.jackson.databind.node.ObjectNode row, RowForm now) {
    return row instanceof io.tablecast.protocol.row.PackedRow p && p.form() != now;
  }

  /**
   * After the catch-up (the message is the first held behind it): which of the new tables are stale
   * now. A client takes a table it hears nothing of before the next batch as followed.
   */
  private void tellStale(Subscriber s, List<String> names) {
    for (String name : names) {
      if (stale.isStale(name)) {
        s.sendMessage(stale.status(name));
      }
    }
  }

  /** Closes a session that exceeded {@code max_subscriptions_per_connection}. */
  private void refuse(Subscriber s, String why) {
    metrics.limitRefused("max_subscriptions_per_connection");
    LOG.info("closing {}: {}", s, why);
    s.fatal(ErrorCode.LIMIT_EXCEEDED, why);
  }
}

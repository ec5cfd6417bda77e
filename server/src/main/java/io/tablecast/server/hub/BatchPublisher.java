package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.image.TableReads;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Applies the tail's committed batches for the {@link ChangeHub}: updates the images, gives each
 * batch the next position, keeps it in the resume buffer and sends it to the sessions ({@link
 * FanOut}); publishes the differences found by a table's re-read, tells the sessions of a table
 * that took a new column list, and announces the tables that became stale or are followed again.
 * Owns the position. Hub thread, except {@link #position()}.
 */
final class BatchPublisher {

  /** Logs under {@link ChangeHub}, as before this was split out of it. */
  private static final Logger LOG = RecentEvents.logger(ChangeHub.class);

  private final TableImages images;
  private final TableReads tableReads;
  private final ImageErrors imageErrors;
  private final ImageUpdates imageUpdates;
  private final StaleTables stale;
  private final HubViews views;
  private final ResumeBuffer resume;
  private final FanOut fanOut;
  private final Set<Subscriber> sessions;
  private final SubqueryMemberships memberships;
  private final TableReadPositions readPositions;
  private final SlowConsumerPolicy slow;
  private final ServerMetrics metrics;
  private volatile long position;

  /**
   * The position the next applied batch takes when it is above {@code position + 1}: the stream
   * sequence of the batch being published ({@link #publishAt}). Hub thread.
   */
  private long nextPositionFloor;

  /**
   * @param sessions the hub's sessions, read on the hub thread at each batch
   */
  BatchPublisher(
      TableImages images,
      StaleTables stale,
      HubViews views,
      ResumeBuffer resume,
      FanOut fanOut,
      Set<Subscriber> sessions,
      SubqueryMemberships memberships,
      TableReadPositions readPositions,
      SlowConsumerPolicy slow,
      ServerMetrics metrics) {
    this.images = images;
    this.tableReads = new TableReads(images, metrics, this::schemaChanged);
    this.imageErrors = new ImageErrors(images, metrics);
    this.imageUpdates = new ImageUpdates(images, tableReads, imageErrors);
    this.stale = stale;
    this.views = views;
    this.resume = resume;
    this.fanOut = fanOut;
    this.sessions = sessions;
    this.memberships = memberships;
    this.readPositions = readPositions;
    this.slow = slow;
    this.metrics = metrics;
  }

  /** The images were replaced (a new snapshot): every reconciliation pass under way starts over. */
  void imagesReplaced(java.util.Map<String, Long> duplicateRows) {
    tableReads.imagesReplaced(duplicateRows);
  }

  /** The position of the last applied batch (0 before any). Any thread. */
  long position() {
    return position;
  }

  /**
   * Applies a batch to the images, assigns it the next position, keeps it for resumes and sends it
   * to the subscribed sessions. An event an image cannot take makes its table stale until it is
   * re-read (see {@link ImageErrors}).
   *
   * @return the tables to re-read because their image could not take an event
   */
  Set<String> publish(CommittedBatch batch) {
    if (!batch.events().isEmpty()) {
      apply(batch);
    }
    batch.tableReads().forEach(this::reconcile);
    imageErrors.announce(
        stale, sessions); // after the changes: stale, or followed again after the re-read
    batch.staleness().forEach(st -> stale.apply(st, sessions));
    return imageErrors.takeRereads();
  }

  /**
   * As {@link #publish}, the batch taking position {@code position} (a stream sequence, above every
   * position so far): a batch that applies changes once takes exactly it, the same on every server
   * reading the stream.
   */
  Set<String> publishAt(long position, CommittedBatch batch) {
    nextPositionFloor = position;
    readPositions.started(position);
    return publish(batch);
  }

  /**
   * A table took a new column list: its sessions hear it ({@code schema_changed}, projected by each
   * one's access policy) before the batch that brings its rows into the new layout; a shape of
   * another table whose subquery reads it is checked against its new columns.
   */
  void schemaChanged(TableImage image) {
    for (Subscriber s : sessions) {
      ShapeRequests.subqueriesStillApply(s, image); // before the rows move in the new layout
      if (s.tables().contains(image.name())) {
        // coalesced changes are in the old layout: they go first (a version-3 session reads rows
        // with the layout announced last)
        slow.flush(s);
        Message.Error unreadable = RowFilterColumns.refusal(s, image);
        if (unreadable != null) {
          LOG.warn("session {} of {}: {}", s.clientName(), image.name(), unreadable.message());
          s.sendMessage(unreadable);
          s.unsubscribe(image.name());
          continue;
        }
        if (!ShapeRequests.stillApplies(s, image, images, memberships)) {
          continue; // told why, and no longer subscribed to the table
        }
        s.sendMessage(
            new Message.SchemaChanged(
                image.name(),
                image.version(),
                s.policy()
                    .project(image.name(), image.schema().columns(), image.schema().primaryKey()),
                image.schema().primaryKey()));
      }
    }
  }

  /** Publishes the differences between a table's image and what the source read of it. */
  private void reconcile(CommittedBatch.TableRead r) {
    boolean wasInvalid = images.isInvalid(r.schema().id().qualified());
    List<RowEvent> differences = tableReads.differences(r);
    if (!differences.isEmpty()) {
      apply(new CommittedBatch(differences, 0));
      readPositions.applied(position); // a replay from the stream cannot compute them
    }
    if (r.chunk() == null) {
      imageErrors.reread(r.schema().id().qualified(), wasInvalid);
    }
  }

  private void apply(CommittedBatch batch) {
    List<Message.Change> changes = imageUpdates.apply(batch.events());
    memberships.applied(changes); // before the fan-out: subqueries see the batch's rows
    long pos = Math.max(position + 1, nextPositionFloor);
    position = pos;
    views.applied(batch.events(), pos, batch.captureMillis());
    long bytes = resume.append(pos, batch.captureMillis(), changes);
    LOG.debug("batch {}: {} changes", pos, changes.size());
    boolean fitsOneFrame =
        changes.size() <= BatchParts.PART_CHANGES && bytes <= BatchParts.PART_BYTES;
    if (!fitsOneFrame) {
      LOG.info(
          "batch {}: {} changes (about {} MiB), sent in parts to each session at its own pace",
          pos,
          changes.size(),
          bytes >> 20);
    }
    fanOut.batch(sessions, pos, batch.captureMillis(), changes, fitsOneFrame);
    metrics.batchPublished(changes.size(), batch.captureMillis());
    if (batch.captureMillis() > 0 && !batch.events().isEmpty()) {
      Set<String> tables = new HashSet<>();
      for (RowEvent e : batch.events()) {
        tables.add(e.table());
      }
      metrics.tablesPublished(tables, batch.captureMillis());
    }
  }
}

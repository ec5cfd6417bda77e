package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.RowChange;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.image.TableReads;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.KeyMoves;
import io.tablecast.server.tail.RowEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * Applies the events of one batch to the table images, in the row form the capture wrote them in,
 * and turns each change into its wire form once ({@link JsonEdge}). When the capture followed an
 * ALTER TABLE within the batch (its events of a table are in a new layout from some point on), the
 * table's image takes the batch's newest layout before any of its events, announced ({@code
 * schema_changed}) before the batch; events of the older layout read earlier in the same batch are
 * converted to it. An event an image cannot take goes to {@link ImageErrors}. Hub thread only.
 */
final class ImageUpdates {

  private static final Logger LOG = RecentEvents.logger(ImageUpdates.class);

  private final TableImages images;
  private final TableReads tableReads;
  private final ImageErrors imageErrors;

  /**
   * Per table name, the rows that share a key within the batch being applied ({@link
   * TableImage#apply(RowEvent, KeyMoves, List)}); kept from batch to batch (hub thread), cleared at
   * each. One per table: keys of two tables may be equal bytes ({@code
   * SharedKeysAcrossTablesTest}).
   */
  private final Map<String, KeyMoves> moves = new HashMap<>();

  /** The changes one event made (hub thread; cleared for each event). */
  private final List<RowChange> made = new ArrayList<>(2);

  ImageUpdates(TableImages images, TableReads tableReads, ImageErrors imageErrors) {
    this.images = images;
    this.tableReads = tableReads;
    this.imageErrors = imageErrors;
  }

  /** Applies {@code events} in order; returns the changes they made, in their wire form. */
  List<Message.Change> apply(List<RowEvent> events) {
    takeNewLayouts(events);
    List<Message.Change> changes = new ArrayList<>(events.size());
    Map<TableSchema, RowForm> olderForms = new HashMap<>();
    moves.values().forEach(KeyMoves::clear);
    for (RowEvent e : events) {
      TableImage image = images.get(e.table());
      if (image == null) {
        LOG.warn(
            "ignoring a {} event of table {}, which is not cached (cached: {})",
            e.op(),
            e.table(),
            images.names());
        continue;
      }
      try {
        if (e instanceof RowEvent.Truncate) {
          KeyMoves before = moves.get(e.table());
          if (before != null) {
            before.clear(); // the rows hidden until now are gone with the rest
          }
          for (RowChange c : image.truncate()) {
            changes.add(JsonEdge.change(image.form(), c));
          }
          continue;
        }
        TableSchema layout = layoutOf(e);
        RowEvent event =
            image.holds(layout)
                ? e
                : image.converted(
                    e,
                    olderForms.computeIfAbsent(
                        layout, l -> new RowForm(l.columns(), l.primaryKey())));
        if (event == null) {
          LOG.debug(
              "a {} event of {} read before its ALTER TABLE has no key in the new layout: the re-read repairs it",
              e.op(),
              e.table());
          continue;
        }
        made.clear();
        KeyMoves shared = moves.computeIfAbsent(e.table(), t -> new KeyMoves());
        image.apply(event, shared, made); // (a row put while a pass runs is marked seen)
        for (RowChange c : made) {
          changes.add(JsonEdge.change(image.form(), c));
        }
      } catch (RuntimeException ex) {
        imageErrors.failed(image, e, ex);
      }
    }
    return changes;
  }

  /**
   * The images whose table's last event in the batch is in a layout they do not hold take that
   * layout now (the capture's layouts of a table only move forward), before any change of the batch
   * is made or sent.
   */
  // the same layout object, event after event, skips the lookup; an equal copy takes the full check
  @SuppressWarnings("ReferenceEquality")
  private void takeNewLayouts(List<RowEvent> events) {
    Map<String, TableSchema> newest = null;
    TableSchema previous = null;
    for (RowEvent e : events) {
      TableSchema layout = layoutOf(e);
      if (layout == null || layout == previous) {
        continue; // most batches: one layout per table, event after event
      }
      previous = layout;
      TableImage image = images.get(e.table());
      if (image == null) {
        continue;
      }
      if (!image.holds(layout)) {
        if (newest == null) {
          newest = new LinkedHashMap<>();
        }
        newest.put(e.table(), layout);
      } else if (newest != null) {
        newest.remove(e.table());
      }
    }
    if (newest != null) {
      newest.forEach(
          (table, layout) -> {
            try {
              tableReads.inLayout(images.get(table), layout);
            } catch (RuntimeException ex) {
              LOG.error(
                  "table {} cannot take its new columns {}: {}",
                  table,
                  layout.columns(),
                  ex.toString());
            }
          });
    }
  }

  /** The table version an event's rows are written in; null for a truncate. */
  private static TableSchema layoutOf(RowEvent e) {
    if (e instanceof RowEvent.Upsert u) {
      return u.schema();
    }
    return e instanceof RowEvent.Delete d ? d.schema() : null;
  }
}

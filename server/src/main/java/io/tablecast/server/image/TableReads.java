package io.tablecast.server.image;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * What the source read of a table, set against the table's image: a reconciliation key range
 * ({@link DriftPasses} keeps the pass) or a whole table re-read for a resync. Finds the differences
 * the hub then publishes, logs and counts them, and adopts a changed column list. Hub thread only.
 */
public final class TableReads {

  private static final Logger LOG = RecentEvents.logger(TableReads.class);

  private final TableImages images;
  private final DriftPasses driftPasses = new DriftPasses();
  private final ServerMetrics metrics;
  private final DuplicateKeys duplicateKeys;

  /** Told of an image that took a new column list, before its rows' differences are published. */
  private final Consumer<TableImage> schemaChanged;

  /**
   * @param images the images the reads are compared with
   * @param metrics where repairs, reconciliations and resyncs are counted
   * @param schemaChanged told of an image that took a new column list, before its rows' differences
   *     are published
   */
  public TableReads(TableImages images, ServerMetrics metrics, Consumer<TableImage> schemaChanged) {
    this.schemaChanged = schemaChanged;
    this.images = images;
    this.metrics = metrics;
    this.duplicateKeys = new DuplicateKeys(metrics);
  }

  /**
   * The image of {@code image}'s table in the layout {@code layout} describes: {@code image} itself
   * when it holds that layout, else a new image of the same rows converted to it ({@link
   * TableImage#withSchema}), installed, and announced before any row of the new layout ({@code
   * schema_changed}). Called for an event written in a new layout (the capture followed an ALTER
   * TABLE and read the row with the new columns) and for a whole read of the table.
   */
  public TableImage inLayout(TableImage image, TableSchema layout) {
    if (image.holds(layout)) {
      return image;
    }
    TableImage converted =
        image.withSchema(layout); // ALTER TABLE: new subscribers get the new columns
    images.put(converted);
    LOG.info(
        "table {} now has columns {} (version {})",
        converted.name(),
        layout.columns(),
        converted.version());
    schemaChanged.accept(converted);
    return converted;
  }

  /**
   * The images were replaced (a new snapshot): every reconciliation pass under way starts over.
   *
   * @param duplicateRows per table loaded, the rows its snapshot read beyond one per primary key
   */
  public void imagesReplaced(Map<String, Long> duplicateRows) {
    driftPasses.reset();
    for (String name : images.names()) {
      duplicateKeys.found(
          images.get(name).schema(), duplicateRows.getOrDefault(name, 0L), "snapshot");
    }
  }

  /**
   * Compares a table's image (already at the read's position) with the rows the source read at that
   * position and returns the differences, to be published as a normal change batch. For a
   * reconciliation they are drift the triggers did not capture (a repair, WARN, counted); for a
   * resync they are the change the capture reported without rows (INFO). A whole read makes an
   * invalid image valid again ({@link TableImages#invalidate}): its differences repair it.
   */
  public List<RowEvent> differences(CommittedBatch.TableRead r) {
    String name = r.schema().id().qualified();
    TableImage image = images.get(name);
    if (image == null) {
      return List.of();
    }
    image = inLayout(image, r.schema());
    boolean resync = r.purpose() == CommittedBatch.Purpose.RESYNC;
    // after an ALTER TABLE: the sessions hold the rows in the old layout, which the image's
    // converted rows compare equal to; the re-read sends every row, in the new one
    boolean everyRow = resync && r.chunk() == null && image.converted();
    ReadDifferences read;
    try {
      read = r.chunk() == null ? image.diff(r.rows(), everyRow) : driftPasses.compare(image, r);
    } catch (RuntimeException e) {
      LOG.error("cannot compare table {} with its image: {}", name, e.getMessage());
      return List.of();
    }
    if (read.whole()) {
      duplicateKeys.found(r.schema(), read.duplicateRows(), resync ? "re-read" : "reconciliation");
    }
    List<RowEvent> repairs = read.events();
    if (r.chunk() == null) {
      images.validated(
          name); // the whole table: its differences, published, make the image equal to it
    }
    if (everyRow) {
      image.sentInLayout();
    }
    if (resync) {
      metrics.resynced(name, repairs.size());
      LOG.info(
          everyRow
              ? "resync of {} ({} rows read): its columns changed, {} rows sent in the new layout"
              : "resync of {} ({} rows read): {} rows differed",
          name,
          r.rows().size(),
          repairs.size());
    } else {
      if (r.chunk() == null || r.chunk().last()) {
        metrics.reconciled(name); // the whole table was compared
      }
      if (repairs.isEmpty()) {
        LOG.debug(
            "reconciliation of {} ({} rows{}): no drift",
            name,
            r.rows().size(),
            r.chunk() == null ? "" : ", one key range");
        return repairs;
      }
      LOG.warn(
          "reconciliation repaired {} rows of {}, keys {} (drift the triggers did not capture: TRUNCATE, "
              + "cascade, ALTER TABLE or triggers disabled)",
          repairs.size(),
          name,
          keysOf(image, repairs));
      if (LOG.isDebugEnabled()) { // row images may be sensitive: only on request
        for (RowEvent e : repairs.subList(0, Math.min(5, repairs.size()))) {
          byte[] have = image.get(keyOf(e));
          byte[] now = e instanceof RowEvent.Upsert u ? u.row() : null;
          LOG.debug(
              "repair of {}: {} {} -> {}",
              name,
              e.op(),
              have == null ? null : image.form().toNode(have),
              now == null ? null : image.form().toNode(now));
        }
      }
      metrics.reconcileRepaired(name, repairs.size());
    }
    return repairs;
  }

  /**
   * The keys of up to five repairs, for the log (keys, unlike rows, name what differed without its
   * data).
   */
  private static List<String> keysOf(TableImage image, List<RowEvent> repairs) {
    List<String> keys = new ArrayList<>();
    for (RowEvent e : repairs.subList(0, Math.min(5, repairs.size()))) {
      keys.add(image.form().keyToNode(keyOf(e)).toString());
    }
    if (repairs.size() > 5) {
      keys.add("...");
    }
    return keys;
  }

  /** The key of a repair (an upsert or a delete). */
  private static byte[] keyOf(RowEvent repair) {
    return repair instanceof RowEvent.Upsert u ? u.key() : ((RowEvent.Delete) repair).key();
  }
}

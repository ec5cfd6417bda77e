package io.tablecast.server.hub;

import io.tablecast.server.ServerMetrics;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the source read of a table, set against the table's image: a reconciliation key range
 * ({@link DriftPasses} keeps the pass) or a whole table re-read for a resync. Finds the
 * differences the hub then publishes, logs and counts them, and adopts a changed column list.
 * Hub thread only.
 */
final class TableReads {

  private static final Logger LOG = LoggerFactory.getLogger(TableReads.class);

  private final TableImages images;
  private final DriftPasses driftPasses;
  private final ServerMetrics metrics;
  /** Told of an image that took a new column list, before its rows' differences are published. */
  private final java.util.function.Consumer<TableImage> schemaChanged;

  TableReads(TableImages images, DriftPasses driftPasses, ServerMetrics metrics,
      java.util.function.Consumer<TableImage> schemaChanged) {
    this.schemaChanged = schemaChanged;
    this.images = images;
    this.driftPasses = driftPasses;
    this.metrics = metrics;
  }

  /**
   * Compares a table's image (already at the read's position) with the rows the source read at
   * that position and returns the differences, to be published as a normal change batch. For a
   * reconciliation they are drift the triggers did not capture (a repair, WARN, counted); for a
   * resync they are the change the capture reported without rows (INFO).
   */
  List<RowEvent> differences(CommittedBatch.TableRead r) {
    String name = r.schema().id().qualified();
    TableImage image = images.get(name);
    if (image == null) {
      return List.of();
    }
    if (!image.schema().equals(r.schema())) {
      image = image.withSchema(r.schema()); // ALTER TABLE: new subscribers get the new columns
      images.put(image);
      LOG.info("table {} now has columns {} (version {})", name, r.schema().columns(), image.version());
      schemaChanged.accept(image);
    }
    List<RowEvent> repairs;
    try {
      repairs = r.chunk() == null ? image.diff(r.rows()) : driftPasses.compare(image, r);
    } catch (RuntimeException e) {
      LOG.error("cannot compare table {} with its image: {}", name, e.getMessage());
      return List.of();
    }
    boolean resync = r.purpose() == CommittedBatch.Purpose.RESYNC;
    if (resync) {
      metrics.resynced(name, repairs.size());
      LOG.info("resync of {} ({} rows read): {} rows differed", name, r.rows().size(), repairs.size());
    } else {
      if (r.chunk() == null || r.chunk().last()) {
        metrics.reconciled(name); // the whole table was compared
      }
      if (repairs.isEmpty()) {
        LOG.debug("reconciliation of {} ({} rows{}): no drift", name, r.rows().size(),
            r.chunk() == null ? "" : ", one key range");
        return repairs;
      }
      LOG.warn("reconciliation repaired {} rows of {}, keys {} (drift the triggers did not capture: TRUNCATE, "
          + "cascade, ALTER TABLE or triggers disabled)", repairs.size(), name, keysOf(image, repairs));
      if (LOG.isDebugEnabled()) { // row images may be sensitive: only on request
        for (RowEvent e : repairs.subList(0, Math.min(5, repairs.size()))) {
          LOG.debug("repair of {}: {} {} -> {}", name, e.op(), e.before(), e.after());
        }
      }
      metrics.reconcileRepaired(name, repairs.size());
    }
    return repairs;
  }

  /** The keys of up to five repairs, for the log (keys, unlike rows, name what differed without its data). */
  private static List<String> keysOf(TableImage image, List<RowEvent> repairs) {
    List<String> keys = new ArrayList<>();
    for (RowEvent e : repairs.subList(0, Math.min(5, repairs.size()))) {
      keys.add(image.keyOf(e.after() != null ? e.after() : e.before()).toString());
    }
    if (repairs.size() > 5) {
      keys.add("...");
    }
    return keys;
  }
}

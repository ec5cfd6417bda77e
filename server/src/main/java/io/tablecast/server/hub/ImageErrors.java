package io.tablecast.server.hub;

import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Events a table's image could not take (a row image missing, a key column absent), which must not
 * leave the image, and every mirror, silently different from the table. Each one is counted ({@code
 * tablecast.image.errors{table}}) and logged as an ERROR with the table and the row's key; the
 * table's image is marked invalid, the table is said stale (cause {@value #CAUSE}) to its sessions,
 * {@code /health} and {@code tablecast.table.stale} after the batch, and the tail loop has the
 * source re-read the table whole ({@link io.tablecast.server.tail.ChangeSource#resync}). When that
 * read lands, its differences repair the mirrors and the table is said followed again. Hub thread
 * only.
 */
final class ImageErrors {

  private static final Logger LOG = RecentEvents.logger(ImageErrors.class);

  /** The cause of this staleness, beside a table's other causes. */
  static final String CAUSE = "image";

  /** What the table's clients are told (no key or row: the session's policy may hide them). */
  static final String REASON =
      "the server could not apply a change of this table to its copy of it (see the "
          + "server log); it is re-reading the table, and the mirror follows it again once the re-read arrives";

  private final TableImages images;
  private final ServerMetrics metrics;

  /** Tables to have re-read, not yet handed to the tail loop. */
  private final Set<String> rereads = new LinkedHashSet<>();

  /** Tables whose image turned invalid (true) or valid again (false), to say after the batch. */
  private final Map<String, Boolean> turned = new LinkedHashMap<>();

  ImageErrors(TableImages images, ServerMetrics metrics) {
    this.images = images;
    this.metrics = metrics;
  }

  /** {@code image} could not take {@code event}: count, log, invalidate, have the table re-read. */
  void failed(TableImage image, RowEvent event, RuntimeException error) {
    String table = image.name();
    metrics.imageError(table);
    LOG.error(
        "cannot apply a {} event of table {}, key {}, to its image: {}; the table is stale until it is "
            + "re-read",
        event.op(),
        table,
        keyOf(image, event),
        error.getMessage());
    if (images.invalidate(table)) {
      turned.put(table, true);
    }
    rereads.add(
        table); // again on every error: a re-read the source could not make is asked for anew
  }

  /**
   * A whole read of {@code table} was published; {@code wasInvalid}: its image was invalid before.
   */
  void reread(String table, boolean wasInvalid) {
    if (wasInvalid && !images.isInvalid(table)) {
      LOG.info(
          "table {} was re-read after an event its image could not take: its image is valid again",
          table);
      turned.merge(
          table,
          false,
          (before, now) -> before ? null : now); // turned invalid in this batch: nothing to say
      rereads.remove(table); // invalid and re-read within one batch: done
    }
  }

  /** Says the tables that turned stale or followed again since the last call. */
  void announce(StaleTables stale, Collection<Subscriber> sessions) {
    turned.forEach(
        (table, invalid) ->
            stale.apply(
                new CommittedBatch.Staleness(table, CAUSE, invalid ? REASON : null), sessions));
    turned.clear();
  }

  /** The tables to re-read since the last call (and forgets them). */
  Set<String> takeRereads() {
    if (rereads.isEmpty()) {
      return Set.of();
    }
    Set<String> out = Set.copyOf(rereads);
    rereads.clear();
    return out;
  }

  /** The key of the event's row in the image's row form, as text; or why it cannot be read. */
  static String keyOf(TableImage image, RowEvent event) {
    byte[] key =
        event instanceof RowEvent.Upsert u
            ? u.key()
            : event instanceof RowEvent.Delete d ? d.key() : null;
    if (key == null) {
      return "unknown (the event has no key)";
    }
    try {
      return image.form().keyToNode(key).toString();
    } catch (RuntimeException e) {
      return "unreadable in the table's row form ("
          + key.length
          + " bytes: "
          + e.getMessage()
          + ")";
    }
  }
}

package io.tablecast.server.image;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;

/**
 * Says when a whole read of a table (its snapshot, a re-read, a reconciliation pass) found rows
 * that share their primary key with another row: on PostgreSQL a parent's {@code PRIMARY KEY} does
 * not bind its inheritance children, so the tree may hold two rows with one key, and an image, like
 * a mirror, holds one row per key. Never silent: an ERROR naming the table, the count and the query
 * that finds them, each time the count changes; an INFO once none are left; the gauge {@code
 * tablecast.duplicate.keys{table}} always. Hub thread.
 */
public final class DuplicateKeys {

  private static final Logger LOG = RecentEvents.logger(DuplicateKeys.class);

  /** A name PostgreSQL and MySQL take without quotes. */
  private static final Pattern PLAIN = Pattern.compile("[a-z_][a-z0-9_]*");

  private final ServerMetrics metrics;

  /** The count last reported per table, to log a change once and not at every pass. */
  private final Map<String, Long> reported = new HashMap<>();

  public DuplicateKeys(ServerMetrics metrics) {
    this.metrics = metrics;
  }

  /**
   * A whole read of {@code table} found {@code rows} rows beyond one per key ({@code read} names
   * the read for the log: "snapshot", "re-read", "reconciliation").
   */
  public void found(TableSchema table, long rows, String read) {
    String name = table.id().qualified();
    metrics.duplicateKeyRows(name, rows);
    Long before = reported.put(name, rows);
    if (before != null && before == rows) {
      return;
    }
    if (rows > 0) {
      LOG.error(
          "table {}: {} {} its primary key ({}) with another row of the table, found by the {}:"
              + " mirrors hold one row per key, so {} missing from them, and a change to either"
              + " row replaces the other there. PostgreSQL does not apply a parent's PRIMARY KEY to"
              + " its inheritance children. Find them with: {}; keep keys unique across the"
              + " inheritance tree (a shared sequence, or CHECK constraints that split the key"
              + " range), or cache each child on its own",
          name,
          rows,
          rows == 1 ? "row shares" : "rows share",
          String.join(", ", table.primaryKey()),
          read,
          rows == 1 ? "one is" : "they are",
          query(table));
    } else if (before != null && before > 0) {
      LOG.info("table {}: no two rows share a primary key any more (the {})", name, read);
    }
  }

  /** The query that lists the keys held by more than one row of {@code table}. */
  static String query(TableSchema table) {
    String key =
        table.primaryKey().stream().map(DuplicateKeys::quoted).collect(Collectors.joining(", "));
    return "SELECT "
        + key
        + ", count(*) FROM "
        + quoted(table.id().schema())
        + "."
        + quoted(table.id().name())
        + " GROUP BY "
        + key
        + " HAVING count(*) > 1";
  }

  private static String quoted(String name) {
    return PLAIN.matcher(name).matches() ? name : '"' + name.replace("\"", "\"\"") + '"';
  }
}

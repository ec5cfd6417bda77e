package io.tablecast.server.tail;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL: follows {@code ALTER TABLE ... ADD / DROP / RENAME COLUMN} and column type changes of
 * a cached table while serving. The capture trigger writes whole rows ({@code to_jsonb}), so the
 * first outbox row written after such a change shows it: a column of the plan missing from the
 * image, a column the plan does not know, or (a type change) a value that does not convert. Then the table is described again; a changed column
 * list replaces the table's entry in the plan (later rows are read with it) and the table is
 * re-read whole in the same snapshot, so the hub takes the new columns and publishes every row
 * as it is now. Without this the mirrors kept the old columns: a new column never appeared, a
 * renamed or dropped one read null. Tail thread only.
 */
final class PgColumnChanges {
  private static final Logger LOG = LoggerFactory.getLogger(PgColumnChanges.class);

  private final Supplier<CapturePlan> plan;
  private final Consumer<CapturePlan> replace;
  /** Per table, image fields checked against the catalog and found left out on purpose (exclude_columns). */
  private final Map<String, Set<String>> leftOut = new HashMap<>();

  PgColumnChanges(Supplier<CapturePlan> plan, Consumer<CapturePlan> replace) {
    this.plan = plan;
    this.replace = replace;
  }

  /**
   * Checks one outbox image of {@code table}; returns true when the table's columns changed (the
   * plan now has the new ones, and the caller re-reads the table).
   */
  boolean changed(Connection c, TableSchema table, JsonNode image) throws SQLException {
    if (image == null || !image.isObject()) {
      return false;
    }
    boolean fits = true;
    for (ColumnInfo col : table.columns()) {
      if (!image.has(col.name())) {
        fits = false;
        break;
      }
    }
    if (fits && image.size() == table.columns().size()) {
      return false; // the common case, without allocating
    }
    String name = table.id().qualified();
    Set<String> known = leftOut.getOrDefault(name, Set.of());
    Set<String> extra = new LinkedHashSet<>();
    image.fieldNames().forEachRemaining(f -> {
      if (!known.contains(f) && table.columns().stream().noneMatch(col -> col.name().equals(f))) {
        extra.add(f);
      }
    });
    if (fits && extra.isEmpty()) {
      return false;
    }
    if (!describedAgain(c, table)) {
      // a row written before the change we already follow, or columns left out by configuration
      leftOut.computeIfAbsent(name, t -> new HashSet<>()).addAll(extra);
      return false;
    }
    return true;
  }

  /**
   * Describes {@code table} again; when its columns changed (names, or a type, which the image's
   * field names do not show: the row then fails to convert), the plan takes them and this
   * returns true.
   */
  boolean describedAgain(Connection c, TableSchema table) throws SQLException {
    String name = table.id().qualified();
    CapturePlan current = plan.get();
    TableSchema now = current.describe(c, table.id());
    if (now.equals(table)) {
      return false;
    }
    if (!now.primaryKey().equals(table.primaryKey())) {
      LOG.error("Table {} was altered: its primary key changed ({} -> {}); its mirrors cannot follow that live. "
          + "Restart the server to serve it with the new key.", name, table.primaryKey(), now.primaryKey());
      return false;
    }
    LOG.warn("Table {} was altered (columns {} -> {}): following its new columns and re-reading it", name,
        names(table.columns()), names(now.columns()));
    replace.accept(current.withTable(now));
    leftOut.remove(name);
    return true;
  }

  private static List<String> names(List<ColumnInfo> columns) {
    return columns.stream().map(ColumnInfo::name).toList();
  }
}

package io.tablecast.server.tail;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.TableSchema;
import java.io.IOException;
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
  private static final JsonFactory JSON = new JsonFactory();

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
  boolean changed(Connection c, TableSchema table, String image) throws SQLException {
    if (image == null) {
      return false;
    }
    Set<String> fields = fieldNames(image);
    String name = table.id().qualified();
    Set<String> known = leftOut.getOrDefault(name, Set.of());
    boolean fits = true;
    for (ColumnInfo col : table.columns()) {
      fits &= fields.contains(col.name());
    }
    Set<String> extra = new LinkedHashSet<>(fields);
    table.columns().forEach(col -> extra.remove(col.name()));
    extra.removeAll(known);
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

  /** The top-level field names of a JSON object, values skipped unparsed. */
  private static Set<String> fieldNames(String json) {
    Set<String> names = new HashSet<>();
    try (JsonParser p = JSON.createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return names;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        names.add(p.currentName());
        p.nextToken();
        p.skipChildren();
      }
    } catch (IOException e) {
      throw new IllegalStateException("a row image is not valid JSON: " + e.getMessage(), e);
    }
    return names;
  }
}

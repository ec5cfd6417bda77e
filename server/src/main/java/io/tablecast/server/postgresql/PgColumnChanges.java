package io.tablecast.server.postgresql;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.MissingTableException;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.UnfollowedTables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * PostgreSQL: follows {@code ALTER TABLE ... ADD / DROP / RENAME COLUMN}, column type changes and
 * primary-key changes of a cached table while serving. The capture trigger writes whole rows
 * ({@code to_jsonb}), so the first outbox row written after such a change shows it: a column of the
 * plan missing from the image, a column the plan does not know, or (a type change) a value that
 * does not convert. Then the table is described again; a changed column list replaces the table's
 * entry in the plan (later rows are read with it) and the table is re-read whole in the same
 * snapshot, so the hub takes the new columns and publishes every row as it is now. Without this the
 * mirrors kept the old columns: a new column never appeared, a renamed or dropped one read null. A
 * change no row shows (a new primary key, a type that still converts, a column added to a table
 * nobody writes) is found by a catalog fingerprint of each table read every {@code
 * capture_check_interval} ({@link #alteredSinceLastLook}). The capture trigger records whole rows
 * whatever the key, so a new primary key is followed the same way: the hub re-keys the image and
 * the clients their mirrors. Tail thread only.
 */
final class PgColumnChanges {
  private static final Logger LOG = RecentEvents.logger(PgColumnChanges.class);

  private final Supplier<CapturePlan> plan;
  private final Consumer<CapturePlan> replace;
  private final UnfollowedTables unfollowed;

  /**
   * Tables altered so that they cannot be cached as configured (a column {@code columns:} names
   * renamed or dropped, a column of a type that cannot be captured), with why: stale, their rows
   * left out, until a description succeeds again.
   */
  private final Map<String, String> uncacheable = new HashMap<>();

  /**
   * Per table, image fields checked against the catalog and found left out on purpose
   * (exclude_columns).
   */
  private final Map<String, Set<String>> leftOut = new HashMap<>();

  /**
   * Per table: its columns (name, type, NOT NULL, place in the primary key) in the catalog, one row
   * of text; recomputed at each look.
   */
  private static final String FINGERPRINTS =
      "SELECT x.s, x.t, (SELECT string_agg(a.attname || ' ' "
          + "|| format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' ' "
          + "|| coalesce(array_position(i.indkey::int2[], a.attnum)::text, '-'), ',' ORDER BY a.attnum) "
          + "FROM pg_class r JOIN pg_namespace n ON n.oid = r.relnamespace JOIN pg_attribute a ON a.attrelid = r.oid "
          + "LEFT JOIN pg_index i ON i.indrelid = r.oid AND i.indisprimary "
          + "WHERE n.nspname = x.s AND r.relname = x.t AND a.attnum > 0 AND NOT a.attisdropped) "
          + "FROM unnest(?::text[], ?::text[]) AS x(s, t)";

  private final Duration every;

  /** Per table, its fingerprint at the last look. */
  private final Map<TableId, String> fingerprints = new HashMap<>();

  private long lastLookNanos;

  /**
   * @param every how often {@link #alteredSinceLastLook} reads the catalog ({@code
   *     capture_check_interval}; 0: never)
   */
  PgColumnChanges(
      Supplier<CapturePlan> plan,
      Consumer<CapturePlan> replace,
      UnfollowedTables unfollowed,
      Duration every) {
    this.plan = plan;
    this.replace = replace;
    this.unfollowed = unfollowed;
    this.every = every;
  }

  /**
   * Whether {@code table} (qualified name) was altered so that it cannot be cached as configured:
   * the tail leaves its rows, re-reads and reconciliation out until it can again.
   */
  boolean uncacheable(String table) {
    return !uncacheable.isEmpty() && uncacheable.containsKey(table);
  }

  /**
   * True when {@link #alteredSinceLastLook} should run: {@code every} has passed since the last
   * look.
   */
  boolean lookDue() {
    return !every.isZero()
        && (lastLookNanos == 0 || System.nanoTime() - lastLookNanos >= every.toNanos());
  }

  /**
   * The cached tables whose catalog changed since the last look (the first look only learns them),
   * and those that cannot be cached as configured now. One indexed catalog query for all tables. A
   * table returned may still equal its plan (a change undone); {@link #describedAgain} tells.
   */
  Set<TableId> alteredSinceLastLook(Connection c) throws SQLException {
    lastLookNanos = System.nanoTime();
    List<TableSchema> tables = plan.get().tables();
    Set<TableId> altered = new LinkedHashSet<>();
    for (TableSchema t : tables) { // described at every look: a change undone may leave no trace
      if (uncacheable(t.id().qualified())) {
        altered.add(t.id());
      }
    }
    try (PreparedStatement ps = c.prepareStatement(FINGERPRINTS)) {
      PgCatalogQueries.bindTableNames(c, ps, tables);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          TableId id = new TableId(rs.getString(1), rs.getString(2));
          String fingerprint = String.valueOf(rs.getString(3));
          String before = fingerprints.put(id, fingerprint);
          if (before != null && !before.equals(fingerprint)) {
            altered.add(id);
          }
        }
      }
    }
    return altered;
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
    image
        .fieldNames()
        .forEachRemaining(
            f -> {
              if (!known.contains(f)
                  && table.columns().stream().noneMatch(col -> col.name().equals(f))) {
                extra.add(f);
              }
            });
    if (fits && extra.isEmpty()) {
      return false;
    }
    if (!describedAgain(c, table)) {
      if (!uncacheable(name)) {
        // a row written before the change we already follow, or columns left out by configuration
        leftOut.computeIfAbsent(name, t -> new HashSet<>()).addAll(extra);
      }
      return false;
    }
    return true;
  }

  /**
   * Describes {@code table} again; when its columns changed (names, or a type, which the image's
   * field names do not show: the row then fails to convert), the plan takes them and this returns
   * true.
   */
  boolean describedAgain(Connection c, TableSchema table) throws SQLException {
    String name = table.id().qualified();
    CapturePlan current = plan.get();
    TableSchema now;
    try {
      now = current.describe(c, table.id());
    } catch (MissingTableException e) {
      throw e; // the capture check follows a table gone
    } catch (IllegalArgumentException e) {
      if (uncacheable.put(name, e.getMessage()) == null) {
        LOG.error(UnfollowedTables.NOT_CACHEABLE_LOG, name, e.getMessage());
        unfollowed.cannotFollow(table.id(), UnfollowedTables.notCacheable(name, e.getMessage()));
      }
      return false;
    }
    if (uncacheable.remove(name) != null) {
      LOG.warn("Table {} can be cached as configured again: re-reading it", name);
      unfollowed.followedAgain(table.id());
      if (!now.equals(table)) {
        replace.accept(current.withTable(now));
      }
      leftOut.remove(name);
      return true; // its changes meanwhile were left out: re-read
    }
    if (now.equals(table)) {
      return false;
    }
    LOG.warn(
        "Table {} was altered (columns {} -> {}{}): following its new columns and re-reading it",
        name,
        names(table.columns()),
        names(now.columns()),
        now.primaryKey().equals(table.primaryKey())
            ? ""
            : ", primary key " + table.primaryKey() + " -> " + now.primaryKey());
    replace.accept(current.withTable(now));
    leftOut.remove(name);
    return true;
  }

  private static List<String> names(List<ColumnInfo> columns) {
    return columns.stream().map(ColumnInfo::name).toList();
  }
}

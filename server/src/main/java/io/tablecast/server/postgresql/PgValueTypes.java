package io.tablecast.server.postgresql;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;

/**
 * PostgreSQL: follows the user-defined types a cached table's values are made of, which can change
 * every row's value without a row change, so without a trigger firing: {@code ALTER TYPE mood
 * RENAME VALUE 'ok' TO 'fine'} turns every {@code 'ok'} into {@code 'fine'}, and {@code ALTER TYPE
 * pair ADD ATTRIBUTE c int} (or an {@code ALTER TABLE} of a table whose row type is a column's
 * type) gives every composite value a new field. The table's own catalog rows do not change either,
 * so {@link PgColumnChanges} does not see it; the mirrors kept the old values until reconciliation
 * reached each row, hours later on a large table.
 *
 * <p>At each look ({@code capture_check_interval}) one catalog query lists, per cached table, the
 * enum labels (by their oid) and the composite types' attributes of every type its columns use,
 * through arrays, domains, ranges and composites, user-defined types only (oid at or above {@code
 * FirstNormalObjectId}, 16384: built-in types never change). A table whose list lost an entry (a
 * label renamed, an attribute added, dropped, renamed or retyped) is re-read; a label added ({@code
 * ADD VALUE}) changes no value and is only learned. Measured on this project's 2-core machine: 3 ms
 * for 410 tables (the columns' look {@link PgColumnChanges} takes 6 ms there). Tail thread only.
 */
final class PgValueTypes {
  private static final Logger LOG = RecentEvents.logger(PgValueTypes.class);

  private static final String DEFINITIONS =
      "WITH RECURSIVE x AS (SELECT * FROM unnest(?::text[], ?::text[]) AS x(s, t)),"
          + " used(s, t, typ) AS ("
          + " SELECT x.s, x.t, a.atttypid FROM x"
          + " JOIN pg_catalog.pg_namespace n ON n.nspname = x.s"
          + " JOIN pg_catalog.pg_class r ON r.relnamespace = n.oid AND r.relname = x.t"
          + " JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0"
          + " AND NOT a.attisdropped WHERE a.atttypid >= 16384"
          + " UNION"
          + " SELECT u.s, u.t, inner_type.oid FROM used u"
          // OFFSET 0: one index lookup per type, not a scan of pg_type per level
          + " CROSS JOIN LATERAL (SELECT * FROM pg_catalog.pg_type ty WHERE ty.oid = u.typ OFFSET 0)"
          + " AS ty CROSS JOIN LATERAL ("
          + " SELECT ty.typelem WHERE ty.typelem <> 0"
          + " UNION ALL SELECT ty.typbasetype WHERE ty.typbasetype <> 0"
          + " UNION ALL SELECT ra.atttypid FROM pg_catalog.pg_attribute ra WHERE ty.typrelid <> 0"
          + " AND ra.attrelid = ty.typrelid AND ra.attnum > 0 AND NOT ra.attisdropped"
          + " UNION ALL SELECT rg.rngsubtype FROM pg_catalog.pg_range rg WHERE rg.rngtypid = ty.oid"
          + " ) AS inner_type(oid) WHERE inner_type.oid >= 16384),"
          + " defs(s, t, d) AS ("
          + " SELECT u.s, u.t, format_type(e.enumtypid, NULL) || ' label ' || e.oid || ': '"
          + " || e.enumlabel FROM used u JOIN pg_catalog.pg_enum e ON e.enumtypid = u.typ"
          + " UNION ALL"
          + " SELECT u.s, u.t, format_type(ty.oid, NULL) || ' attributes: ' || coalesce(("
          + " SELECT string_agg(ca.attname || ' ' || format_type(ca.atttypid, ca.atttypmod), ', '"
          + " ORDER BY ca.attnum) FROM pg_catalog.pg_attribute ca WHERE ca.attrelid = ty.typrelid"
          + " AND ca.attnum > 0 AND NOT ca.attisdropped), '')"
          + " FROM used u JOIN pg_catalog.pg_type ty ON ty.oid = u.typ AND ty.typtype = 'c')"
          + " SELECT x.s, x.t, array_agg(defs.d ORDER BY defs.d) FILTER (WHERE defs.d IS NOT NULL)"
          + " FROM x LEFT JOIN defs ON defs.s = x.s AND defs.t = x.t GROUP BY x.s, x.t";

  /** Per table, the definitions of the types of its values at the last look. */
  private final Map<TableId, Set<String>> seen = new HashMap<>();

  /**
   * The tables among {@code tables} whose values' types were redefined since the last look (the
   * first look of a table only learns it), each logged with what changed.
   */
  Set<TableId> redefinedSinceLastLook(Connection c, List<TableSchema> tables) throws SQLException {
    Set<TableId> redefined = new LinkedHashSet<>();
    try (PreparedStatement ps = c.prepareStatement(DEFINITIONS)) {
      PgCatalogQueries.bindTableNames(c, ps, tables);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          TableId id = new TableId(rs.getString(1), rs.getString(2));
          Set<String> now = new TreeSet<>();
          Array definitions = rs.getArray(3);
          if (definitions != null) {
            now.addAll(List.of((String[]) definitions.getArray()));
          }
          Set<String> before = seen.put(id, now);
          if (before != null && !now.containsAll(before)) {
            redefined.add(id);
            Set<String> gone = new TreeSet<>(before);
            gone.removeAll(now);
            Set<String> added = new TreeSet<>(now);
            added.removeAll(before);
            LOG.warn(
                "The types of table {}'s values were redefined (ALTER TYPE, or ALTER TABLE of a"
                    + " table whose row type a column has): {} is now {}; no row change shows it,"
                    + " so the table is read again",
                id.qualified(),
                gone,
                added);
          }
        }
      }
    }
    return redefined;
  }
}

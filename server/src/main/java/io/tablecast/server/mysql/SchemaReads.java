package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Which schemas the capture check reads whole. MariaDB answers an {@code information_schema} query
 * on a whole schema by opening every table of it (an {@code IN} list of table names does not narrow
 * that), at about a tenth of a millisecond a table, where a lookup of one table by schema and name
 * costs a round trip of about half a millisecond and a description six of them. Reading a schema
 * whole pays when the cached tables are a fair part of it (400 of 400 tables: BENCHMARKS.md, "The
 * MySQL capture check on 400 tables"), not for five tables of a 10,000-table schema: those are
 * still looked at table by table.
 */
final class SchemaReads {
  /** A schema is read whole when it has at most this many tables per cached table in it. */
  static final int TABLES_PER_CACHED_TABLE = 8;

  private SchemaReads() {}

  /** The schemas of {@code tables} read whole, by their number of tables (one query each). */
  static List<String> readWhole(Connection c, Collection<TableId> tables) throws SQLException {
    Map<String, Long> cached =
        tables.stream()
            .collect(Collectors.groupingBy(TableId::schema, TreeMap::new, Collectors.counting()));
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Long> schema : cached.entrySet()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?")) {
        ps.setString(1, schema.getKey());
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next() && rs.getLong(1) <= TABLES_PER_CACHED_TABLE * schema.getValue()) {
            out.add(schema.getKey());
          }
        }
      }
    }
    return out;
  }
}

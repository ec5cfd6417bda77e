package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.Column;
import io.tablecast.client.ColumnType;
import io.tablecast.client.IndexDefinition;
import io.tablecast.client.MirrorIndex;
import io.tablecast.client.MirrorShape;
import io.tablecast.client.NearCache;
import io.tablecast.client.NearCacheOptions;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.it.KeyTypesTest.KeyedTable;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A key given as the Java value JDBC reads from its column finds its row, in a mirror and in a near
 * cache, whatever text the database prints for it (docs/TYPES.md): a {@code LocalDateTime} or a
 * {@code java.sql.Timestamp} for a date-time column whose text keeps as many fraction digits as
 * declared (MySQL) or drops trailing zeros (PostgreSQL), a {@code LocalTime} for a time, an {@code
 * OffsetDateTime} for an instant, a {@code BigDecimal} of any scale for a decimal, a {@code byte[]}
 * for a binary string, a {@code LocalDate} for a date of year 44 BC, and the text {@code getString}
 * reads ({@code 2026-03-29 02:30:00.1}, with a space). Before, such a lookup formed its key with
 * the value's {@code toString()} ({@code 2026-10-25T02:30} against the row's {@code
 * 2026-10-25T02:30:00.000000}, {@code [B@1b6d3586} for bytes) and answered "no such row" for rows
 * the table holds. The same holds for an index by the key columns ({@code IndexValues}), and a
 * sorted index orders a number, date or time key as {@code ORDER BY} does (years BC and MySQL times
 * below zero included). The tables are {@link KeyTypesTest}'s.
 */
class JavaKeyValuesTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aKeyAsJdbcReadsItFindsItsRow(Kind kind) throws Exception {
    List<KeyedTable> tables = KeyTypesTest.tables(kind);
    List<String> misses = new ArrayList<>();
    int lookups = 0;
    try (Pipeline p = KeyTypesTest.withEveryRow(kind, "javakeys", tables)) {
      TablecastClient client = p.client("javakeys");
      TablecastClient shaped = p.client("javakeys-shaped");
      for (KeyedTable t : tables) {
        TableMirror<Map<String, Object>> mirror = p.readyMirror(client, t.name());
        NearCache<Map<String, Object>> near =
            client.nearCache(mirror.table(), NearCacheOptions.maximumRows(100));
        String[] keyColumns = mirror.primaryKey().toArray(new String[0]);
        TableMirror<Map<String, Object>> indexed =
            client.mirror(
                mirror.table(),
                List.of(
                    IndexDefinition.hash("by_key", keyColumns),
                    IndexDefinition.sorted("by_k0", "k0")));
        assertThat(indexed.awaitReady(Pipeline.READY)).isTrue();
        MirrorIndex<Map<String, Object>> byKey = indexed.index("by_key");
        for (List<Object> key : keysAsJdbcReadsThem(p, mirror, kind)) {
          Object v = key.remove(key.size() - 1);
          Object first = key.get(0);
          Object[] rest = key.subList(1, key.size()).toArray();
          lookups++;
          check(misses, "mirror of " + t.name(), key, v, mirror.get(first, rest));
          check(misses, "near cache of " + t.name(), key, v, near.get(first, rest));
          List<Map<String, Object>> found = byKey.get(key.size() == 1 ? first : key);
          check(misses, "index of " + t.name(), key, v, found.size() == 1 ? found.get(0) : null);
        }
        if (keyColumns.length == 1 && ordersAsTheDatabase(mirror.columns())) {
          assertThat(values(indexed.index("by_k0").ordered()))
              .as("%s in the order of ORDER BY k0", t.name())
              .isEqualTo(orderedByK0(p, mirror.table()));
        }
        if (keyColumns.length == 1 && ordersAsTheDatabase(mirror.columns())) {
          // a filter compares them as the database's WHERE does, the pivot in its getString text
          String pivot = thirdK0(p, kind, mirror.table());
          boolean zoneless = // a MySQL TIMESTAMP's text, read in UTC: the filter needs its zone
              kind == Kind.MYSQL && column(mirror, "k0").type() == ColumnType.TIMESTAMP_TZ;
          boolean number =
              List.of(ColumnType.INTEGER, ColumnType.DECIMAL, ColumnType.FLOAT)
                  .contains(column(mirror, "k0").type());
          TableMirror<Map<String, Object>> below =
              shaped.mirror(
                  mirror.table(),
                  MirrorShape.rows(
                      "k0 < ?",
                      number ? new java.math.BigDecimal(pivot) : zoneless ? pivot + "Z" : pivot));
          assertThat(below.awaitReady(Pipeline.READY)).isTrue();
          assertThat(values(below.rows()).stream().sorted().toList())
              .as("%s WHERE k0 < '%s'", t.name(), pivot)
              .isEqualTo(vWhereK0Below(p, kind, mirror.table(), pivot));
        }
      }
    }
    assertThat(misses).as("lookups (of %s) that found no row or another one", lookups).isEmpty();
    assertThat(lookups).as("lookups made").isGreaterThan(tables.size() * 5);
  }

  /**
   * Whether a sorted index orders {@code k0} as the database does: numbers and times by value, text
   * of a binary collation (a Java index orders text by code point, not by the database's
   * collation).
   */
  private static Column column(TableMirror<?> mirror, String name) {
    return mirror.columns().stream().filter(c -> c.name().equals(name)).findFirst().get();
  }

  private static boolean ordersAsTheDatabase(List<Column> columns) {
    Column k0 = columns.stream().filter(c -> c.name().equals("k0")).findFirst().get();
    return switch (k0.type()) {
      case INTEGER, DECIMAL, FLOAT, DATE, TIME, TIMESTAMP, TIMESTAMP_TZ -> true;
      default -> false;
    };
  }

  private static List<String> values(List<Map<String, Object>> rows) {
    return rows.stream().map(r -> String.valueOf(r.get("v"))).toList();
  }

  /** The third smallest {@code k0} of {@code table}, as {@code getString} reads it in UTC. */
  private static String thirdK0(Pipeline p, Kind kind, String table) throws SQLException {
    try (Connection c = p.connect();
        Statement s = c.createStatement()) {
      s.execute(utc(kind));
      try (ResultSet rs = s.executeQuery("SELECT k0 FROM " + table + " ORDER BY k0")) {
        rs.next();
        rs.next();
        rs.next();
        return rs.getString(1);
      }
    }
  }

  private static String utc(Kind kind) {
    return kind == Kind.POSTGRESQL ? "SET TIME ZONE 'UTC'" : "SET time_zone = '+00:00'";
  }

  private static List<String> vWhereK0Below(Pipeline p, Kind kind, String table, String pivot)
      throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = p.connect();
        java.sql.PreparedStatement s =
            c.prepareStatement("SELECT v FROM " + table + " WHERE k0 < ? ORDER BY v")) {
      try (Statement zone = c.createStatement()) {
        zone.execute(utc(kind));
      }
      if (kind == Kind.POSTGRESQL) {
        s.setObject(1, pivot, java.sql.Types.OTHER); // typed by the column, as a literal is
      } else {
        s.setString(1, pivot);
      }
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out.stream().sorted().toList();
  }

  private static List<String> orderedByK0(Pipeline p, String table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT v FROM " + table + " ORDER BY k0")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static void check(
      List<String> misses, String where, List<Object> key, Object v, Map<String, Object> row) {
    if (row == null || !String.valueOf(row.get("v")).equals(String.valueOf(v))) {
      misses.add(where + ": get" + shown(key) + " found " + row + ", not the row with v = " + v);
    }
  }

  private static String shown(List<Object> key) {
    List<String> parts = new ArrayList<>();
    for (Object o : key) {
      parts.add(
          o instanceof byte[] b
              ? "byte[]" + Arrays.toString(b)
              : o.getClass().getSimpleName() + " " + o);
    }
    return parts.toString();
  }

  /**
   * Every row's key, once per Java form JDBC reads its parts in (the value {@code getObject}
   * returns, the {@code java.time} class asked for by name, the text {@code getString} returns),
   * each followed by the row's {@code v}.
   */
  private static List<List<Object>> keysAsJdbcReadsThem(
      Pipeline p, TableMirror<?> mirror, Kind kind) throws SQLException {
    List<Column> keyColumns = new ArrayList<>();
    for (String name : mirror.primaryKey()) {
      keyColumns.add(
          mirror.columns().stream().filter(c -> c.name().equals(name)).findFirst().get());
    }
    List<List<Object>> keys = new ArrayList<>();
    try (Connection c = p.connect();
        Statement s = c.createStatement()) {
      s.execute(utc(kind));
      try (ResultSet rs = s.executeQuery("SELECT * FROM " + mirror.table())) {
        while (rs.next()) {
          for (int form = 0; form < 3; form++) {
            List<Object> key = new ArrayList<>();
            for (Column column : keyColumns) {
              Object part = form == 2 ? text(rs, column) : read(rs, column, form == 0);
              if (part == null) {
                break; // a value this form cannot hold (a MySQL time past 24 h as a LocalTime)
              }
              key.add(part);
            }
            if (key.size() == keyColumns.size()) {
              key.add(rs.getObject("v"));
              keys.add(key);
            }
          }
        }
      }
    }
    return keys;
  }

  /**
   * A date, time, date-time or decimal key part as {@code getString} reads it, the database's own
   * text ({@code 2026-03-29 02:30:00.1}, with a space); any other as {@code getObject} does.
   */
  private static Object text(ResultSet rs, Column column) throws SQLException {
    return switch (column.type()) {
      case DATE, TIME, TIMESTAMP, DECIMAL -> rs.getString(column.name());
      default -> rs.getObject(column.name());
    };
  }

  /** A key part as JDBC reads it: as {@code getObject} returns it, or in {@code java.time}. */
  private static Object read(ResultSet rs, Column column, boolean asJdbcObject)
      throws SQLException {
    String name = column.name();
    try {
      return switch (column.type()) {
        case DATE ->
            asJdbcObject
                ? bc(rs.getObject(name, LocalDate.class).getYear()) ? null : rs.getDate(name)
                : rs.getObject(name, LocalDate.class);
        case TIME ->
            asJdbcObject || !withinADay(rs.getString(name))
                ? null // MariaDB's driver reads -838:59:59 as 01:00:01
                : rs.getObject(name, LocalTime.class);
        case TIMESTAMP ->
            asJdbcObject
                ? bc(rs.getObject(name, LocalDateTime.class).getYear())
                    ? null
                    : rs.getTimestamp(name)
                : rs.getObject(name, LocalDateTime.class);
        case TIMESTAMP_TZ ->
            asJdbcObject
                ? rs.getTimestamp(name, java.util.Calendar.getInstance(UTC))
                : rs.getObject(name, OffsetDateTime.class);
        case DECIMAL ->
            asJdbcObject ? rs.getBigDecimal(name) : rs.getBigDecimal(name).stripTrailingZeros();
        case BINARY -> rs.getBytes(name);
        case INTEGER ->
            !asJdbcObject && column.databaseType().startsWith("year")
                ? java.time.Year.of(rs.getInt(name))
                : rs.getObject(name);
        default -> rs.getObject(name);
      };
    } catch (SQLException | java.time.DateTimeException e) {
      return null; // past what the class can hold: not a key a user can have in hand
    }
  }

  /** Whether a MySQL TIME's text is a time of day, which a {@code LocalTime} can hold. */
  private static boolean withinADay(String time) {
    return !time.startsWith("-") && Integer.parseInt(time.substring(0, time.indexOf(':'))) < 24;
  }

  /**
   * Whether a year is before the common era: {@code java.sql.Date} and {@code Timestamp} print 44
   * BC as {@code 0044} and read it back as 44 AD, so no key can be made of them.
   */
  private static boolean bc(int isoYear) {
    return isoYear <= 0;
  }

  private static final java.util.TimeZone UTC = java.util.TimeZone.getTimeZone("UTC");
}

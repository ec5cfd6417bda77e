package io.tablecast.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.client.ChangeEvent;
import io.tablecast.client.Column;
import io.tablecast.client.ColumnType;
import io.tablecast.client.TableMirror;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.row.TemporalValues;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** JSON-lines rendering of mirror rows and changes, in table column order. */
final class RowJson {
  /**
   * The protocol's mapper (exact decimals), but printing nulls: every column appears in every row.
   */
  private static final ObjectMapper MAPPER =
      MessageCodec.jsonMapper()
          .copy()
          .setDefaultPropertyInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.ALWAYS);

  private RowJson() {}

  /** One JSON object per row, sorted by primary key (see {@link #keyOrder}). */
  static List<String> sortedRows(TableMirror<Map<String, Object>> mirror) {
    List<String> lines = new ArrayList<>();
    for (Map<String, Object> row : sortedRowMaps(mirror)) {
      lines.add(write(row));
    }
    return lines;
  }

  /** The rows, each in column order, sorted by primary key (see {@link #keyOrder}). */
  static List<Map<String, Object>> sortedRowMaps(TableMirror<Map<String, Object>> mirror) {
    List<Map.Entry<Object, Map<String, Object>>> entries =
        new ArrayList<>(mirror.copyToMap().entrySet());
    entries.sort(Map.Entry.comparingByKey(keyOrder(mirror.primaryKey(), mirror.columns())));
    List<Map<String, Object>> rows = new ArrayList<>(entries.size());
    for (Map.Entry<Object, Map<String, Object>> e : entries) {
      rows.add(ordered(mirror.columns(), e.getValue()));
    }
    return rows;
  }

  static String change(
      TableMirror<Map<String, Object>> mirror, ChangeEvent<Map<String, Object>> e) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("table", e.table());
    line.put("op", e.op().name());
    line.put("key", e.key());
    line.put("before", e.oldRow() == null ? null : ordered(mirror.columns(), e.oldRow()));
    line.put("after", e.newRow() == null ? null : ordered(mirror.columns(), e.newRow()));
    return write(line);
  }

  static Map<String, Object> ordered(List<Column> columns, Map<String, Object> row) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Column c : columns) {
      if (row.containsKey(c.name())) {
        out.put(c.name(), row.get(c.name()));
      }
    }
    row.forEach(out::putIfAbsent);
    return out;
  }

  static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render row as JSON: " + e.getMessage(), e);
    }
  }

  /**
   * The order of a table's keys (as mirrors normalize them: one part, or a list of parts for a
   * composite key), part by part per the key column's {@link ColumnType}: integers, decimals (which
   * arrive as strings) and floats numerically, booleans false first, dates and times in time order
   * (years BC, {@code infinity}, MySQL times below zero included), anything else as text. Parts of
   * a column the layout does not describe fall back to {@link #KEY_ORDER}.
   */
  static Comparator<Object> keyOrder(List<String> primaryKey, List<Column> columns) {
    Map<String, ColumnType> types = new HashMap<>();
    for (Column c : columns) {
      types.put(c.name(), c.type());
    }
    List<Comparator<Object>> parts = new ArrayList<>();
    for (String column : primaryKey) {
      parts.add(partOrder(types.get(column)));
    }
    if (parts.size() == 1) {
      return parts.get(0);
    }
    if (parts.isEmpty()) {
      return KEY_ORDER;
    }
    return (a, b) -> {
      if (!(a instanceof List<?> x) || !(b instanceof List<?> y)) {
        return KEY_ORDER.compare(a, b);
      }
      for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
        int c = (i < parts.size() ? parts.get(i) : KEY_ORDER).compare(x.get(i), y.get(i));
        if (c != 0) {
          return c;
        }
      }
      return Integer.compare(x.size(), y.size());
    };
  }

  private static Comparator<Object> partOrder(ColumnType type) {
    if (type == null) {
      return KEY_ORDER;
    }
    switch (type) {
      case INTEGER:
      case DECIMAL:
      case FLOAT:
        return RowJson::compareNumerically;
      case BOOLEAN:
        return Comparator.comparing((Object o) -> Boolean.parseBoolean(String.valueOf(o)));
      case DATE:
        return inTime(TemporalValues::date);
      case TIME:
        return inTime(TemporalValues::time);
      case TIMESTAMP:
        return inTime(TemporalValues::dateTime);
      case TIMESTAMP_TZ:
        return inTime(TemporalValues::instant);
      default:
        return Comparator.comparing(String::valueOf);
    }
  }

  /**
   * Dates and times as points in time (docs/TYPES.md's forms: years BC and past 9999, infinity, a
   * MySQL TIME below zero); a text of no such form after them all, as text.
   */
  private static <T extends Comparable<? super T>> Comparator<Object> inTime(
      java.util.function.Function<String, T> parse) {
    return (a, b) -> {
      T x = parse.apply(String.valueOf(a));
      T y = parse.apply(String.valueOf(b));
      if (x != null && y != null) {
        return x.compareTo(y);
      }
      if (x != null || y != null) {
        return x != null ? -1 : 1;
      }
      return String.valueOf(a).compareTo(String.valueOf(b));
    };
  }

  /** Numbers and numeric text by value; text that is no number (NaN) after all numbers, as text. */
  private static int compareNumerically(Object a, Object b) {
    BigDecimal x = numeric(a);
    BigDecimal y = numeric(b);
    if (x != null && y != null) {
      int c = x.compareTo(y);
      return c != 0 ? c : String.valueOf(a).compareTo(String.valueOf(b));
    }
    if (x != null || y != null) {
      return x != null ? -1 : 1;
    }
    return String.valueOf(a).compareTo(String.valueOf(b));
  }

  private static BigDecimal numeric(Object o) {
    try {
      return o instanceof Number ? toBig(o) : new BigDecimal(String.valueOf(o).trim());
    } catch (NumberFormatException e) { // NaN, Infinity
      return null;
    }
  }

  /**
   * Orders keys of unknown kind: numbers numerically, then strings, then composite keys element by
   * element.
   */
  static final Comparator<Object> KEY_ORDER =
      new Comparator<>() {
        @Override
        public int compare(Object a, Object b) {
          if (a instanceof List && b instanceof List) {
            List<?> x = (List<?>) a;
            List<?> y = (List<?>) b;
            for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
              int c = compare(x.get(i), y.get(i));
              if (c != 0) {
                return c;
              }
            }
            return Integer.compare(x.size(), y.size());
          }
          if (a instanceof Number && b instanceof Number) {
            return toBig(a).compareTo(toBig(b));
          }
          if (a instanceof Number) {
            return -1;
          }
          if (b instanceof Number) {
            return 1;
          }
          return String.valueOf(a).compareTo(String.valueOf(b));
        }
      };

  private static BigDecimal toBig(Object n) {
    if (n instanceof BigDecimal big) {
      return big;
    }
    if (n instanceof BigInteger integer) {
      return new BigDecimal(integer);
    }
    if (n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte) {
      return BigDecimal.valueOf(((Number) n).longValue());
    }
    return new BigDecimal(n.toString());
  }
}

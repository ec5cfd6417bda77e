package io.tablecast.cli;

import io.tablecast.client.Column;
import io.tablecast.client.ColumnType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How {@code tablecast dump} prints rows, given in column order and sorted by key.
 *
 * <ul>
 *   <li>{@link #JSON}: one JSON object per row, every column present ({@link RowJson});
 *   <li>{@link #CSV}: RFC 4180, a header line of column names, then one line per row; a field with
 *       a comma, a double quote, a line break or nothing in it is quoted, its quotes doubled, so a
 *       null (an empty field) and an empty string ({@code ""}) differ; JSON values as JSON text;
 *   <li>{@link #TABLE}: columns aligned for reading, numbers to the right, a null as an empty cell,
 *       control characters and backslashes escaped ({@code \n}, {@code \t}, {@code \\}) so that
 *       every row stays one line, no blanks at line ends, and a row count at the end.
 * </ul>
 */
enum DumpFormat {
  JSON,
  CSV,
  TABLE;

  /** The lines that print {@code rows} (each in column order) of a table of {@code columns}. */
  List<String> lines(List<Column> columns, List<Map<String, Object>> rows) {
    switch (this) {
      case CSV:
        return csv(columns, rows);
      case TABLE:
        return table(columns, rows);
      case JSON:
      default:
        List<String> out = new ArrayList<>(rows.size());
        for (Map<String, Object> row : rows) {
          out.add(RowJson.write(row));
        }
        return out;
    }
  }

  private static List<String> csv(List<Column> columns, List<Map<String, Object>> rows) {
    List<String> out = new ArrayList<>(rows.size() + 1);
    List<String> header = new ArrayList<>();
    for (Column c : columns) {
      header.add(csvField(c.name()));
    }
    out.add(String.join(",", header));
    for (Map<String, Object> row : rows) {
      List<String> fields = new ArrayList<>(columns.size());
      for (Column c : columns) {
        String v = text(row.get(c.name()));
        fields.add(v == null ? "" : csvField(v));
      }
      out.add(String.join(",", fields));
    }
    return out;
  }

  static String csvField(String v) {
    if (v.isEmpty()
        || v.indexOf(',') >= 0
        || v.indexOf('"') >= 0
        || v.indexOf('\n') >= 0
        || v.indexOf('\r') >= 0) {
      return '"' + v.replace("\"", "\"\"") + '"';
    }
    return v;
  }

  private static List<String> table(List<Column> columns, List<Map<String, Object>> rows) {
    int n = columns.size();
    int[] widths = new int[n];
    boolean[] right = new boolean[n];
    List<String[]> cells = new ArrayList<>(rows.size());
    String[] header = new String[n];
    for (int i = 0; i < n; i++) {
      Column c = columns.get(i);
      header[i] = escape(c.name());
      widths[i] = width(header[i]);
      ColumnType type = c.type();
      right[i] =
          type == ColumnType.INTEGER || type == ColumnType.DECIMAL || type == ColumnType.FLOAT;
    }
    for (Map<String, Object> row : rows) {
      String[] line = new String[n];
      for (int i = 0; i < n; i++) {
        String v = text(row.get(columns.get(i).name()));
        line[i] = v == null ? "" : escape(v);
        widths[i] = Math.max(widths[i], width(line[i]));
      }
      cells.add(line);
    }
    List<String> out = new ArrayList<>(rows.size() + 3);
    out.add(tableLine(header, widths, right));
    StringBuilder rule = new StringBuilder();
    for (int i = 0; i < n; i++) {
      rule.append(i == 0 ? "" : "-+-").append("-".repeat(widths[i]));
    }
    out.add(rule.toString());
    for (String[] line : cells) {
      out.add(tableLine(line, widths, right));
    }
    out.add("(" + rows.size() + (rows.size() == 1 ? " row)" : " rows)"));
    return out;
  }

  private static String tableLine(String[] cells, int[] widths, boolean[] right) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      String pad = " ".repeat(widths[i] - width(cells[i]));
      b.append(i == 0 ? "" : " | ");
      if (right[i]) {
        b.append(pad).append(cells[i]);
      } else {
        b.append(cells[i]).append(pad);
      }
    }
    return b.toString().stripTrailing();
  }

  /** Width in code points (wide East Asian characters count one). */
  private static int width(String s) {
    return s.codePointCount(0, s.length());
  }

  /** Backslash, line breaks, tabs and other control characters as escapes: one line per row. */
  static String escape(String v) {
    StringBuilder b = new StringBuilder(v.length());
    for (int i = 0; i < v.length(); i++) {
      char ch = v.charAt(i);
      switch (ch) {
        case '\\':
          b.append("\\\\");
          break;
        case '\n':
          b.append("\\n");
          break;
        case '\r':
          b.append("\\r");
          break;
        case '\t':
          b.append("\\t");
          break;
        default:
          if (ch < 0x20 || ch == 0x7f) {
            b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) ch));
          } else {
            b.append(ch);
          }
      }
    }
    return b.toString();
  }

  /** A value as text: null stays null, strings as they are, JSON values as JSON text. */
  static String text(Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof String s) {
      return s;
    }
    if (v instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (v instanceof Number || v instanceof Boolean) {
      return v.toString();
    }
    return RowJson.write(v);
  }
}

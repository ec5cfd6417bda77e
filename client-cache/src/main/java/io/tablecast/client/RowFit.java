package io.tablecast.client;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether a typed mirror's rows still fit its row type: the reasons, found on the client, for which
 * its values may differ from the table although the server follows it.
 *
 * <ul>
 *   <li>A property of the row type that a column provided when the mirror first got its columns and
 *       no column provides any more (the column was renamed or dropped while serving): from then on
 *       it reads null (or its default) in every row mapped. A property that had no column from the
 *       start is the row type's own choice (logged once, not a misfit).
 *   <li>Rows that could not be mapped (a column's type changed to one the property cannot take):
 *       the mirror keeps their previous value, or lacks them, until a later change of the same row
 *       maps.
 * </ul>
 *
 * Event loop only, except {@link #reason()}.
 */
final class RowFit {

  private final String table;
  private final String typeName;

  /** The properties the row type reads, by their JSON names; null for a generic mirror. */
  private final Set<String> properties;

  /** Properties without a column when the mirror first got its columns; null before. */
  private Set<String> missingAtStart;

  private List<String> lostColumns = List.of();
  private final Map<Object, String> unmappable = new LinkedHashMap<>();
  private volatile String reason;

  private RowFit(String table, String typeName, Set<String> properties) {
    this.table = table;
    this.typeName = typeName;
    this.properties = properties;
  }

  /** For a mirror of generic rows (every column fits a map). */
  static RowFit generic(String table) {
    return new RowFit(table, "Map", null);
  }

  /** For a mirror of {@code rowType}, reading the properties {@code mapper} would set. */
  static RowFit typed(String table, Class<?> rowType, ObjectMapper mapper) {
    Set<String> names = new LinkedHashSet<>();
    try {
      BeanDescription d =
          mapper.getDeserializationConfig().introspect(mapper.constructType(rowType));
      for (BeanPropertyDefinition p : d.findProperties()) {
        if (p.couldDeserialize()) {
          names.add(p.getName());
        }
      }
    } catch (RuntimeException e) {
      return generic(table); // a type Jackson cannot describe: its rows' mapping errors still tell
    }
    return new RowFit(table, rowType.getSimpleName(), names);
  }

  /**
   * The table's columns are now {@code columns}; returns the properties of the row type no column
   * provides, when that is news to log at the first columns (null otherwise).
   */
  List<String> columns(List<Column> columns) {
    if (properties == null || columns.isEmpty()) {
      return null;
    }
    Set<String> have = new HashSet<>();
    columns.forEach(c -> have.add(c.name()));
    Set<String> missing = new LinkedHashSet<>(properties);
    missing.removeAll(have);
    if (missingAtStart == null) {
      missingAtStart = missing;
      return missing.isEmpty() ? null : List.copyOf(missing);
    }
    List<String> lost = new ArrayList<>(missing);
    lost.removeAll(missingAtStart);
    lostColumns = lost;
    update();
    return null;
  }

  /** The row of {@code key} mapped (or was deleted): it is right again. */
  void mapped(Object key) {
    if (!unmappable.isEmpty() && unmappable.remove(key) != null) {
      update();
    }
  }

  /** The row of {@code key} could not be mapped, for {@code error}. */
  void failed(Object key, String error) {
    if (unmappable.put(key, error) == null) {
      update();
    }
  }

  /** A snapshot replaces every row: only its own failures count from now on. */
  void replacingAll() {
    unmappable.clear();
    update();
  }

  /** Why the rows may not fit, or null. Any thread. */
  String reason() {
    return reason;
  }

  private void update() {
    List<String> parts = new ArrayList<>(2);
    if (!lostColumns.isEmpty()) {
      parts.add(
          "the columns of "
              + table
              + " changed and no column provides "
              + typeName
              + "'s "
              + (lostColumns.size() == 1 ? "property " : "properties ")
              + String.join(", ", lostColumns)
              + " any more: it reads null (or its default) in every row mapped since; change the row type to the "
              + "table's new columns");
    }
    if (!unmappable.isEmpty()) {
      Map.Entry<Object, String> first = unmappable.entrySet().iterator().next();
      parts.add(
          unmappable.size()
              + (unmappable.size() == 1 ? " row" : " rows")
              + " of "
              + table
              + " could not be mapped to "
              + typeName
              + " (first: key "
              + first.getKey()
              + ": "
              + first.getValue()
              + "); the mirror keeps their previous values or lacks them");
    }
    reason = parts.isEmpty() ? null : String.join("; ", parts);
  }
}

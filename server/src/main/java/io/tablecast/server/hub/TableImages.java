package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import io.tablecast.server.auth.SessionPolicy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The images of the cached tables by qualified name, and what a session may see of a batch of
 * their changes. Hub thread only.
 */
final class TableImages {

  /** Most table names an {@code UNKNOWN_TABLE} error lists. */
  static final int MAX_NAMES_IN_ERRORS = 20;

  private final Map<String, TableImage> images = new LinkedHashMap<>();

  void replaceAll(Collection<TableImage> loaded) {
    images.clear();
    for (TableImage image : loaded) {
      images.put(image.name(), image);
    }
  }

  TableImage get(String name) {
    return images.get(name);
  }

  void put(TableImage image) {
    images.put(image.name(), image);
  }

  List<String> names() {
    return new ArrayList<>(images.keySet());
  }

  /**
   * The cached tables {@code policy} may read, for an error message: never a name outside the
   * principal's allow-list, and at most {@link #MAX_NAMES_IN_ERRORS} of them.
   */
  String readableNames(SessionPolicy policy) {
    List<String> names = new ArrayList<>();
    int more = 0;
    for (String name : images.keySet()) {
      if (policy.allowsTable(name)) {
        if (names.size() < MAX_NAMES_IN_ERRORS) {
          names.add(name);
        } else {
          more++;
        }
      }
    }
    return names + (more > 0 ? " and " + more + " more" : "");
  }

  /** The changes of {@code tables} as {@code policy} lets a session see them. */
  List<Message.Change> visible(List<Message.Change> changes, Set<String> tables, SessionPolicy policy) {
    return PolicyFilter.apply(policy, filter(changes, tables), this::primaryKeyOf);
  }

  List<String> primaryKeyOf(String table) {
    TableImage image = images.get(table);
    return image == null ? List.of() : image.schema().primaryKey();
  }

  /** The primary keys of {@code tables}, as an immutable map another thread may read. */
  Map<String, List<String>> primaryKeys(Collection<String> tables) {
    Map<String, List<String>> out = new HashMap<>();
    for (String t : tables) {
      out.put(t, primaryKeyOf(t));
    }
    return Map.copyOf(out);
  }

  static List<Message.Change> filter(List<Message.Change> changes, Set<String> tables) {
    List<Message.Change> mine = new ArrayList<>();
    for (Message.Change c : changes) {
      if (tables.contains(c.table())) {
        mine.add(c);
      }
    }
    return mine.size() == changes.size() ? changes : mine;
  }
}

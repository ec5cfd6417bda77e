package io.tablecast.server.image;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The images of the cached tables by qualified name, and which of them are invalid: an image that
 * could not take an event may differ from its table until the table is read whole again ({@link
 * TableReads}). Hub thread only.
 */
public final class TableImages {

  /** Most table names an {@code UNKNOWN_TABLE} error lists. */
  static final int MAX_NAMES_IN_ERRORS = 20;

  private final Map<String, TableImage> images = new LinkedHashMap<>();
  private final Set<String> invalid = new HashSet<>();

  /** Replaces every image by {@code loaded} (a new snapshot): all valid. */
  public void replaceAll(Collection<TableImage> loaded) {
    images.clear();
    invalid.clear();
    for (TableImage image : loaded) {
      images.put(image.name(), image);
    }
  }

  /** The image of the table named {@code name}, or null when it is not cached. */
  public TableImage get(String name) {
    return images.get(name);
  }

  void put(TableImage image) {
    images.put(image.name(), image);
  }

  /**
   * Marks the image of {@code table} invalid: it could not take an event, so it may differ from the
   * table until a whole read of the table is compared with it.
   *
   * @return true when it was valid until now
   */
  public boolean invalidate(String table) {
    return invalid.add(table);
  }

  /** Whether the image of {@code table} is invalid (see {@link #invalidate}). */
  public boolean isInvalid(String table) {
    return invalid.contains(table);
  }

  /** A whole read of {@code table} was compared with its image: the differences make it valid. */
  void validated(String table) {
    invalid.remove(table);
  }

  /** The names of the cached tables, in snapshot order. */
  public List<String> names() {
    return new ArrayList<>(images.keySet());
  }

  /**
   * The cached tables {@code readable} accepts, for an error message: never a name outside the
   * principal's allow-list, and at most {@link #MAX_NAMES_IN_ERRORS} of them.
   */
  public String readableNames(Predicate<String> readable) {
    List<String> names = new ArrayList<>();
    int more = 0;
    for (String name : images.keySet()) {
      if (readable.test(name)) {
        if (names.size() < MAX_NAMES_IN_ERRORS) {
          names.add(name);
        } else {
          more++;
        }
      }
    }
    return names + (more > 0 ? " and " + more + " more" : "");
  }

  /** The primary key of {@code table}; empty when it is not cached. */
  public List<String> primaryKeyOf(String table) {
    TableImage image = images.get(table);
    return image == null ? List.of() : image.schema().primaryKey();
  }

  /** The primary keys of {@code tables}, as an immutable map another thread may read. */
  public Map<String, List<String>> primaryKeys(Collection<String> tables) {
    Map<String, List<String>> out = new HashMap<>();
    for (String t : tables) {
      out.put(t, primaryKeyOf(t));
    }
    return Map.copyOf(out);
  }
}

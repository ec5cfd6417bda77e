package io.tablecast.server.capture;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The registered {@link DatabaseFamily database families}, in the order of {@code
 * META-INF/services/io.tablecast.server.capture.DatabaseFamily}: the one place that lists them, so
 * that no shared package imports a family's package.
 */
final class Dialects {
  private static final List<DatabaseFamily> FAMILIES = load();

  private Dialects() {}

  private static List<DatabaseFamily> load() {
    List<DatabaseFamily> out = new ArrayList<>();
    ServiceLoader.load(DatabaseFamily.class, DatabaseFamily.class.getClassLoader())
        .forEach(out::add);
    if (out.isEmpty()) {
      throw new IllegalStateException(
          "no database family is registered in "
              + "META-INF/services/io.tablecast.server.capture.DatabaseFamily");
    }
    return List.copyOf(out);
  }

  /** Every registered family. */
  static List<DatabaseFamily> all() {
    return FAMILIES;
  }

  /**
   * The family serving {@code jdbcUrl}.
   *
   * @throws IllegalArgumentException naming the URL and every prefix a family serves
   */
  static DatabaseFamily forUrl(String jdbcUrl) {
    List<String> prefixes = new ArrayList<>();
    for (DatabaseFamily f : FAMILIES) {
      for (String prefix : f.urlPrefixes()) {
        if (jdbcUrl.startsWith(prefix)) {
          return f;
        }
        prefixes.add(prefix);
      }
    }
    String last = prefixes.remove(prefixes.size() - 1);
    throw new IllegalArgumentException(
        "source.jdbc_url must start with "
            + (prefixes.isEmpty() ? "" : String.join(", ", prefixes) + " or ")
            + last
            + ", was '"
            + jdbcUrl
            + "'");
  }
}

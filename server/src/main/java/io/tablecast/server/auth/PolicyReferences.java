package io.tablecast.server.auth;

import io.tablecast.server.config.ConfigProblems;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What an access policy names that the cached tables do not have: a table of {@code tables} that is
 * not cached (misspelt, or cached by another server), a column of {@code columns} that none of the
 * tables it may read has, a {@code row_filter} column that some of them lack. Each is warned of at
 * start, naming the policy and what was meant when it is spelt alike: before, the first told only
 * its clients ({@code ACCESS_DENIED}), the second nobody (the column was simply never sent), the
 * third each client at subscribe. Warned, not refused: several servers may share one {@code auth}
 * section and cache different tables.
 */
final class PolicyReferences {

  private PolicyReferences() {}

  /**
   * The warnings for {@code policy}, called {@code name} in them, against the cached tables'
   * columns by qualified name.
   */
  static List<String> of(String name, AccessPolicy policy, Map<String, Set<String>> tables) {
    List<String> warnings = new ArrayList<>();
    List<String> readable = new ArrayList<>();
    if (policy.tables() == null) {
      readable.addAll(tables.keySet());
    } else {
      for (String table : new TreeSet<>(policy.tables())) {
        if (tables.containsKey(table)) {
          readable.add(table);
        } else {
          warnings.add(
              name
                  + " may read "
                  + table
                  + ", which this server does not cache"
                  + meant(table, tables.keySet())
                  + ": its sessions are refused it (cached: "
                  + new TreeSet<>(tables.keySet())
                  + ")");
        }
      }
    }
    Set<String> columns = new TreeSet<>();
    readable.forEach(t -> columns.addAll(tables.get(t)));
    if (policy.columns() != null && !readable.isEmpty()) {
      for (String column : new TreeSet<>(policy.columns())) {
        if (!columns.contains(column)) {
          warnings.add(
              name
                  + " may see column '"
                  + column
                  + "', which none of the tables it may read has"
                  + meant(column, columns)
                  + ": it is never sent");
        }
      }
    }
    if (policy.rowFilter() != null) {
      String column = policy.rowFilter().column();
      List<String> lacking = new ArrayList<>();
      for (String table : readable) {
        if (!tables.get(table).contains(column)) {
          lacking.add(table);
        }
      }
      if (!lacking.isEmpty()) {
        warnings.add(
            name
                + ": its row_filter reads column '"
                + column
                + "', which "
                + String.join(", ", lacking)
                + (lacking.size() == 1 ? " does" : " do")
                + " not have: its sessions are refused "
                + (lacking.size() == 1 ? "it" : "them"));
      }
    }
    return warnings;
  }

  private static String meant(String name, Collection<String> known) {
    String closest = ConfigProblems.closest(name, known);
    return closest == null ? "" : " (did you mean " + closest + "?)";
  }
}

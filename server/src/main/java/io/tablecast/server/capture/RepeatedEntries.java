package io.tablecast.server.capture;

import java.util.HashMap;
import java.util.Map;

/**
 * {@code cached_tables} entries that name a table an earlier entry named (as written or once
 * resolved: {@code items} and {@code public.items}). The table is cached once, by the first entry;
 * a later one with other columns is an error, since it would be ignored (before, without a word),
 * and one with the same columns a warning. Not thread-safe.
 */
final class RepeatedEntries {
  private final Map<String, CachedTable> first = new HashMap<>();

  /**
   * Null when {@code entry} is the first to name {@code table}; otherwise what to say of it.
   *
   * @param table the table {@code entry} names, resolved
   */
  CaptureFinding repeated(TableId table, CachedTable entry) {
    CachedTable earlier = first.putIfAbsent(table.qualified(), entry);
    if (earlier == null) {
      return null;
    }
    String both = "cached_tables names it twice (" + earlier + " and " + entry + ")";
    return earlier.choice("").equals(entry.choice(""))
        ? CaptureFinding.warn(table.qualified(), both + "; it is cached once")
        : CaptureFinding.error(
            table.qualified(),
            both
                + " with other columns, and only the first would be cached: list it once, with"
                + " the columns to cache");
  }
}

package io.tablecast.server.auth;

import java.util.List;
import java.util.Set;

/**
 * What a principal may read, as configured: a table allow-list, a row filter and a column
 * allow-list, each optional. {@link #resolve(Principal)} turns it into the {@link SessionPolicy} of
 * one session (the filter's claim replaced by its value).
 *
 * @param tables qualified table names the principal may subscribe to; null = every cached table
 * @param rowFilter rows the principal may see; null = every row
 * @param columns columns the principal may see (primary-key columns are always sent, since the
 *     protocol addresses rows by key); null = every column
 */
public record AccessPolicy(Set<String> tables, RowFilter rowFilter, Set<String> columns) {

  /** Every table, row and column. */
  public static final AccessPolicy ALLOW_ALL = new AccessPolicy(null, null, null);

  public AccessPolicy {
    tables = tables == null ? null : Set.copyOf(tables);
    columns = columns == null ? null : Set.copyOf(columns);
  }

  /**
   * The policy of one session of {@code principal}.
   *
   * @throws AuthenticationException when the row filter names a claim the principal lacks
   */
  public SessionPolicy resolve(Principal principal) {
    if (rowFilter == null) {
      return new SessionPolicy(tables, null, null, columns);
    }
    return new SessionPolicy(tables, rowFilter.column(), rowFilter.valueFor(principal), columns);
  }

  /** For logs: {@code tables=[...], row_filter=..., columns=[...]}. */
  @Override
  public String toString() {
    return "tables="
        + (tables == null ? "all" : List.copyOf(tables))
        + ", row_filter="
        + (rowFilter == null ? "none" : rowFilter)
        + ", columns="
        + (columns == null ? "all" : List.copyOf(columns));
  }
}

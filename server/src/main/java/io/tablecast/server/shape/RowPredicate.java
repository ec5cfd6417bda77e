package io.tablecast.server.shape;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.protocol.ColumnKind;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A client's row filter for one table, as the server's own tree ({@link FilterParser} builds it; it
 * is never turned into SQL). A row is tested with SQL's three-valued logic: a comparison with a
 * NULL is unknown ({@code null}), {@code NOT} unknown is unknown, and a row matches only when the
 * whole filter is {@code TRUE}. Values are compared by the column's kind ({@link Comparison}).
 * Immutable; equal filters are equal trees.
 */
public sealed interface RowPredicate {

  /**
   * TRUE, FALSE, or null when unknown, for the row whose column values {@code row} gives (the JSON
   * form of {@code docs/TYPES.md}; JSON null or Java null for NULL), against the other tables as
   * they are now.
   */
  default Boolean test(Function<String, JsonNode> row) {
    return test(row, false);
  }

  /**
   * As {@link #test(Function)}; {@code before}: against the other tables as they were before the
   * batch being sent (a subquery's rows), for the image of a row before that batch.
   */
  Boolean test(Function<String, JsonNode> row, boolean before);

  /** Whether the row matches: the filter is TRUE for it. */
  default boolean matches(Function<String, JsonNode> row) {
    return Boolean.TRUE.equals(test(row, false));
  }

  /** Whether the row matched before the batch being sent (see {@link #test(Function, boolean)}). */
  default boolean matchedBefore(Function<String, JsonNode> row) {
    return Boolean.TRUE.equals(test(row, true));
  }

  /** The subqueries of the filter, in order. */
  default List<InSubquery> subqueries() {
    List<InSubquery> out = new java.util.ArrayList<>();
    addSubqueries(out);
    return out;
  }

  /** Adds the filter's subqueries to {@code out}. */
  default void addSubqueries(List<InSubquery> out) {}

  /** Whether the filter has a subquery (reads another table); allocates nothing. */
  default boolean readsOtherTables() {
    return false;
  }

  /** The columns the filter reads. */
  default Set<String> columns() {
    Set<String> out = new TreeSet<>();
    addColumns(out);
    return out;
  }

  /** Adds the columns the filter reads to {@code out}. */
  void addColumns(Set<String> out);

  /**
   * The kinds the filter took its columns' values as, when it parsed them against the table: a
   * comparison compares by it. Columns read only by {@code IS NULL} are not in it (any kind will
   * do).
   */
  default Map<String, ColumnKind> columnKinds() {
    Map<String, ColumnKind> out = new TreeMap<>();
    addColumnKinds(out);
    return out;
  }

  /** Adds the kinds of {@link #columnKinds()} to {@code out}. */
  default void addColumnKinds(Map<String, ColumnKind> out) {}

  /** AND or OR of terms: the columns, kinds and subqueries it reads are its terms'. */
  sealed interface Junction extends RowPredicate {
    List<RowPredicate> terms();

    @Override
    default boolean readsOtherTables() {
      return terms().stream().anyMatch(RowPredicate::readsOtherTables);
    }

    @Override
    default void addColumns(Set<String> out) {
      terms().forEach(t -> t.addColumns(out));
    }

    @Override
    default void addColumnKinds(Map<String, ColumnKind> out) {
      terms().forEach(t -> t.addColumnKinds(out));
    }

    @Override
    default void addSubqueries(List<InSubquery> out) {
      terms().forEach(t -> t.addSubqueries(out));
    }
  }

  /** Every term TRUE; FALSE when one is; else unknown. */
  record And(List<RowPredicate> terms) implements Junction {
    public And {
      terms = List.copyOf(terms);
    }

    @Override
    public Boolean test(Function<String, JsonNode> row, boolean before) {
      return decide(terms, row, before, false);
    }
  }

  /** One term TRUE; FALSE when every one is; else unknown. */
  record Or(List<RowPredicate> terms) implements Junction {
    public Or {
      terms = List.copyOf(terms);
    }

    @Override
    public Boolean test(Function<String, JsonNode> row, boolean before) {
      return decide(terms, row, before, true);
    }
  }

  /**
   * {@code decisive} when a term is (OR: TRUE, AND: FALSE), else unknown when a term is, else the
   * opposite of {@code decisive}.
   */
  private static Boolean decide(
      List<RowPredicate> terms, Function<String, JsonNode> row, boolean before, boolean decisive) {
    boolean unknown = false;
    for (RowPredicate t : terms) {
      Boolean b = t.test(row, before);
      if (b != null && b == decisive) {
        return decisive;
      }
      unknown |= b == null;
    }
    return unknown ? null : !decisive;
  }

  /** The opposite of the term; unknown stays unknown. */
  record Not(RowPredicate term) implements RowPredicate {
    @Override
    public Boolean test(Function<String, JsonNode> row, boolean before) {
      Boolean b = term.test(row, before);
      return b == null ? null : !b;
    }

    @Override
    public void addColumns(Set<String> out) {
      term.addColumns(out);
    }

    @Override
    public void addColumnKinds(Map<String, ColumnKind> out) {
      term.addColumnKinds(out);
    }

    @Override
    public void addSubqueries(List<InSubquery> out) {
      term.addSubqueries(out);
    }

    @Override
    public boolean readsOtherTables() {
      return term.readsOtherTables();
    }
  }

  /** {@code column IS NULL} (or {@code IS NOT NULL} when {@code negated}): never unknown. */
  record IsNull(String column, boolean negated) implements RowPredicate {
    @Override
    public Boolean test(Function<String, JsonNode> row, boolean before) {
      JsonNode v = row.apply(column);
      return (v == null || v.isNull()) != negated;
    }

    @Override
    public void addColumns(Set<String> out) {
      out.add(column);
    }
  }

  /**
   * {@code column op value}, or {@code column IN (values)} as {@link Comparison.Op#IN}: the
   * column's value against literals already converted to its kind.
   */
  record Compare(Comparison comparison) implements RowPredicate {
    @Override
    public Boolean test(Function<String, JsonNode> row, boolean before) {
      return comparison.test(row.apply(comparison.column()));
    }

    @Override
    public void addColumns(Set<String> out) {
      out.add(comparison.column());
    }

    @Override
    public void addColumnKinds(Map<String, ColumnKind> out) {
      out.put(comparison.column(), comparison.kind());
    }
  }

  /**
   * {@code column IN (SELECT parentColumn FROM parentTable WHERE filter)}: whether the column's
   * value is among the values the other table's matching rows hold now ({@link Membership}, kept by
   * the server as that table changes). A NULL is unknown; NULLs of the other table are in no set.
   *
   * @param column the column of this table
   * @param kind its kind
   * @param subquery what the other table is asked
   * @param membership the values it gives, bound by the server; null while unbound
   */
  record InSubquery(String column, ColumnKind kind, Subquery subquery, Membership membership)
      implements RowPredicate {
    @Override
    public Boolean test(Function<String, JsonNode> row, boolean before) {
      JsonNode v = row.apply(column);
      Comparable<?> value = v == null || v.isNull() ? null : Comparison.valueOf(kind, v);
      if (value == null) {
        return null;
      }
      return membership.contains(value, before);
    }

    @Override
    public void addColumns(Set<String> out) {
      out.add(column);
    }

    @Override
    public void addColumnKinds(Map<String, ColumnKind> out) {
      out.put(column, kind);
    }

    @Override
    public void addSubqueries(List<InSubquery> out) {
      out.add(this);
    }

    @Override
    public boolean readsOtherTables() {
      return true;
    }
  }

  /**
   * One level of subquery over another table: its column of the rows its filter lets through.
   *
   * @param table the other table (qualified)
   * @param column the column whose values it gives
   * @param kind that column's kind
   * @param filter its rows, or null for all (no subquery inside)
   */
  record Subquery(String table, String column, ColumnKind kind, RowPredicate filter) {}

  /** The values a subquery gives, now and before the batch being sent. */
  interface Membership {
    /** Whether {@code value} (of the subquery column's kind family) is among them. */
    boolean contains(Comparable<?> value, boolean before);
  }
}

package io.tablecast.server.shape;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Set;
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
   * form of {@code docs/TYPES.md}; JSON null or Java null for NULL).
   */
  Boolean test(Function<String, JsonNode> row);

  /** Whether the row matches: the filter is TRUE for it. */
  default boolean matches(Function<String, JsonNode> row) {
    return Boolean.TRUE.equals(test(row));
  }

  /** The columns the filter reads. */
  default Set<String> columns() {
    Set<String> out = new TreeSet<>();
    addColumns(out);
    return out;
  }

  /** Adds the columns the filter reads to {@code out}. */
  void addColumns(Set<String> out);

  /** Every term TRUE; FALSE when one is; else unknown. */
  record And(List<RowPredicate> terms) implements RowPredicate {
    public And {
      terms = List.copyOf(terms);
    }

    @Override
    public Boolean test(Function<String, JsonNode> row) {
      boolean unknown = false;
      for (RowPredicate t : terms) {
        Boolean b = t.test(row);
        if (Boolean.FALSE.equals(b)) {
          return false;
        }
        unknown |= b == null;
      }
      return unknown ? null : Boolean.TRUE;
    }

    @Override
    public void addColumns(Set<String> out) {
      terms.forEach(t -> t.addColumns(out));
    }
  }

  /** One term TRUE; FALSE when every one is; else unknown. */
  record Or(List<RowPredicate> terms) implements RowPredicate {
    public Or {
      terms = List.copyOf(terms);
    }

    @Override
    public Boolean test(Function<String, JsonNode> row) {
      boolean unknown = false;
      for (RowPredicate t : terms) {
        Boolean b = t.test(row);
        if (Boolean.TRUE.equals(b)) {
          return true;
        }
        unknown |= b == null;
      }
      return unknown ? null : Boolean.FALSE;
    }

    @Override
    public void addColumns(Set<String> out) {
      terms.forEach(t -> t.addColumns(out));
    }
  }

  /** The opposite of the term; unknown stays unknown. */
  record Not(RowPredicate term) implements RowPredicate {
    @Override
    public Boolean test(Function<String, JsonNode> row) {
      Boolean b = term.test(row);
      return b == null ? null : !b;
    }

    @Override
    public void addColumns(Set<String> out) {
      term.addColumns(out);
    }
  }

  /** {@code column IS NULL} (or {@code IS NOT NULL} when {@code negated}): never unknown. */
  record IsNull(String column, boolean negated) implements RowPredicate {
    @Override
    public Boolean test(Function<String, JsonNode> row) {
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
    public Boolean test(Function<String, JsonNode> row) {
      return comparison.test(row.apply(comparison.column()));
    }

    @Override
    public void addColumns(Set<String> out) {
      out.add(comparison.column());
    }
  }
}

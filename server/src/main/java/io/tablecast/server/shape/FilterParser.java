package io.tablecast.server.shape;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.shape.Comparison.Op;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Parses a client's row filter for one table into a {@link RowPredicate}, checked against the
 * table's columns: the language is a small part of SQL's {@code WHERE},
 *
 * <pre>
 * filter     := or
 * or         := and ( OR and )*
 * and        := not ( AND not )*
 * not        := NOT not | '(' filter ')' | condition
 * condition  := column ( '=' | '&lt;&gt;' | '!=' | '&lt;' | '&lt;=' | '&gt;' | '&gt;=' ) value
 *             | column [ NOT ] IN '(' value ( ',' value )* ')'
 *             | column IN '(' SELECT column FROM table [ WHERE filter ] ')'
 *             | column IS [ NOT ] NULL
 * value      := number | 'text' ('' for a quote) | TRUE | FALSE | ? (the next parameter) | $n
 * column     := name | "name"
 * </pre>
 *
 * keywords in any case; a subquery reads another cached table ({@link Tables}) and holds none of
 * its own. Values are bound parameters or literals, converted to the column's kind here ({@link
 * Comparison}); nothing of the text reaches SQL. A filter that cannot be used (a syntax error, an
 * unknown column, a value of the wrong kind, a missing parameter) or that costs too much ({@link
 * #MAX_LENGTH} characters, {@link #MAX_CONDITIONS} conditions, {@link #MAX_IN_VALUES} values in one
 * {@code IN}, {@link #MAX_DEPTH} levels of nesting) is a {@link FilterException} naming the
 * position.
 */
public final class FilterParser {

  /** Characters a filter may have. */
  public static final int MAX_LENGTH = 4_096;

  /** Conditions a filter may have. */
  public static final int MAX_CONDITIONS = 64;

  /** Values one {@code IN} may list. */
  public static final int MAX_IN_VALUES = 1_000;

  /** Levels of nesting (parentheses, {@code NOT}) a filter may have. */
  public static final int MAX_DEPTH = 32;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final TokenCursor tokens;
  private final List<?> params;
  private Map<String, ColumnKind> columns;
  private final Tables tables;
  private boolean inSubquery;
  private int nextParam;
  private int conditions;
  private int depth;

  private FilterParser(
      String text, List<?> params, Map<String, ColumnKind> columns, Tables tables) {
    this.tokens = new TokenCursor(text);
    this.params = params;
    this.columns = columns;
    this.tables = tables;
  }

  /** What a filter's subqueries may read of the other cached tables. */
  public interface Tables {
    /**
     * The columns of {@code table} (qualified) the session may read, by name with their kinds; null
     * when it is not cached or the session may not read it.
     *
     * @throws IllegalArgumentException saying why none of its rows could be read, when it is cached
     *     and allowed but its rows cannot be
     */
    Map<String, ColumnKind> columns(String table);

    /** The values {@code subquery} gives, kept current as its table changes. */
    RowPredicate.Membership membership(RowPredicate.Subquery subquery);
  }

  /** As {@link #parse(String, List, Map, Tables)}, without subqueries. */
  public static RowPredicate parse(String text, List<?> params, Map<String, ColumnKind> columns) {
    return parse(text, params, columns, null);
  }

  /**
   * The filter {@code text} with {@code params} bound, for a table with {@code columns} (name to
   * kind).
   *
   * @throws FilterException saying what is wrong and where
   */
  public static RowPredicate parse(
      String text, List<?> params, Map<String, ColumnKind> columns, Tables tables) {
    if (text == null || text.isBlank()) {
      throw new FilterException("the filter is empty", 0);
    }
    if (text.length() > MAX_LENGTH) {
      throw new FilterException(
          "the filter has " + text.length() + " characters, at most " + MAX_LENGTH + " are taken",
          MAX_LENGTH + 1);
    }
    FilterParser p = new FilterParser(text, params == null ? List.of() : params, columns, tables);
    RowPredicate filter = p.or();
    if (p.tokens.peek().kind() != FilterTokens.Kind.END) {
      throw p.tokens.error("expected AND, OR or the end of the filter", p.tokens.peek());
    }
    if (p.nextParam != p.params.size()) {
      throw new FilterException(
          "the filter uses " + p.nextParam + " parameters, " + p.params.size() + " were given", 0);
    }
    return filter;
  }

  private RowPredicate or() {
    List<RowPredicate> terms = new ArrayList<>();
    terms.add(and());
    while (tokens.keyword("OR")) {
      terms.add(and());
    }
    return terms.size() == 1 ? terms.get(0) : new RowPredicate.Or(terms);
  }

  private RowPredicate and() {
    List<RowPredicate> terms = new ArrayList<>();
    terms.add(not());
    while (tokens.keyword("AND")) {
      terms.add(not());
    }
    return terms.size() == 1 ? terms.get(0) : new RowPredicate.And(terms);
  }

  private RowPredicate not() {
    FilterTokens.Token t = tokens.peek();
    if (++depth > MAX_DEPTH) {
      throw tokens.error("the filter nests more than " + MAX_DEPTH + " levels", t);
    }
    try {
      if (tokens.keyword("NOT")) {
        return new RowPredicate.Not(not());
      }
      if (t.kind() == FilterTokens.Kind.LEFT) {
        tokens.skip();
        RowPredicate inner = or();
        tokens.expect(FilterTokens.Kind.RIGHT, "')'");
        return inner;
      }
      return condition();
    } finally {
      depth--;
    }
  }

  private RowPredicate condition() {
    FilterTokens.Token name = tokens.peek();
    if (name.kind() != FilterTokens.Kind.NAME && name.kind() != FilterTokens.Kind.QUOTED_NAME) {
      throw tokens.error("expected a column, NOT or '('", name);
    }
    tokens.skip();
    if (++conditions > MAX_CONDITIONS) {
      throw tokens.error("the filter has more than " + MAX_CONDITIONS + " conditions", name);
    }
    String column = name.text();
    ColumnKind kind = columns.get(column);
    if (kind == null) {
      throw tokens.error("no column '" + column + "'; the table has " + columns.keySet(), name);
    }
    if (tokens.keyword("IS")) {
      boolean negated = tokens.keyword("NOT");
      if (!tokens.keyword("NULL")) {
        throw tokens.error("expected NULL or NOT NULL after IS", tokens.peek());
      }
      return new RowPredicate.IsNull(column, negated);
    }
    if (!Comparison.filterable(kind)) {
      throw tokens.error(
          "column '" + column + "' is " + kind + ": only IS NULL and IS NOT NULL apply to it",
          name);
    }
    boolean notIn = tokens.keyword("NOT");
    if (tokens.keyword("IN")) {
      return in(column, kind, notIn);
    }
    if (notIn) {
      throw tokens.error("expected IN after NOT", tokens.peek());
    }
    FilterTokens.Token op = tokens.peek();
    if (op.kind() != FilterTokens.Kind.OPERATOR) {
      throw tokens.error(
          "expected an operator (=, <>, <, <=, >, >=), IN or IS after " + column, op);
    }
    tokens.skip();
    Op operator = operator(op);
    if (!Comparison.applies(operator, kind)) {
      throw tokens.error("a " + kind + " column takes = and <> only, not " + op.text(), op);
    }
    Comparable<?> value = value(column, kind);
    return new RowPredicate.Compare(new Comparison(column, kind, operator, List.of(value)));
  }

  private RowPredicate in(String column, ColumnKind kind, boolean negated) {
    tokens.expect(FilterTokens.Kind.LEFT, "'(' after IN");
    FilterTokens.Token select = tokens.peek();
    if (tokens.keyword("SELECT")) {
      if (negated) {
        throw tokens.error(
            "NOT IN (SELECT ...) is not supported (a NULL among the values makes it never true):"
                + " write NOT ("
                + column
                + " IN (SELECT ...)) only if that is what you mean",
            select);
      }
      return subquery(column, kind, select);
    }
    List<Comparable<?>> values = new ArrayList<>();
    do {
      if (values.size() == MAX_IN_VALUES) {
        throw tokens.error("an IN lists more than " + MAX_IN_VALUES + " values", tokens.peek());
      }
      values.add(value(column, kind));
    } while (tokens.accept(FilterTokens.Kind.COMMA));
    tokens.expect(FilterTokens.Kind.RIGHT, "',' or ')'");
    RowPredicate in = new RowPredicate.Compare(new Comparison(column, kind, Op.IN, values));
    return negated ? new RowPredicate.Not(in) : in;
  }

  /** {@code SELECT column FROM table [WHERE filter] )}, after the {@code SELECT}. */
  private RowPredicate subquery(String column, ColumnKind kind, FilterTokens.Token select) {
    if (inSubquery) {
      throw tokens.error("a subquery inside a subquery: one level is supported", select);
    }
    if (tables == null) {
      throw tokens.error("subqueries are not available here", select);
    }
    FilterTokens.Token parentColumn = tokens.peek();
    if (parentColumn.kind() != FilterTokens.Kind.NAME
        && parentColumn.kind() != FilterTokens.Kind.QUOTED_NAME) {
      throw tokens.error("expected the column the subquery selects", parentColumn);
    }
    tokens.skip();
    if (!tokens.keyword("FROM")) {
      throw tokens.error("expected FROM", tokens.peek());
    }
    FilterTokens.Token at = tokens.peek();
    String table = tableName();
    Map<String, ColumnKind> parentColumns = tables.columns(table);
    if (parentColumns == null) {
      throw tokens.error("no cached table '" + table + "' this session may read", at);
    }
    ColumnKind parentKind = parentColumns.get(parentColumn.text());
    if (parentKind == null) {
      throw tokens.error(
          "no column '"
              + parentColumn.text()
              + "' in "
              + table
              + "; it has "
              + parentColumns.keySet(),
          parentColumn);
    }
    if (!FilterValues.comparable(kind, parentKind)) {
      throw tokens.error(
          column
              + " is "
              + kind
              + " and "
              + table
              + "."
              + parentColumn.text()
              + " is "
              + parentKind
              + ": their values cannot be compared",
          parentColumn);
    }
    RowPredicate filter = null;
    if (tokens.keyword("WHERE")) {
      Map<String, ColumnKind> own = columns;
      columns = parentColumns;
      inSubquery = true;
      try {
        filter = or();
      } finally {
        columns = own;
        inSubquery = false;
      }
    }
    tokens.expect(FilterTokens.Kind.RIGHT, "')' to end the subquery");
    RowPredicate.Subquery subquery =
        new RowPredicate.Subquery(table, parentColumn.text(), parentKind, filter);
    return new RowPredicate.InSubquery(column, kind, subquery, tables.membership(subquery));
  }

  /** A table name: {@code name}, {@code schema.name}, quoted parts allowed. */
  private String tableName() {
    StringBuilder name = new StringBuilder();
    do {
      FilterTokens.Token part = tokens.peek();
      if (part.kind() != FilterTokens.Kind.NAME && part.kind() != FilterTokens.Kind.QUOTED_NAME) {
        throw tokens.error("expected a table name", part);
      }
      tokens.skip();
      name.append(name.length() > 0 ? "." : "").append(part.text());
    } while (tokens.accept(FilterTokens.Kind.DOT));
    return name.toString();
  }

  private static Op operator(FilterTokens.Token op) {
    return switch (op.text()) {
      case "=" -> Op.EQ;
      case "<>", "!=" -> Op.NE;
      case "<" -> Op.LT;
      case "<=" -> Op.LE;
      case ">" -> Op.GT;
      case ">=" -> Op.GE;
      default -> throw new AssertionError("the tokenizer reads no other operator: " + op.text());
    };
  }

  /** A literal or parameter, converted to {@code kind}. */
  private Comparable<?> value(String column, ColumnKind kind) {
    FilterTokens.Token t = tokens.peek();
    tokens.skip();
    JsonNode node;
    String what;
    switch (t.kind()) {
      case NUMBER -> {
        node = NODES.numberNode(new BigDecimal(t.text()));
        what = "the number " + t.text();
      }
      case STRING -> {
        node = NODES.textNode(t.text());
        what = "the text '" + t.text() + "'";
      }
      case NAME -> {
        String word = t.text().toUpperCase(Locale.ROOT);
        if (word.equals("TRUE") || word.equals("FALSE")) {
          node = NODES.booleanNode(word.equals("TRUE"));
          what = word;
        } else if (word.equals("NULL")) {
          throw tokens.error(
              "a comparison with NULL is never true: write " + column + " IS NULL", t);
        } else {
          throw tokens.error("expected a value, found the name " + t.text(), t);
        }
      }
      case PARAMETER -> {
        int index = t.text().equals("?") ? nextParam++ : Integer.parseInt(t.text()) - 1;
        if (!t.text().equals("?")) {
          nextParam = Math.max(nextParam, index + 1);
        }
        if (index < 0 || index >= params.size()) {
          throw tokens.error(
              "parameter "
                  + (index + 1)
                  + " is used but "
                  + params.size()
                  + (params.size() == 1 ? " was" : " were")
                  + " given",
              t);
        }
        Object p = params.get(index);
        if (p == null) {
          throw tokens.error(
              "parameter " + (index + 1) + " is null: write " + column + " IS NULL", t);
        }
        node = FilterValues.param(p);
        what = "parameter " + (index + 1) + " (" + p + ")";
      }
      default -> throw tokens.error("expected a value", t);
    }
    Comparable<?> value = FilterValues.literal(kind, node);
    if (value == null) {
      throw tokens.error(what + " is no " + kind + " value for column " + column, t);
    }
    return value;
  }
}

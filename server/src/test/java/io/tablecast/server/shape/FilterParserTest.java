package io.tablecast.server.shape;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The filter language of client-chosen subscription shapes: what it accepts, how rows are tested
 * (SQL's three-valued logic, values compared by the column's kind), and that every filter it cannot
 * use is refused with the position and the reason.
 */
class FilterParserTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final Map<String, ColumnKind> COLUMNS = new LinkedHashMap<>();

  static {
    COLUMNS.put("id", ColumnKind.INTEGER);
    COLUMNS.put("region", ColumnKind.STRING);
    COLUMNS.put("price", ColumnKind.DECIMAL);
    COLUMNS.put("ratio", ColumnKind.FLOAT);
    COLUMNS.put("active", ColumnKind.BOOLEAN);
    COLUMNS.put("since", ColumnKind.DATE);
    COLUMNS.put("at", ColumnKind.TIMESTAMP_TZ);
    COLUMNS.put("stamp", ColumnKind.TIMESTAMP);
    COLUMNS.put("clock", ColumnKind.TIME);
    COLUMNS.put("doc", ColumnKind.JSON);
    COLUMNS.put("Mixed Case", ColumnKind.STRING);
  }

  private static ObjectNode row(Object... nameValues) {
    ObjectNode row = NODES.objectNode();
    for (int i = 0; i < nameValues.length; i += 2) {
      Object v = nameValues[i + 1];
      JsonNode n =
          v == null
              ? NODES.nullNode()
              : v instanceof Long l
                  ? NODES.numberNode(l)
                  : v instanceof Boolean b ? NODES.booleanNode(b) : NODES.textNode(v.toString());
      row.set((String) nameValues[i], n);
    }
    return row;
  }

  private static boolean matches(String filter, ObjectNode row, Object... params) {
    return FilterParser.parse(filter, List.of(params), COLUMNS).matches(row::get);
  }

  @Test
  void comparisonsFollowTheColumnsKind() {
    ObjectNode r =
        row(
            "id",
            42L,
            "region",
            "eu",
            "price",
            "12.3400",
            "ratio",
            "0.5",
            "active",
            true,
            "since",
            "2024-02-29",
            "at",
            "2024-02-29T13:45:30Z");
    assertThat(matches("id = 42", r)).isTrue();
    assertThat(matches("id > 41 AND id <= 42", r)).isTrue();
    assertThat(matches("price = 12.34", r)).as("decimals by value, not text").isTrue();
    assertThat(matches("price < 100", r)).as("not '12.3400' < '100' as text").isTrue();
    assertThat(matches("ratio >= .5", r)).isTrue();
    assertThat(matches("region = 'eu'", r)).isTrue();
    assertThat(matches("region = 'EU'", r)).as("text is exact").isFalse();
    assertThat(matches("active = TRUE", r)).isTrue();
    assertThat(matches("since > '2024-02-28'", r)).isTrue();
    assertThat(matches("at < '2024-02-29T13:45:30.5Z'", r)).as("times as instants").isTrue();
    assertThat(matches("at = '2024-02-29T14:45:30+01:00'", r)).isTrue();
    assertThat(matches("id IN (1, 2, 42)", r)).isTrue();
    assertThat(matches("id NOT IN (1, 2)", r)).isTrue();
    assertThat(matches("region <> 'us' AND (id = 1 OR price > 10)", r)).isTrue();
    assertThat(matches("NOT (region = 'eu')", r)).isFalse();
    assertThat(matches("\"Mixed Case\" IS NULL", r)).as("a missing column is NULL").isTrue();
  }

  /**
   * Every form of docs/TYPES.md compares as the point in time it is, as the database's {@code
   * WHERE} compares it: a date BC, past 9999 or infinite, a MySQL time below zero or past a day, a
   * PostgreSQL {@code 24:00:00}, an instant BC. Each used to read as NULL (no row of it in any
   * shaped mirror, whatever the filter), and a literal in such a form was refused.
   */
  @Test
  void valuesInEveryFormOfTheirKindCompareAsPointsInTime() {
    assertThat(matches("since < '2000-01-01'", row("since", "0044-03-15 BC"))).isTrue();
    assertThat(matches("since < '0001-01-01'", row("since", "0044-03-15 BC"))).isTrue();
    assertThat(matches("since < '0043-01-01 BC'", row("since", "0044-03-15 BC"))).isTrue();
    assertThat(matches("since < '2000-01-01'", row("since", "-infinity"))).isTrue();
    assertThat(matches("since > '2000-01-01'", row("since", "infinity"))).isTrue();
    assertThat(matches("since > '9999-12-31'", row("since", "294276-12-31"))).isTrue();
    assertThat(matches("since = 'infinity'", row("since", "infinity"))).isTrue();
    assertThat(matches("stamp < '2000-01-01 00:00'", row("stamp", "0044-03-15T13:45:30.5 BC")))
        .isTrue();
    assertThat(matches("stamp > '2024-02-29T13:45'", row("stamp", "12024-01-01T00:00:00")))
        .isTrue();
    assertThat(matches("stamp = '2024-02-29 13:45:30'", row("stamp", "2024-02-29T13:45:30.000000")))
        .isTrue();
    assertThat(matches("clock < '00:00:00'", row("clock", "-838:59:59.000"))).isTrue();
    assertThat(matches("clock > '23:59:59'", row("clock", "24:00:00"))).isTrue();
    assertThat(matches("clock >= '24:00' AND clock <= '838:59:59'", row("clock", "100:00:00")))
        .isTrue();
    assertThat(matches("at < '1970-01-01T00:00:00Z'", row("at", "-0043-03-15T12:00:00Z"))).isTrue();
    assertThat(matches("at > ?", row("at", "infinity"), "2024-02-29 11:45:30+00")).isTrue();
    assertThatThrownBy(() -> matches("since > '2024-02-30'", row("since", "2024-03-01")))
        .as("no such date")
        .isInstanceOf(FilterException.class);
  }

  @Test
  void nullIsUnknownAsInSql() {
    ObjectNode r = row("id", 1L, "region", null);
    assertThat(matches("region = 'eu'", r)).isFalse();
    assertThat(matches("region <> 'eu'", r)).as("unknown, not true").isFalse();
    assertThat(matches("NOT (region = 'eu')", r)).as("NOT unknown is unknown").isFalse();
    assertThat(matches("region = 'eu' OR id = 1", r)).isTrue();
    assertThat(matches("region IS NULL", r)).isTrue();
    assertThat(matches("region IS NOT NULL", r)).isFalse();
    assertThat(matches("region NOT IN ('eu')", r)).isFalse();
    assertThat(matches("doc IS NULL", r)).as("IS NULL applies to any column").isTrue();
  }

  @Test
  void parametersAreBoundByOrderOrNumber() {
    ObjectNode r = row("id", 7L, "region", "eu");
    assertThat(matches("region = ? AND id > ?", r, "eu", 6)).isTrue();
    assertThat(matches("id = $2 OR region = $1", r, "us", 7L)).isTrue();
    assertThat(matches("region = ?", r, "eu' OR '1'='1")).as("never SQL").isFalse();
    RowPredicate p =
        FilterParser.parse("region = ? AND id IN (?, ?)", List.of("eu", 1, 2), COLUMNS);
    assertThat(p.columns()).containsExactly("id", "region");
  }

  @Test
  void keywordsInAnyCaseAndEqualFiltersAreEqualTrees() {
    RowPredicate a = FilterParser.parse("region = 'eu' and not id in (1)", List.of(), COLUMNS);
    RowPredicate b = FilterParser.parse("region='eu' AND NOT id IN ( 1 )", List.of(), COLUMNS);
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
  }

  private static void refused(String filter, List<?> params, String message, int position) {
    assertThatThrownBy(() -> FilterParser.parse(filter, params, COLUMNS))
        .isInstanceOf(FilterException.class)
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(((FilterException) e).position()).isEqualTo(position));
  }

  @Test
  void whatCannotBeUsedIsRefusedWithThePosition() {
    refused("", List.of(), "the filter is empty", 0);
    refused("regoin = 'eu'", List.of(), "position 1: no column 'regoin'; the table has [id,", 1);
    refused("region = ", List.of(), "position 10: expected a value", 10);
    refused("region = 'eu' id = 1", List.of(), "expected AND, OR or the end of the filter", 15);
    refused("id = 'x'", List.of(), "the text 'x' is no INTEGER value for column id", 6);
    refused("price = 'abc'", List.of(), "no DECIMAL value", 9);
    refused("since < 'yesterday'", List.of(), "no DATE value", 9);
    refused("active > FALSE", List.of(), "a BOOLEAN column takes = and <> only, not >", 8);
    refused("doc = 'x'", List.of(), "column 'doc' is JSON: only IS NULL and IS NOT NULL", 1);
    refused("region = NULL", List.of(), "never true: write region IS NULL", 10);
    refused("region = 'eu", List.of(), "position 10: a text is not closed", 10);
    refused("(id = 1", List.of(), "expected ')'", 8);
    refused("id = 1 OR # 2", List.of(), "unexpected character '#'", 11);
    refused("region = ?", List.of(), "parameter 1 is used but 0 were given", 10);
    refused("region = ?", List.of("eu", "us"), "uses 1 parameters, 2 were given", 0);
    refused("id = ?", List.of("x"), "parameter 1 (x) is no INTEGER value", 6);
    refused("id IS 1", List.of(), "expected NULL or NOT NULL after IS", 7);
  }

  @Test
  void aFilterThatCostsTooMuchIsRefused() {
    refused("id = 1 OR ".repeat(500) + "id = 1", List.of(), "at most 4096 are taken", 4097);
    refused(
        "id = 1" + " OR id = 1".repeat(FilterParser.MAX_CONDITIONS),
        List.of(),
        "more than 64 conditions",
        11 + 10 * (FilterParser.MAX_CONDITIONS - 1));
    refused("NOT ".repeat(40) + "id = 1", List.of(), "nests more than 32 levels", 129);
    List<Object> many = new ArrayList<>();
    StringBuilder in = new StringBuilder("id IN (");
    for (int i = 0; i <= FilterParser.MAX_IN_VALUES; i++) {
      in.append(i == 0 ? "" : ",").append(i);
    }
    refused(in.append(")").toString(), many, "an IN lists more than 1000 values", 3898);
  }

  /** The other tables of the subquery tests: {@code shop.customers (id, region)}. */
  private static final class Customers implements FilterParser.Tables {
    final java.util.Set<Comparable<?>> now = new java.util.HashSet<>();
    final java.util.Set<Comparable<?>> before = new java.util.HashSet<>();
    RowPredicate.Subquery asked;

    @Override
    public Map<String, ColumnKind> columns(String table) {
      return table.equals("shop.customers")
          ? Map.of("id", ColumnKind.INTEGER, "region", ColumnKind.STRING)
          : null;
    }

    @Override
    public RowPredicate.Membership membership(RowPredicate.Subquery subquery) {
      asked = subquery;
      return (value, wasBefore) ->
          (wasBefore ? before : now).contains(((java.math.BigDecimal) value).stripTrailingZeros());
    }
  }

  @Test
  void aSubqueryReadsAnotherTableAsItIsNowOrWasBeforeTheBatch() {
    Customers customers = new Customers();
    RowPredicate p =
        FilterParser.parse(
            "id IN (SELECT id FROM shop.customers WHERE region = ?) AND region IS NOT NULL",
            List.of("eu"),
            COLUMNS,
            customers);
    assertThat(customers.asked.table()).isEqualTo("shop.customers");
    assertThat(customers.asked.column()).isEqualTo("id");
    assertThat(customers.asked.filter().matches(row("region", "eu")::get)).isTrue();
    customers.now.add(new java.math.BigDecimal(7));
    customers.before.add(new java.math.BigDecimal(8));
    assertThat(p.matches(row("id", 7L, "region", "x")::get)).isTrue();
    assertThat(p.matches(row("id", 8L, "region", "x")::get)).isFalse();
    assertThat(p.matchedBefore(row("id", 8L, "region", "x")::get)).isTrue();
    assertThat(p.matches(row("id", null, "region", "x")::get)).as("NULL is unknown").isFalse();
    assertThat(p.subqueries()).hasSize(1);
  }

  private static void refusedWithSubqueries(String filter, String message, int position) {
    assertThatThrownBy(() -> FilterParser.parse(filter, List.of(), COLUMNS, new Customers()))
        .isInstanceOf(FilterException.class)
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(((FilterException) e).position()).isEqualTo(position));
  }

  @Test
  void whatASubqueryCannotDoIsRefusedWithThePosition() {
    refusedWithSubqueries(
        "id IN (SELECT id FROM shop.nope)",
        "no cached table 'shop.nope' this session may read",
        23);
    refusedWithSubqueries(
        "id IN (SELECT idd FROM shop.customers)", "no column 'idd' in shop.customers", 15);
    refusedWithSubqueries(
        "id IN (SELECT region FROM shop.customers)",
        "id is INTEGER and shop.customers.region is STRING: their values cannot be compared",
        15);
    refusedWithSubqueries(
        "id NOT IN (SELECT id FROM shop.customers)", "NOT IN (SELECT ...) is not supported", 12);
    refusedWithSubqueries(
        "id IN (SELECT id FROM shop.customers WHERE id IN (SELECT id FROM shop.customers))",
        "a subquery inside a subquery: one level is supported",
        51);
    refusedWithSubqueries(
        "id IN (SELECT id FROM shop.customers WHERE regoin = 'eu')", "no column 'regoin'", 44);
    assertThatThrownBy(
            () -> FilterParser.parse("id IN (SELECT id FROM shop.customers)", List.of(), COLUMNS))
        .hasMessageContaining("subqueries are not available here");
  }
}

package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.shape.FilterParser;
import io.tablecast.server.shape.RowPredicate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the shape a client asks of a table ({@link Message.Shape}) into the session's {@link
 * SessionPolicy.Shape}: the filter parsed against the table's columns ({@link FilterParser}), the
 * column list checked. The access policy still applies on top of it.
 */
final class ShapeRequests {

  private ShapeRequests() {}

  /**
   * The shape of {@code image}'s table.
   *
   * @throws IllegalArgumentException saying what cannot be used, and where in the filter
   */
  static SessionPolicy.Shape parse(
      Message.Shape asked,
      TableImage image,
      TableImages images,
      SubqueryMemberships memberships,
      SessionPolicy policy) {
    Map<String, ColumnKind> kinds = new LinkedHashMap<>();
    for (ColumnInfo c : image.schema().columns()) {
      kinds.put(c.name(), c.kind());
    }
    Set<String> columns = null;
    if (asked.columns() != null) {
      columns = new LinkedHashSet<>();
      for (String c : asked.columns()) {
        if (!kinds.containsKey(c)) {
          throw new IllegalArgumentException(
              "the shape's columns name '" + c + "', which is none of " + kinds.keySet());
        }
        columns.add(c);
      }
    }
    RowPredicate filter =
        asked.filter() == null
            ? null
            : FilterParser.parse(
                asked.filter(), params(asked), kinds, tables(images, memberships, policy));
    return new SessionPolicy.Shape(filter, columns);
  }

  /**
   * After {@code image}'s table took new columns: parses the shape the session asked of it again,
   * against them, and takes it (a comparison with a retyped column compares by its new kind); when
   * it no longer can be used (a column it names is gone), tells the client so for that table and
   * ends the session's subscription to it, so that its mirror says it may differ from the table
   * instead of holding rows the table no longer describes. Before, the session heard nothing more
   * of the table. True when the session follows the table on.
   */
  static boolean stillApplies(
      Subscriber s, TableImage image, TableImages images, SubqueryMemberships memberships) {
    Message.Shape asked = s.askedShape(image.name());
    SessionPolicy.Shape now = s.policy().shape(image.name());
    if (asked == null || now == null) {
      return true;
    }
    try {
      if (now.readsOtherTables()) {
        // parsed again, its subquery would take another membership: check what it names instead
        check(now.filter().columnKinds(), columnsNamed(now), image);
      } else {
        s.shape(image.name(), asked, parse(asked, image, images, memberships, s.policy()));
      }
      return true;
    } catch (IllegalArgumentException e) {
      refuse(s, image.name(), "its columns changed: " + e.getMessage());
      s.unsubscribe(image.name());
      return false;
    }
  }

  /**
   * After {@code image}'s table took new columns: the session's shapes of other tables whose
   * subquery reads it, checked against them. A subquery that names a column no longer there, or
   * takes one by a kind it no longer has, would give values the table does not hold: its shaped
   * table is refused, telling the client why, and the session's subscription to it ends, as {@link
   * #stillApplies} does for a table's own columns. Before, the subquery's values froze at the
   * ALTER, so that rows of the shaped table went on matching by them and its mirror looked current.
   */
  static void subqueriesStillApply(Subscriber s, TableImage image) {
    List<String> refused = new ArrayList<>();
    for (Map.Entry<String, SessionPolicy.Shape> e : s.policy().shapes().entrySet()) {
      RowPredicate filter = e.getValue().filter();
      if (filter == null || !filter.readsOtherTables() || !s.tables().contains(e.getKey())) {
        continue;
      }
      for (RowPredicate.InSubquery q : filter.subqueries()) {
        RowPredicate.Subquery sub = q.subquery();
        if (sub.table().equals(image.name())) {
          Map<String, ColumnKind> kinds = new LinkedHashMap<>();
          kinds.put(sub.column(), sub.kind());
          Set<String> named = new LinkedHashSet<>(kinds.keySet());
          if (sub.filter() != null) {
            kinds.putAll(sub.filter().columnKinds());
            named.addAll(sub.filter().columns());
          }
          if (s.policy().filterColumn() != null) {
            named.add(s.policy().filterColumn()); // the principal's row filter applies there too
          }
          try {
            check(kinds, named, image);
          } catch (IllegalArgumentException problem) {
            refused.add(e.getKey());
            refuse(
                s,
                e.getKey(),
                "the columns of table '"
                    + image.name()
                    + "', which its subquery reads, changed: "
                    + problem.getMessage());
            break;
          }
        }
      }
    }
    refused.forEach(s::unsubscribe);
  }

  private static void refuse(Subscriber s, String table, String why) {
    s.sendMessage(
        new Message.Error(
            ErrorCode.PROTOCOL_VIOLATION,
            "the shape asked of table '" + table + "' cannot be used since " + why,
            table));
  }

  /** The columns a shape names: its filter's and its column list's. */
  private static Set<String> columnsNamed(SessionPolicy.Shape shape) {
    Set<String> named = new LinkedHashSet<>(shape.filter().columns());
    if (shape.columns() != null) {
      named.addAll(shape.columns());
    }
    return named;
  }

  /**
   * Refuses a shape that names a column the table no longer has, or compares one by a kind it no
   * longer has ({@code kinds}, as parsed).
   */
  private static void check(Map<String, ColumnKind> kinds, Set<String> named, TableImage image) {
    Map<String, ColumnKind> have = new LinkedHashMap<>();
    image.schema().columns().forEach(c -> have.put(c.name(), c.kind()));
    for (String c : named) {
      if (!have.containsKey(c)) {
        throw new IllegalArgumentException("no column '" + c + "'; the table has " + have.keySet());
      }
    }
    kinds.forEach(
        (c, kind) -> {
          if (have.get(c) != kind) {
            throw new IllegalArgumentException(
                "column '" + c + "' is of kind " + have.get(c) + " now, was " + kind);
          }
        });
  }

  /** The other tables a subquery of a session of {@code policy} may read. */
  private static FilterParser.Tables tables(
      TableImages images, SubqueryMemberships memberships, SessionPolicy policy) {
    return new FilterParser.Tables() {
      @Override
      public Map<String, ColumnKind> columns(String table) {
        TableImage other = images.get(table);
        if (other == null || !policy.allowsTable(table)) {
          return null;
        }
        String rowFilter = policy.filterColumn();
        if (rowFilter != null
            && other.schema().columns().stream().noneMatch(c -> c.name().equals(rowFilter))) {
          // its rows would all be filtered out: the subquery would give no value, without a word
          throw new IllegalArgumentException(
              "the subquery reads table '"
                  + table
                  + "', which lacks column '"
                  + rowFilter
                  + "' that this principal's row_filter reads: none of its rows can be read");
        }
        Map<String, ColumnKind> out = new LinkedHashMap<>();
        List<String> pk = other.schema().primaryKey();
        for (ColumnInfo c : policy.project(table, other.schema().columns(), pk)) {
          out.put(c.name(), c.kind());
        }
        return out;
      }

      @Override
      public RowPredicate.Membership membership(RowPredicate.Subquery subquery) {
        return memberships.membership(subquery, policy);
      }
    };
  }

  private static List<Object> params(Message.Shape asked) {
    List<Object> out = new ArrayList<>();
    if (asked.params() != null) {
      for (JsonNode p : asked.params()) {
        out.add(
            p == null || p.isNull()
                ? null
                : p.isNumber() ? p.decimalValue() : p.isBoolean() ? p.booleanValue() : p.asText());
      }
    }
    return out;
  }
}

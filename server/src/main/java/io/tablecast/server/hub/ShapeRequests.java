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
        check(now, image);
      } else {
        s.shape(image.name(), asked, parse(asked, image, images, memberships, s.policy()));
      }
      return true;
    } catch (IllegalArgumentException e) {
      s.sendMessage(
          new Message.Error(
              ErrorCode.PROTOCOL_VIOLATION,
              "the shape asked of table '"
                  + image.name()
                  + "' cannot be used since its columns changed: "
                  + e.getMessage(),
              image.name()));
      s.unsubscribe(image.name());
      return false;
    }
  }

  /** Refuses a shape that names a column the table no longer has. */
  private static void check(SessionPolicy.Shape shape, TableImage image) {
    Set<String> have = new LinkedHashSet<>();
    image.schema().columns().forEach(c -> have.add(c.name()));
    Set<String> named = new LinkedHashSet<>(shape.filter().columns());
    if (shape.columns() != null) {
      named.addAll(shape.columns());
    }
    for (String c : named) {
      if (!have.contains(c)) {
        throw new IllegalArgumentException("no column '" + c + "'; the table has " + have);
      }
    }
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

package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.image.TableImages;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Rewrites changes for a session's row filter and column list, so that its mirror holds exactly the
 * rows it may see: an INSERT of a row outside the filter is dropped; an UPDATE whose row leaves the
 * filter becomes a DELETE (move-out), one whose row enters it becomes an INSERT (move-in), one
 * outside before and after is dropped; a DELETE is sent only when the row was inside (the client
 * never learns of rows it never saw). Rows are then projected to the allowed columns plus the
 * primary key ({@link JsonEdge#project}: rows in the row form stay in it, in the layout of those
 * columns). A row filter reads the filter column of the rows it tests, nothing else is decoded.
 */
final class PolicyFilter {

  private static final JsonNodeFactory NODES =
      JsonNodeFactory.instance; // numberNode(BigDecimal) keeps the scale

  private PolicyFilter() {}

  /** The changes of {@code tables} as {@code policy} lets a session see them. */
  static List<Message.Change> visible(
      TableImages images, List<Message.Change> changes, Set<String> tables, SessionPolicy policy) {
    List<Message.Change> mine =
        apply(
            policy,
            SubqueryMoves.net(images, ofTables(changes, tables), tables, policy),
            images::primaryKeyOf);
    return SubqueryMoves.add(images, changes, tables, policy, mine);
  }

  /** The changes of {@code tables} ({@code changes} itself when that is all of them). */
  static List<Message.Change> ofTables(List<Message.Change> changes, Set<String> tables) {
    List<Message.Change> mine = new ArrayList<>();
    for (Message.Change c : changes) {
      if (tables.contains(c.table())) {
        mine.add(c);
      }
    }
    return mine.size() == changes.size() ? changes : mine;
  }

  /**
   * The changes as {@code policy} lets a session see them.
   *
   * @param primaryKeys primary-key columns of a table
   */
  static List<Message.Change> apply(
      SessionPolicy policy,
      List<Message.Change> changes,
      Function<String, List<String>> primaryKeys) {
    if (policy.passesRowsUnchanged() || changes.isEmpty()) {
      return changes;
    }
    List<Message.Change> out = new ArrayList<>(changes.size());
    for (Message.Change c : changes) {
      List<String> pk = primaryKeys.apply(c.table());
      switch (c.op()) {
        case INSERT:
          if (JsonEdge.matches(policy, c.table(), c.after())) {
            out.add(
                new Message.Change(
                    c.table(),
                    Op.INSERT,
                    c.key(),
                    null,
                    JsonEdge.project(c.after(), policy, c.table(), pk)));
          }
          break;
        case UPDATE:
          {
            boolean before = JsonEdge.matchedBefore(policy, c.table(), c.before());
            boolean after = JsonEdge.matches(policy, c.table(), c.after());
            if (before && after) {
              out.add(
                  new Message.Change(
                      c.table(),
                      Op.UPDATE,
                      c.key(),
                      JsonEdge.project(c.before(), policy, c.table(), pk),
                      JsonEdge.project(c.after(), policy, c.table(), pk)));
            } else if (before) {
              out.add(
                  new Message.Change(
                      c.table(),
                      Op.DELETE,
                      keyOf(c.before(), pk, c.key()),
                      JsonEdge.project(c.before(), policy, c.table(), pk),
                      null));
            } else if (after) {
              out.add(
                  new Message.Change(
                      c.table(),
                      Op.INSERT,
                      c.key(),
                      null,
                      JsonEdge.project(c.after(), policy, c.table(), pk)));
            }
            break;
          }
        case DELETE:
          if (JsonEdge.matchedBefore(policy, c.table(), c.before())) {
            out.add(
                new Message.Change(
                    c.table(),
                    Op.DELETE,
                    c.key(),
                    JsonEdge.project(c.before(), policy, c.table(), pk),
                    null));
          }
          break;
        default:
          break;
      }
    }
    return out;
  }

  /** The key of the before image (an UPDATE may change the key), normalized as the image does. */
  private static ArrayNode keyOf(ObjectNode row, List<String> pk, ArrayNode fallback) {
    if (pk == null || pk.isEmpty()) {
      return fallback;
    }
    if (row instanceof io.tablecast.protocol.row.PackedRow) {
      return JsonEdge.keyOf(row, pk);
    }
    ArrayNode key = NODES.arrayNode(pk.size());
    for (String column : pk) {
      if (row.get(column) == null) {
        return fallback;
      }
      key.add(JsonEdge.normalize(row.get(column)));
    }
    return key;
  }
}

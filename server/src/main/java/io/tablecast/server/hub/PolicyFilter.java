package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.server.auth.SessionPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Rewrites changes for a session's row filter and column list, so that its mirror holds
 * exactly the rows it may see: an INSERT of a row outside the filter is dropped; an UPDATE
 * whose row leaves the filter becomes a DELETE (move-out), one whose row enters it becomes an
 * INSERT (move-in), one outside before and after is dropped; a DELETE is sent only when the
 * row was inside (the client never learns of rows it never saw). Rows are then projected to
 * the allowed columns plus the primary key.
 */
final class PolicyFilter {

  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

  private PolicyFilter() {}

  /**
   * The changes as {@code policy} lets a session see them.
   *
   * @param primaryKeys primary-key columns of a table
   */
  static List<Message.Change> apply(SessionPolicy policy, List<Message.Change> changes,
      Function<String, List<String>> primaryKeys) {
    if (policy.passesRowsUnchanged() || changes.isEmpty()) {
      return changes;
    }
    List<Message.Change> out = new ArrayList<>(changes.size());
    for (Message.Change c : changes) {
      List<String> pk = primaryKeys.apply(c.table());
      switch (c.op()) {
        case INSERT:
          if (policy.matches(c.after())) {
            out.add(new Message.Change(c.table(), Op.INSERT, c.key(), null, policy.project(c.after(), pk)));
          }
          break;
        case UPDATE: {
          boolean before = policy.matches(c.before());
          boolean after = policy.matches(c.after());
          if (before && after) {
            out.add(new Message.Change(c.table(), Op.UPDATE, c.key(), policy.project(c.before(), pk),
                policy.project(c.after(), pk)));
          } else if (before) {
            out.add(new Message.Change(c.table(), Op.DELETE, keyOf(c.before(), pk, c.key()),
                policy.project(c.before(), pk), null));
          } else if (after) {
            out.add(new Message.Change(c.table(), Op.INSERT, c.key(), null, policy.project(c.after(), pk)));
          }
          break;
        }
        case DELETE:
          if (policy.matches(c.before())) {
            out.add(new Message.Change(c.table(), Op.DELETE, c.key(), policy.project(c.before(), pk), null));
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
    ArrayNode key = NODES.arrayNode(pk.size());
    for (String column : pk) {
      if (row.get(column) == null) {
        return fallback;
      }
      key.add(TableImage.normalize(row.get(column)));
    }
    return key;
  }
}

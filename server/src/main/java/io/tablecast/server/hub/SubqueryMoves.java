package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.shape.Comparison;
import io.tablecast.server.shape.RowPredicate;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The rows a batch moves into or out of a shape without changing them: when the batch changes which
 * values a shape's subquery gives ({@code customer_id IN (SELECT id FROM customers WHERE region =
 * ?)} and a customer changes region), each row of the shaped table whose column holds such a value,
 * and that the batch did not change itself, is sent as an insert (now in) or a delete (now out).
 * Found by one pass over the table's image per batch that moves values: the cost of a subquery,
 * paid only by the batches that change its values. Hub thread.
 */
final class SubqueryMoves {

  private SubqueryMoves() {}

  /**
   * {@code changes} with those of each table whose shape reads other tables folded per key to their
   * net effect ({@link Coalescer}): the first image of a row against the other table as it was
   * before the batch, its last against the other table after it. Tested change by change, a row
   * changed twice in one batch had its middle image tested against the other table as it was before
   * the whole batch: a row given to a customer who joined the shape's region in the same
   * transaction, then given back, was sent in and never out, and stayed in the mirror.
   */
  static List<Message.Change> net(
      TableImages images, List<Message.Change> changes, Set<String> tables, SessionPolicy policy) {
    Set<String> folded = new HashSet<>();
    for (String table : tables) {
      SessionPolicy.Shape shape = policy.shape(table);
      if (shape != null && shape.readsOtherTables()) {
        folded.add(table);
      }
    }
    if (folded.isEmpty()) {
      return changes;
    }
    List<Message.Change> out = new ArrayList<>(changes.size());
    List<Message.Change> fold = new ArrayList<>();
    for (Message.Change c : changes) {
      (folded.contains(c.table()) ? fold : out).add(c);
    }
    if (fold.size() < 2) {
      return changes;
    }
    Coalescer net = new Coalescer((t, row) -> JsonEdge.keyOf(row, images.primaryKeyOf(t)));
    net.add(0, 0, fold);
    out.addAll(net.drain());
    return out;
  }

  /** {@code mine} with the moves of the batch {@code changes} added for the session's shapes. */
  static List<Message.Change> add(
      TableImages images,
      List<Message.Change> changes,
      Set<String> tables,
      SessionPolicy policy,
      List<Message.Change> mine) {
    List<Message.Change> out = mine;
    for (String table : tables) {
      SessionPolicy.Shape shape = policy.shape(table);
      if (shape == null || !shape.readsOtherTables()) {
        continue;
      }
      List<RowPredicate.InSubquery> moved = new ArrayList<>();
      for (RowPredicate.InSubquery q : shape.filter().subqueries()) {
        if (q.membership() instanceof SubqueryMemberships.Values v && v.anyChange()) {
          moved.add(q);
        }
      }
      TableImage image = images.get(table);
      if (moved.isEmpty() || image == null) {
        continue;
      }
      if (out == mine) {
        out = new ArrayList<>(mine);
      }
      addMoves(image, changedKeys(changes, table), moved, policy, out);
    }
    return out;
  }

  private static void addMoves(
      TableImage image,
      Set<ByteBuffer> changed,
      List<RowPredicate.InSubquery> moved,
      SessionPolicy policy,
      List<Message.Change> out) {
    String table = image.name();
    RowForm form = image.form();
    List<String> pk = image.schema().primaryKey();
    for (byte[] bytes : image.copyRows()) {
      PackedRow row = PackedRow.of(form, bytes);
      if (!holdsMovedValue(row, moved)) {
        continue;
      }
      byte[] key = form.keyOf(bytes);
      if (changed.contains(ByteBuffer.wrap(key))) {
        continue; // its own change says where it goes
      }
      boolean before = policy.matchedBefore(table, row);
      boolean after = policy.matches(table, row);
      if (before != after) {
        PackedRow seen = (PackedRow) JsonEdge.project(row, policy, table, pk);
        out.add(
            new Message.Change(
                table,
                after ? Op.INSERT : Op.DELETE,
                PackedKey.of(form, key),
                after ? null : seen,
                after ? seen : null));
      }
    }
  }

  private static boolean holdsMovedValue(PackedRow row, List<RowPredicate.InSubquery> moved) {
    for (RowPredicate.InSubquery q : moved) {
      com.fasterxml.jackson.databind.JsonNode v = row.get(q.column());
      Comparable<?> value = v == null || v.isNull() ? null : Comparison.valueOf(q.kind(), v);
      if (value != null && ((SubqueryMemberships.Values) q.membership()).changed(value)) {
        return true;
      }
    }
    return false;
  }

  private static Set<ByteBuffer> changedKeys(List<Message.Change> changes, String table) {
    Set<ByteBuffer> keys = new HashSet<>();
    for (Message.Change c : changes) {
      if (c.table().equals(table) && c.key() instanceof PackedKey k) {
        keys.add(ByteBuffer.wrap(k.bytes()));
      }
    }
    return keys;
  }
}

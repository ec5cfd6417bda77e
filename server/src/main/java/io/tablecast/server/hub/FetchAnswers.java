package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.metrics.ServerMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Answers the clients' {@code fetch} requests (near caches): reads the asked keys in the table's
 * image on the hub thread, where batches are applied and sent, and writes the answer into the
 * session's stream like any other message. So every change the answer's rows include was sent
 * before it and every later change goes behind it, and a client applying both in arrival order
 * never installs a row older than one it has seen. The session's access policy applies as to its
 * changes: a row it may not see is not found, a row is cut to its columns. Hub thread only.
 */
final class FetchAnswers {

  /** Keys one request may ask for; more are refused with a failure. */
  static final int MAX_KEYS = 1_000;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final TableImages images;
  private final SlowConsumerPolicy slow;
  private final LongSupplier position;
  private final ServerMetrics metrics;

  FetchAnswers(
      TableImages images, SlowConsumerPolicy slow, LongSupplier position, ServerMetrics metrics) {
    this.images = images;
    this.slow = slow;
    this.position = position;
    this.metrics = metrics;
  }

  /** Answers request {@code f} of {@code s}. */
  void answer(Subscriber s, Message.Fetch f) {
    if (s.closed) {
      return;
    }
    String failure = null;
    List<ObjectNode> rows = new ArrayList<>();
    TableImage image = images.get(f.table());
    if (!s.tables().contains(f.table()) || image == null) {
      failure =
          "table '"
              + f.table()
              + "' is not subscribed on this connection: a fetch reads a subscribed table";
    } else if (f.keys().size() > MAX_KEYS) {
      failure =
          "a fetch may ask for at most " + MAX_KEYS + " keys, this one asks for " + f.keys().size();
    } else {
      failure = read(s, image, f.keys(), rows);
    }
    if (failure != null) {
      s.sendMessage(new Message.Fetched(f.id(), f.table(), -1, List.of(), failure));
      metrics.fetched("refused", f.keys().size());
      return;
    }
    if (!s.catchingUp()) {
      slow.flush(s); // changes coalesced for it are older than the answer: they go first
    }
    s.sendMessage(new Message.Fetched(f.id(), f.table(), position.getAsLong(), rows, null));
    metrics.fetched("answered", f.keys().size());
  }

  /**
   * Adds the rows of {@code keys} the session may see to {@code out}; returns a failure or null.
   */
  private static String read(
      Subscriber s, TableImage image, List<ArrayNode> keys, List<ObjectNode> out) {
    RowForm form = image.form();
    List<String> pk = image.schema().primaryKey();
    for (int i = 0; i < keys.size(); i++) {
      ArrayNode key = keys.get(i);
      byte[] bytes;
      try {
        bytes = keyBytes(form, pk, key);
      } catch (IllegalArgumentException e) {
        return "key "
            + (i + 1)
            + " of the fetch, "
            + key
            + ", is no key of "
            + image.name()
            + " (primary key "
            + pk
            + "): "
            + e.getMessage();
      }
      byte[] row = image.get(bytes);
      if (row != null) {
        PackedRow packed = PackedRow.of(form, row);
        if (JsonEdge.matches(s.policy(), image.name(), packed)) {
          out.add(JsonEdge.project(packed, s.policy(), image.name(), pk));
        }
      }
    }
    return null;
  }

  /** The key's bytes in the row form, its values given in primary-key order. */
  private static byte[] keyBytes(RowForm form, List<String> pk, ArrayNode key) {
    if (key == null || key.size() != pk.size()) {
      throw new IllegalArgumentException(
          "it has " + (key == null ? 0 : key.size()) + " values for " + pk.size() + " columns");
    }
    ObjectNode image = NODES.objectNode();
    for (int i = 0; i < pk.size(); i++) {
      JsonNode v = key.get(i);
      if (v.isContainerNode()) {
        throw new IllegalArgumentException("value " + v + " of " + pk.get(i) + " is no scalar");
      }
      image.set(pk.get(i), floatKeyAsNumber(form, pk.get(i), v));
    }
    return form.encodeKey(image);
  }

  /**
   * A FLOAT key part given as its text, as a Java client sends every key part that is no integer
   * nor boolean ({@code "0.1"} for {@code get(0.1)}), as the number the row form keys by; any other
   * value as it is (the texts {@code NaN} and {@code Infinity} among them).
   */
  private static JsonNode floatKeyAsNumber(RowForm form, String column, JsonNode v) {
    if (!v.isTextual() || form.columns().get(form.indexOf(column)).kind() != ColumnKind.FLOAT) {
      return v;
    }
    try {
      double d = Double.parseDouble(v.textValue());
      return Double.isFinite(d) ? NODES.numberNode(d) : v;
    } catch (NumberFormatException notANumber) {
      return v;
    }
  }
}

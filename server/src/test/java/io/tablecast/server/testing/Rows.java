package io.tablecast.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.RowEvent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rows of the tests in the row form and back: what a test reads of an event or a table read, in the
 * JSON form of docs/TYPES.md, and the bytes a test double hands the server.
 */
public final class Rows {
  private static final Map<TableSchema, RowForm> FORMS = new ConcurrentHashMap<>();

  private Rows() {}

  /** The row form of a table version. */
  public static RowForm form(TableSchema schema) {
    return FORMS.computeIfAbsent(schema, s -> new RowForm(s.columns(), s.primaryKey()));
  }

  /** A row in its JSON form written in the row form of {@code schema}. */
  public static byte[] bytes(TableSchema schema, ObjectNode row) {
    return form(schema).encode(row);
  }

  /** The JSON form of an encoded row of {@code schema}; null stays null. */
  public static ObjectNode json(TableSchema schema, byte[] row) {
    return row == null ? null : form(schema).toNode(row);
  }

  /** A row's JSON form as text, as the server's mapper writes it. */
  public static String text(ObjectNode row) {
    try {
      return MessageCodec.jsonMapper().writeValueAsString(row);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The JSON forms of encoded rows of {@code schema}. */
  public static List<ObjectNode> json(TableSchema schema, List<byte[]> rows) {
    return rows.stream().map(r -> json(schema, r)).toList();
  }

  /** The row an upsert puts, in its JSON form; null for a delete or a truncate. */
  public static ObjectNode after(RowEvent e) {
    return e instanceof RowEvent.Upsert u ? json(u.schema(), u.row()) : null;
  }

  /**
   * The row before the change as the event carries it, in its JSON form: the captured row
   * (PostgreSQL updates and deletes); for a delete without one (MySQL/MariaDB), the key columns
   * alone, as the trigger's key image holds them; null otherwise.
   */
  public static ObjectNode before(RowEvent e) {
    if (e instanceof RowEvent.Upsert u) {
      return json(u.schema(), u.before());
    }
    if (e instanceof RowEvent.Delete d) {
      if (d.before() != null) {
        return json(d.schema(), d.before());
      }
      RowForm form = form(d.schema());
      JsonNode values = form.keyToNode(d.key());
      ObjectNode key = MessageCodec.jsonMapper().createObjectNode();
      for (int k = 0; k < form.primaryKey().size(); k++) {
        key.set(form.primaryKey().get(k), values.get(k));
      }
      return key;
    }
    return null;
  }
}

package io.tablecast.server.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.RowEvent;
import java.util.List;

/**
 * Rows and events of one layout of a table (its columns before an ALTER TABLE) written in another
 * one's row form, through their JSON form: a column gone is dropped, a new one is NULL, a value
 * that does not fit its column's new kind is NULL; a row whose key cannot be formed any more is
 * null. What {@link TableImage#withSchema} and {@link TableImage#converted} do.
 */
final class LayoutConversion {
  private static final JsonNodeFactory NODES =
      JsonNodeFactory.instance; // numberNode(BigDecimal) keeps the scale

  private final TableSchema schema;
  private final RowForm form;

  /** Per column, a form of that column alone, made when first needed. */
  private final RowForm[] single;

  LayoutConversion(TableSchema schema, RowForm form) {
    this.schema = schema;
    this.form = form;
    this.single = new RowForm[schema.columns().size()];
  }

  /** {@code event} of the table {@code name}, written in {@code other}, in this form; or null. */
  RowEvent event(String name, RowEvent event, RowForm other) {
    if (event instanceof RowEvent.Upsert u) {
      byte[] row = row(other.toNode(u.row()));
      byte[] before = u.before() == null ? null : row(other.toNode(u.before()));
      return row == null ? null : new RowEvent.Upsert(name, schema, form.keyOf(row), row, before);
    }
    if (event instanceof RowEvent.Delete d) {
      ObjectNode keyImage = NODES.objectNode();
      JsonNode values = other.keyToNode(d.key());
      for (int k = 0; k < other.primaryKey().size(); k++) {
        keyImage.set(other.primaryKey().get(k), values.get(k));
      }
      try {
        return new RowEvent.Delete(name, schema, form.encodeKey(keyImage), null);
      } catch (IllegalArgumentException keyGone) {
        return null;
      }
    }
    return event;
  }

  /**
   * A row of another layout, in its JSON form, in this form; null when its key cannot be formed.
   */
  byte[] row(ObjectNode old) {
    List<ColumnInfo> columns = schema.columns();
    ObjectNode row = NODES.objectNode();
    for (ColumnInfo c : columns) {
      JsonNode v = old.get(c.name());
      row.set(c.name(), v == null ? NODES.nullNode() : v);
    }
    try {
      return form.encode(row);
    } catch (IllegalArgumentException notAllFit) {
      // below: NULL for each value of another kind; a key that cannot be formed leaves the row out
    }
    for (int i = 0; i < columns.size(); i++) {
      ColumnInfo c = columns.get(i);
      JsonNode v = row.get(c.name());
      if (v.isNull() || schema.primaryKey().contains(c.name())) {
        continue;
      }
      if (single[i] == null) {
        single[i] = new RowForm(List.of(c), List.of());
      }
      try {
        single[i].encode(NODES.objectNode().set(c.name(), v));
      } catch (IllegalArgumentException otherKind) {
        row.set(c.name(), NODES.nullNode());
      }
    }
    try {
      return form.encode(row);
    } catch (IllegalArgumentException keyGone) {
      return null;
    }
  }
}

package io.tablecast.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.internal.RowKeys;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.row.JavaValues;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.util.List;
import java.util.Map;

/**
 * Generic rows: in protocol version 3 a {@link RowView} of the row's row-form bytes, which are its
 * exact image (a re-snapshot's row is unchanged when its bytes are, in the same table layout); from
 * a version-2 server an unmodifiable map of the JSON values, compared as maps.
 */
final class GenericRowMapping implements RowMapping<Map<String, Object>> {
  private static final ObjectMapper JSON = MessageCodec.jsonMapper();

  @Override
  public Map<String, Object> map(ObjectNode json) {
    return json instanceof PackedRow packed && packed.form() != null
        ? new RowView(packed.form(), packed.bytes())
        : JavaValues.toMap(json);
  }

  /** A view of {@code bytes}, which it keeps (not copied). */
  @Override
  public Map<String, Object> map(RowForm form, byte[] bytes) {
    return new RowView(form, bytes);
  }

  @Override
  public Boolean sameImage(Map<String, Object> old, ObjectNode json) {
    if (json instanceof PackedRow packed && packed.form() != null) {
      return sameImage(old, packed.form(), packed.bytes());
    }
    return null;
  }

  @Override
  public Boolean sameImage(Map<String, Object> old, RowForm form, byte[] bytes) {
    return old instanceof RowView view ? view.sameRow(form, bytes) : null;
  }

  @Override
  public boolean sameValue(Map<String, Object> old, Map<String, Object> mapped) {
    return old.equals(mapped);
  }

  @Override
  public Object keyOf(Map<String, Object> row, List<String> primaryKey) {
    return RowKeys.fromRowOrNull(image(row, List.of()), primaryKey);
  }

  @Override
  public ObjectNode image(Map<String, Object> row, List<ColumnInfo> columns) {
    if (row instanceof RowView view) {
      return PackedRow.of(view.form(), view.bytes()); // the same bytes, not copied
    }
    return JSON.valueToTree(row);
  }
}

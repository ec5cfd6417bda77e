package io.tablecast.client;

import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A generic mirror fed by a server of protocol version 3 keeps each row as its row-form bytes and
 * decodes on read ({@link RowView}): the same values, by name and index, as the maps of version 2,
 * and by the typed getters by name and by index.
 */
class GenericRowViewTest {
  private static final String T = "app.items";
  private static final List<ColumnInfo> COLUMNS =
      List.of(
          new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
          new ColumnInfo("name", "text", ColumnKind.STRING),
          new ColumnInfo("price", "decimal(10,2)", ColumnKind.DECIMAL),
          new ColumnInfo("ratio", "double", ColumnKind.FLOAT),
          new ColumnInfo("ok", "boolean", ColumnKind.BOOLEAN),
          new ColumnInfo("note", "text", ColumnKind.STRING));
  private static final RowForm FORM = new RowForm(COLUMNS, List.of("id"));

  private static ObjectNode packed(ObjectNode row) {
    return PackedRow.of(FORM, FORM.encode(row));
  }

  @Test
  void rowsInTheRowFormReadAsMapsAndByTypedGetters() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Map<String, Object>> m = client.mirror(T);
      FakeServer.Conn conn = server.handshake(1);
      conn.expect(Message.Subscribe.class);
      conn.send(new Message.SnapshotBegin(T, COLUMNS, List.of("id"), 1, 2));
      ObjectNode one = row("id", 1, "name", "Zoë", "price", "12.30");
      one.put("ratio", 0.5d); // a FLOAT column's value as the server reads it: a double
      one.put("ok", true);
      one.putNull("note");
      conn.send(
          new Message.SnapshotRows(
              T, List.of(packed(one), packed(row("id", 2, "name", "b", "price", "1.00")))));
      conn.send(new Message.SnapshotEnd(T, 1));
      assertThat(m.awaitReady(Duration.ofSeconds(10))).isTrue();

      Map<String, Object> r = m.get(1L);
      assertThat(r).isInstanceOf(RowView.class);
      Map<String, Object> expected = new LinkedHashMap<>();
      expected.put("id", 1);
      expected.put("name", "Zoë");
      expected.put("price", "12.30");
      expected.put("ratio", 0.5d);
      expected.put("ok", true);
      expected.put("note", null);
      assertThat(r).isEqualTo(expected).hasToString(expected.toString());
      assertThat(r.keySet()).containsExactly("id", "name", "price", "ratio", "ok", "note");
      RowView v = (RowView) r;
      assertThat(v.getLong("id")).isEqualTo(1L);
      assertThat(v.getString("name")).isEqualTo("Zoë");
      assertThat(v.getDecimal("price")).isEqualTo(new BigDecimal("12.30"));
      assertThat(v.getDouble("ratio")).isEqualTo(0.5d);
      assertThat(v.getBoolean("ok")).isTrue();
      assertThat(v.getString("note")).isNull();
      assertThat(v.get(1)).isEqualTo("Zoë");
      assertThat(v.columnIndex("price")).isEqualTo(2);
      assertThat(v.columnIndex("nope")).isEqualTo(-1);
      assertThat(v.getLong(v.columnIndex("id"))).isEqualTo(1L);
      assertThat(v.getString(1)).isEqualTo("Zoë");
      assertThat(v.getDecimal(2)).isEqualTo(new BigDecimal("12.30")).hasScaleOf(2);
      assertThat(v.getDouble(3)).isEqualTo(0.5d);
      assertThat(v.getBoolean(4)).isTrue();
      assertThat(v.getString(5)).isNull();
      assertThat(v.getLong(5)).isNull();
      assertThatThrownBy(() -> v.getLong(1))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("column name holds");
      assertThatThrownBy(() -> v.getString(6))
          .isInstanceOf(IndexOutOfBoundsException.class)
          .hasMessageContaining("no column 6; the row has 6 columns");
      assertThatThrownBy(() -> v.getDecimal(-1)).isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> v.getLong("nope")).hasMessageContaining("no column nope");
      assertThatThrownBy(() -> r.put("name", "x"))
          .isInstanceOf(UnsupportedOperationException.class);

      ObjectNode changed = row("id", 2, "name", "b2", "price", "2.00");
      byte[] bytes = FORM.encode(changed);
      conn.send(
          new Message.ChangeBatch(
              2,
              0,
              List.of(
                  new Message.Change(
                      T,
                      Op.UPDATE,
                      PackedKey.of(FORM, FORM.keyOf(bytes)),
                      null,
                      PackedRow.of(FORM, bytes)))));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> "b2".equals(((RowView) m.get(2L)).getString("name")));
      assertThat(m.get(2L)).containsEntry("price", "2.00").containsEntry("ratio", null);
    }
  }
}

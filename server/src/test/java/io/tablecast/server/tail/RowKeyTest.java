package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.row.RowForm;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Keys in the row form as map keys: equal by bytes, the key of a row equal to the key of its key
 * image, hashes spread.
 */
class RowKeyTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Test
  void theKeyOfARowEqualsTheKeyOfItsKeyImageAndConsecutiveIntegersHashApart() {
    RowForm form =
        new RowForm(
            List.of(
                new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
                new ColumnInfo("v", "text", ColumnKind.STRING)),
            List.of("id"));
    Set<Integer> hashes = new HashSet<>();
    int n = 1_000_000;
    for (long id = 1; id <= n; id++) {
      RowKey key = RowKey.of(form.encodeKey(NODES.objectNode().put("id", id)));
      if (id % 1000 == 0) {
        RowKey ofRow = RowKey.ofRow(form.encode(NODES.objectNode().put("id", id).put("v", "x")));
        assertThat(ofRow).isEqualTo(key).hasSameHashCodeAs(key);
      }
      hashes.add(key.hashCode());
    }
    assertThat(hashes).as("distinct hashes of %d consecutive integer keys", n).hasSize(n);

    RowForm composite =
        new RowForm(
            List.of(
                new ColumnInfo("region", "text", ColumnKind.STRING),
                new ColumnInfo("id", "bigint", ColumnKind.INTEGER)),
            List.of("region", "id"));
    Set<Integer> longer = new HashSet<>();
    for (long id = 1; id <= 100_000; id++) {
      longer.add(
          RowKey.of(composite.encodeKey(NODES.objectNode().put("region", "europe").put("id", id)))
              .hashCode());
    }
    assertThat(longer).as("keys longer than four bytes").hasSizeGreaterThan(99_900);
    assertThat(RowKey.of(new byte[] {1, 2})).isNotEqualTo(RowKey.of(new byte[] {1, 3}));
  }
}

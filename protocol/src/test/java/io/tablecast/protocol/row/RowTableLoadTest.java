package io.tablecast.protocol.row;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A load puts each full run as it fills and the rest at its end; a table expected to be big is put
 * in longer runs; either way the table holds what putting each row in turn makes.
 */
class RowTableLoadTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final RowForm FORM =
      new RowForm(
          List.of(
              new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
              new ColumnInfo("v", "text", ColumnKind.STRING)),
          List.of("id"));

  @Test
  void aFullRunIsPutAsItFillsAndTheRestAtTheEnd() {
    RowTable table = new RowTable();
    RowTableLoad load = new RowTableLoad(table, 0);
    for (int id = 1; id < RowTableLoad.RUN; id++) {
      load.add(row(id));
    }
    assertThat(table.size()).as("a run not yet full").isZero();
    load.add(row(RowTableLoad.RUN));
    assertThat(table.size()).as("the first run, put as it filled").isEqualTo(RowTableLoad.RUN);
    for (int id = RowTableLoad.RUN + 1; id <= RowTableLoad.RUN + 10; id++) {
      load.add(row(id));
    }
    assertThat(table.size()).isEqualTo(RowTableLoad.RUN);
    load.finish();
    assertThat(table.size()).isEqualTo(RowTableLoad.RUN + 10);
    assertThat(table.get(FORM.keyOf(row(RowTableLoad.RUN + 10))))
        .isEqualTo(row(RowTableLoad.RUN + 10));
  }

  @Test
  void aTableExpectedToBeBigIsPutInLongerRuns() {
    RowTable table = new RowTable();
    int expected = 4 * RowTableLoad.RUN + 4000; // runs of a quarter of it, not a power of two
    RowTableLoad load = new RowTableLoad(table, expected);
    for (int id = 1; id <= RowTableLoad.RUN; id++) {
      load.add(row(id));
    }
    assertThat(table.size()).as("a longer run is not full yet").isZero();
    for (int id = RowTableLoad.RUN + 1; id <= expected / 4; id++) {
      load.add(row(id));
    }
    assertThat(table.size()).isEqualTo(expected / 4);
    load.finish();
    RowTable putInTurn = new RowTable();
    for (int id = 1; id <= expected / 4; id++) {
      putInTurn.put(row(id));
      assertThat(table.get(FORM.keyOf(row(id)))).isEqualTo(row(id));
    }
    assertThat(table.indexBytes()).isEqualTo(putInTurn.indexBytes());
  }

  private static byte[] row(long id) {
    return FORM.encode(NODES.objectNode().put("id", id).put("v", "v" + id));
  }
}

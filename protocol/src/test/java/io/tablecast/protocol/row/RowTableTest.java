package io.tablecast.protocol.row;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** RowTable behaves as a map from key to row through any mix of puts, replaces and removes. */
class RowTableTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final RowForm FORM =
      new RowForm(
          List.of(
              new ColumnInfo("v", "text", ColumnKind.STRING),
              new ColumnInfo("region", "text", ColumnKind.STRING),
              new ColumnInfo("id", "bigint", ColumnKind.INTEGER)),
          List.of("region", "id"));

  @Test
  void anIntegerKeyHashesWithoutItsBytesAsItsBytesHash() {
    RowForm byId =
        new RowForm(List.of(new ColumnInfo("id", "bigint", ColumnKind.INTEGER)), List.of("id"));
    Random random = new Random(5);
    List<Long> values = new java.util.ArrayList<>(List.of(0L, 1L, -1L, 63L, 64L, -64L, -65L));
    values.addAll(List.of(Long.MAX_VALUE, Long.MIN_VALUE, (long) Integer.MAX_VALUE, 1L << 56));
    for (int i = 0; i < 10_000; i++) {
      values.add(random.nextLong() >> random.nextInt(64));
    }
    for (long v : values) {
      byte[] key = byId.encodeKey(NODES.objectNode().put("id", v));
      assertThat(KeyHash.ofIntegerKey(v)).as("key %d", v).isEqualTo(KeyHash.of(key, 0, key.length));
    }
  }

  @Test
  void behavesAsAMapThroughRandomPutsReplacesAndRemoves() {
    Random random = new Random(3);
    RowTable table = new RowTable();
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    for (int i = 0; i < 100_000; i++) {
      // few distinct keys at times (long probe runs, many replaces), many at others (growth)
      long id = random.nextInt(i < 50_000 ? 5_000 : 60);
      String region = random.nextBoolean() ? "eu" : "us";
      byte[] key = FORM.encodeKey(NODES.objectNode().put("region", region).put("id", id));
      ByteBuffer k = ByteBuffer.wrap(key);
      if (random.nextInt(3) == 0) {
        assertThat(table.remove(key)).isEqualTo(model.remove(k));
      } else {
        byte[] row =
            FORM.encode(NODES.objectNode().put("v", "v" + i).put("region", region).put("id", id));
        assertThat(table.put(row)).isEqualTo(model.put(k, row));
      }
      assertThat(table.size()).isEqualTo(model.size());
      if (i % 10_000 == 0) {
        for (Map.Entry<ByteBuffer, byte[]> e : model.entrySet()) {
          assertThat(table.get(e.getKey().array())).isSameAs(e.getValue());
        }
        assertThat(table.rows()).containsExactlyInAnyOrderElementsOf(model.values());
      }
    }
    for (int id = 0; id < 5_000; id++) { // absent keys are absent after every shift
      byte[] key = FORM.encodeKey(NODES.objectNode().put("region", "eu").put("id", (long) id));
      assertThat(table.get(key)).isEqualTo(model.get(ByteBuffer.wrap(key)));
    }
    table.clear();
    assertThat(table.size()).isZero();
    assertThat(table.rows()).isEmpty();
  }

  @Test
  void theRowsTakenStayAsTheyWereThroughLaterPutsRemovesGrowthAndClear() {
    Random random = new Random(7);
    RowTable table = new RowTable();
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    List<List<byte[]>> taken = new java.util.ArrayList<>();
    List<List<byte[]>> expected = new java.util.ArrayList<>();
    for (int i = 0; i < 40_000; i++) {
      long id = random.nextInt(i < 20_000 ? 2_000 : 30_000);
      byte[] row = row(id, "v" + i);
      ByteBuffer k = ByteBuffer.wrap(FORM.keyOf(row));
      if (random.nextInt(3) == 0) {
        table.remove(k.array());
        model.remove(k);
      } else {
        table.put(row);
        model.put(k, row);
      }
      if (i % 3_000 == 0
          || random.nextInt(5_000) == 0) { // sometimes two views with no write between
        taken.add(table.rows());
        expected.add(List.copyOf(model.values()));
      }
      if (i == 30_000) {
        table.clear();
        model.clear();
      }
    }
    for (int v = 0; v < taken.size(); v++) {
      List<byte[]> rows = taken.get(v);
      assertThat(rows).as("view %d", v).containsExactlyInAnyOrderElementsOf(expected.get(v));
      List<byte[]> byIndex = new java.util.ArrayList<>();
      for (int i = 0; i < rows.size(); i++) {
        byIndex.add(rows.get(i));
      }
      assertThat(byIndex)
          .as("view %d by index, in its iteration order", v)
          .containsExactlyElementsOf(rows);
    }
  }

  @Test
  void marksFollowTheirRowsThroughPutsRemovesShiftsAndGrowth() {
    Random random = new Random(5);
    RowTable table = new RowTable();
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    for (long id = 0; id < 2_000; id++) { // rows from before the marking: unmarked
      byte[] row = row(id, "before");
      table.put(row);
      model.put(ByteBuffer.wrap(FORM.keyOf(row)), row);
    }
    long unmarkedBytes = table.indexBytes();
    table.startMarking();
    assertThat(table.indexBytes() - unmarkedBytes)
        .as("one bit per slot (a slot: 8 bytes of index)")
        .isEqualTo(unmarkedBytes / 64);
    java.util.Set<ByteBuffer> marked = new java.util.HashSet<>();
    for (int i = 0; i < 60_000; i++) {
      // a narrow key range at first (long probe runs, shifts), a wide one later (growth)
      long id = random.nextInt(i < 30_000 ? 3_000 : 40_000);
      byte[] row = row(id, "v" + i);
      ByteBuffer k = ByteBuffer.wrap(FORM.keyOf(row));
      switch (random.nextInt(4)) {
        case 0 -> {
          table.remove(k.array());
          model.remove(k);
          marked.remove(k);
        }
        case 1 -> {
          table.put(row); // a row put while marking is marked
          model.put(k, row);
          marked.add(k);
        }
        default -> {
          assertThat(table.markAndGet(k.array())).isSameAs(model.get(k));
          if (model.containsKey(k)) {
            marked.add(k);
          }
        }
      }
      if (i % 5_000 == 0 || i == 59_999) {
        List<byte[]> unmarked = new java.util.ArrayList<>();
        table.forEachUnmarked(unmarked::add);
        assertThat(unmarked)
            .containsExactlyInAnyOrderElementsOf(
                model.entrySet().stream()
                    .filter(e -> !marked.contains(e.getKey()))
                    .map(Map.Entry::getValue)
                    .toList());
      }
    }
    table.stopMarking();
    assertThat(table.marking()).isFalse();
    table.startMarking();
    List<byte[]> all = new java.util.ArrayList<>();
    table.forEachUnmarked(all::add);
    assertThat(all).as("a new marking starts with every row unmarked").hasSize(model.size());
  }

  @Test
  void anIndexSizedForFarMoreRowsShrinksToTwiceWhatTheyNeedKeepingEveryRow() {
    RowTable sized = new RowTable(1_000_000);
    RowTable grown = new RowTable();
    for (long id = 0; id < 1000; id++) {
      sized.put(row(id, "v" + id));
      grown.put(row(id, "v" + id));
    }
    long before = sized.indexBytes();
    sized.fit();
    assertThat(sized.indexBytes()).isLessThan(before / 100).isEqualTo(2 * grown.indexBytes());
    for (long id = 0; id < 1000; id++) {
      assertThat(sized.get(FORM.keyOf(row(id, "x")))).isEqualTo(row(id, "v" + id));
    }
    assertThat(sized.size()).isEqualTo(1000);
    long fitted = sized.indexBytes();
    sized.fit(); // room to grow once is kept
    grown.fit();
    assertThat(sized.indexBytes()).isEqualTo(fitted);
    assertThat(grown.indexBytes()).isEqualTo(fitted / 2);
  }

  @Test
  void rowsPutAllAtOnceAreWhatPuttingThemInTurnMakes() {
    Random random = new Random(11);
    byte[][] rows = new byte[20_005][];
    int[] hashes = new int[rows.length];
    Map<ByteBuffer, byte[]> model = new HashMap<>();
    RowTable putAll = new RowTable(100); // grows on the way
    RowTable putInTurn = new RowTable();
    for (int from = 0; from < 20_000; from += 5000) { // four runs, keys repeated across them
      for (int i = 0; i < 5000; i++) {
        byte[] row =
            FORM.encode(
                NODES
                    .objectNode()
                    .put("v", "v" + (from + i))
                    .put("region", random.nextBoolean() ? "eu" : "us")
                    .put("id", random.nextInt(12_000))); // some keys twice or more in a run
        rows[i] = row;
        hashes[i] = KeyHash.ofRowKey(row);
        model.put(ByteBuffer.wrap(FORM.keyOf(row)), row); // the last row of a key wins
        putInTurn.put(row);
      }
      rows[5000] = rows[0]; // past count: not put
      putAll.putAll(rows, hashes, 5000);
    }

    assertThat(putAll.size()).isEqualTo(model.size()).isEqualTo(putInTurn.size());
    model.forEach((key, row) -> assertThat(putAll.get(key.array())).isSameAs(row));
    assertThat(putAll.indexBytes()).isEqualTo(putInTurn.indexBytes());
  }

  private static byte[] row(long id, String v) {
    return FORM.encode(NODES.objectNode().put("v", v).put("region", "eu").put("id", id));
  }

  @Test
  void consecutiveIntegerKeysHaveDistinctHashes() {
    RowForm form =
        new RowForm(List.of(new ColumnInfo("id", "bigint", ColumnKind.INTEGER)), List.of("id"));
    java.util.Set<Integer> hashes = new java.util.HashSet<>();
    int n = 1_000_000;
    for (long id = 1; id <= n; id++) {
      byte[] key = form.encodeKey(NODES.objectNode().put("id", id));
      hashes.add(KeyHash.of(key, 0, key.length));
    }
    assertThat(hashes.size()).as("distinct hashes of %d keys", n).isGreaterThan(n - n / 1000);
  }
}

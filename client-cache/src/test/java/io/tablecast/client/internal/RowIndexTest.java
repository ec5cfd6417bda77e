package io.tablecast.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.row.KeyHash;
import io.tablecast.protocol.row.RowForm;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link RowIndex} behaves as a map of normalized keys, whatever the order of its changes. */
class RowIndexTest {

  /**
   * An integer key hashes here as the server's image hashes its bytes, so that a snapshot, sent in
   * the image's slot order, fills this index's slots in order (docs/BENCHMARKS.md, "the server's
   * slot order").
   */
  @Test
  void anIntegerKeyHashesAsTheServersImageHashesIt() {
    RowForm form =
        new RowForm(List.of(new ColumnInfo("id", "bigint", ColumnKind.INTEGER)), List.of("id"));
    Random random = new Random(9);
    for (int i = 0; i < 10_000; i++) {
      long id = i < 5_000 ? i - 100 : random.nextLong() >> random.nextInt(64);
      byte[] key = form.encodeKey(JsonNodeFactory.instance.objectNode().put("id", id));
      assertThat(RowIndex.hash(id)).as("key %d", id).isEqualTo(KeyHash.of(key, 0, key.length));
    }
  }

  @Test
  void randomChangesOfLongAndOtherKeysGiveWhatAMapGives() {
    Random random = new Random(7);
    RowIndex<String> index = new RowIndex<>(0);
    Map<Object, String> model = new HashMap<>();
    for (int step = 0; step < 200_000; step++) {
      Object key = key(random);
      int op = random.nextInt(3);
      if (op == 0) {
        String value = "v" + step;
        assertThat(index.put(key, value)).isEqualTo(model.put(key, value));
      } else if (op == 1) {
        assertThat(index.remove(key)).isEqualTo(model.remove(key));
      } else {
        assertThat(index.get(key)).isEqualTo(model.get(key));
      }
      assertThat(index.size()).isEqualTo(model.size());
    }
    Map<Object, String> all = new HashMap<>();
    index.forEach(all::put);
    assertThat(all).isEqualTo(model);
    for (Object k : model.keySet()) {
      assertThat(index.get(k)).isEqualTo(model.get(k));
    }
  }

  @Test
  void aMappedIndexHoldsWhatTheMappingGaveUnderEveryKeyAndLeavesTheSourceAlone() {
    Random random = new Random(8);
    RowIndex<String> index = new RowIndex<>(0);
    Map<Object, String> model = new HashMap<>();
    for (int step = 0; step < 20_000; step++) {
      Object key = key(random);
      if (random.nextInt(4) == 0) {
        index.remove(key);
        model.remove(key);
      } else {
        index.put(key, "v" + step);
        model.put(key, "v" + step);
      }
    }
    // one row in three left out: the removals shift probe runs in the new index
    RowIndex<String> mapped =
        index.mapped((key, v) -> v.hashCode() % 3 == 0 ? null : key + "=" + v);
    Map<Object, String> expected = new HashMap<>();
    model.forEach((k, v) -> expected.put(k, v.hashCode() % 3 == 0 ? null : k + "=" + v));
    expected.values().removeIf(java.util.Objects::isNull);
    assertThat(expected.size()).isLessThan(model.size()).isGreaterThan(model.size() / 2);
    assertThat(mapped.size()).isEqualTo(expected.size());
    for (Object k : model.keySet()) {
      assertThat(mapped.get(k)).as("%s", k).isEqualTo(expected.get(k));
      assertThat(index.get(k)).isEqualTo(model.get(k));
    }
    Map<Object, String> all = new HashMap<>();
    mapped.forEach(all::put);
    assertThat(all).isEqualTo(expected);
    mapped.put(-1L, "new");
    assertThat(index.get(-1L)).as("the source's slots are its own").isNull();
  }

  /** Mostly longs (a few clustered, to make long probe runs), some strings, lists, big integers. */
  private static Object key(Random random) {
    int kind = random.nextInt(10);
    if (kind < 6) {
      return (long) random.nextInt(2_000);
    }
    if (kind < 8) {
      return "k" + random.nextInt(500);
    }
    if (kind < 9) {
      return List.of((long) random.nextInt(20), "p" + random.nextInt(20));
    }
    return BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.valueOf(random.nextInt(50) + 1));
  }

  @Test
  void aLongKeyAndTheSameNumberAsAnotherKindAreDifferentKeys() {
    RowIndex<String> index = new RowIndex<>(4);
    index.put(1L, "long");
    index.put("1", "text");
    assertThat(index.get(1L)).isEqualTo("long");
    assertThat(index.get("1")).isEqualTo("text");
    assertThat(index.remove(1L)).isEqualTo("long");
    assertThat(index.get("1")).isEqualTo("text");
    assertThat(index.get(1L)).isNull();
  }

  /**
   * Keys 1 to {@code n} in the slot order of the server's image of them: a table of the capacity
   * {@code RowTable} gives {@code n} rows (at most three quarters full, a power of two), each key
   * at its hash's slot or the next free one, read slot by slot, as a snapshot is sent.
   */
  record Image(long[] order, int longestProbe) {}

  static Image imageSlotOrder(int n) {
    int capacity = 16;
    while (capacity * 3L / 4 < n) {
      capacity <<= 1;
    }
    int mask = capacity - 1;
    long[] slots = new long[capacity];
    int longest = 0;
    for (long key = 1; key <= n; key++) {
      int home = KeyHash.ofIntegerKey(key) & mask;
      int i = home;
      while (slots[i] != 0) {
        i = (i + 1) & mask;
      }
      slots[i] = key;
      longest = Math.max(longest, (i - home) & mask);
    }
    long[] order = new long[n];
    int next = 0;
    for (long key : slots) {
      if (key != 0) {
        order[next++] = key;
      }
    }
    return new Image(order, longest);
  }

  /**
   * A snapshot bigger than the index was sized for (700,000 rows, the image two thirds full) comes
   * round each of its capacities twice before it grows, the second turn's keys behind the first's:
   * that made runs every put walked (the 2026-12-03 regression: a ten-million-row mirror never got
   * ready, the server closing its silent connection after a minute, again and again). The index
   * grows instead once a new key's run is that long.
   */
  @Test
  void aSnapshotInTheImagesSlotOrderNeverMakesARunEveryPutWalks() {
    long[] order = imageSlotOrder(700_000).order();
    RowIndex<Long> index = new RowIndex<>(0);
    int longest = 0;
    for (int i = 0; i < order.length; i++) {
      index.put(order[i], order[i]);
      if (i % 20_000 == 0) {
        longest = Math.max(longest, index.longestProbe());
      }
    }
    assertThat(longest).as("the longest way a key lay from its slot").isLessThanOrEqualTo(2048);
    assertThat(index.size()).isEqualTo(order.length);
    for (long key = 1; key <= order.length; key++) {
      assertThat(index.get(key)).isEqualTo(key);
    }
  }

  /**
   * Reserved for the rows announced, the index has the image's capacity for them, and their keys in
   * the image's slot order each land in their own slot.
   */
  @Test
  void reservedForTheRowsAnnouncedTheImagesOrderFillsItSlotAfterSlot() {
    Image image = imageSlotOrder(700_000);
    long[] order = image.order();
    RowIndex<Long> index = new RowIndex<>(1 << 10);
    index.reserve(order.length);
    for (long key : order) {
      index.put(key, key);
    }
    assertThat(index.longestProbe()).isEqualTo(image.longestProbe());
    index.reserve(10); // never shrinks
    assertThat(index.get(order[0])).isEqualTo(order[0]);
    assertThat(index.size()).isEqualTo(order.length);
  }
}

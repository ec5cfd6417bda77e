package io.tablecast.protocol.row;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A column read by position ({@link RowForm#valueToJava}, {@link DirectRead}) gives what a reader
 * walking the row gives: the same value for every row the encoder makes, and for corrupt or cut
 * rows the same value or the very same error as the walk the read used before (kept here as {@link
 * #readByWalk}).
 */
class DirectReadTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final List<ColumnInfo> columns = new ArrayList<>();
  private final RowForm form;

  DirectReadTest() {
    for (ColumnKind kind : ColumnKind.values()) {
      columns.add(new ColumnInfo("c_" + kind.name().toLowerCase(Locale.ROOT), "t", kind));
    }
    // two key columns of the fast kinds, and every kind (those two again) among the others
    columns.add(new ColumnInfo("k_decimal", "t", ColumnKind.DECIMAL));
    columns.add(new ColumnInfo("k_string", "t", ColumnKind.STRING));
    form = new RowForm(columns, List.of("k_string", "c_integer", "k_decimal"));
  }

  @Test
  void everyColumnOfEveryRowReadsAsTheWholeRowsDecoding() {
    Random random = new Random(3);
    for (int i = 0; i < 3_000; i++) {
      byte[] bytes = form.encode(randomRow(random));
      ObjectNode whole = form.toNode(bytes);
      for (int c = 0; c < columns.size(); c++) {
        Object expected = JavaValues.toJava(whole.get(columns.get(c).name()));
        assertThat(form.valueToJava(bytes, c))
            .as("column %s of %s", columns.get(c).name(), whole)
            .isEqualTo(expected);
        assertThat(form.valueToNode(bytes, c)).isEqualTo(whole.get(columns.get(c).name()));
        assertThat(form.valueToJava(bytes, c, form.anchors(bytes)))
            .as("column %s of %s from the row's anchors", columns.get(c).name(), whole)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void corruptAndCutRowsGiveTheWalksValueOrItsVeryError() {
    Random random = new Random(4);
    int errors = 0;
    int values = 0;
    for (int i = 0; i < 3_000; i++) {
      byte[] good = form.encode(randomRow(random));
      byte[] bad =
          switch (i % 4) {
            case 0 -> Arrays.copyOf(good, random.nextInt(good.length)); // cut short
            case 1 -> flipped(good, random, 1);
            case 2 -> flipped(good, random, 3);
            default -> withBytes(good, random); // a varint made long, or a redundant zero group
          };
      for (int i2 = 0; i2 < columns.size(); i2++) {
        int c = i2;
        String expected = outcome(() -> readByWalk(bad, c));
        String actual = outcome(() -> form.valueToJava(bad, c));
        String anchored = outcome(() -> form.valueToJava(bad, c, form.anchors(bad)));
        if (!actual.equals(expected) || !anchored.equals(expected)) { // hex only for a failure
          assertThat(actual)
              .as("column %s of %s", columns.get(c).name(), hex(bad))
              .isEqualTo(expected);
          assertThat(anchored)
              .as("column %s of %s from the row's anchors", columns.get(c).name(), hex(bad))
              .isEqualTo(expected);
        }
        if (expected.startsWith("error")) {
          errors++;
        } else {
          values++;
        }
      }
    }
    assertThat(errors).as("reads refused").isGreaterThan(1_000);
    assertThat(values).as("reads that gave a value").isGreaterThan(1_000);
  }

  @Test
  void anchorsLetAReadSkipTheValuesBeforeThemAndStopWhereTheRowGrowsLong() {
    List<ColumnInfo> wide = new ArrayList<>();
    wide.add(new ColumnInfo("id", "t", ColumnKind.INTEGER));
    for (int i = 1; i < 30; i++) {
      wide.add(new ColumnInfo("c" + i, "t", i % 3 == 0 ? ColumnKind.DECIMAL : ColumnKind.STRING));
    }
    RowForm wideForm = new RowForm(wide, List.of("id"));
    Random random = new Random(5);
    int[] kept = new int[RowLayout.ANCHORS + 1];
    for (int i = 0; i < 2_000; i++) {
      ObjectNode row = NODES.objectNode().put("id", i);
      int longest = random.nextInt(4) == 0 ? 300 : 20; // some rows pass the anchors' reach
      for (int c = 1; c < wide.size(); c++) {
        if (random.nextInt(5) == 0) {
          row.putNull("c" + c);
        } else if (c % 3 == 0) {
          row.put("c" + c, random.nextInt(100_000) + "." + random.nextInt(100));
        } else {
          row.put("c" + c, "x".repeat(random.nextInt(longest)));
        }
      }
      byte[] bytes = wideForm.encode(row);
      int anchors = wideForm.anchors(bytes);
      assertThat(anchors).isNotZero();
      int slots = 0;
      for (int slot = 0; slot < RowLayout.ANCHORS; slot++) {
        slots += ((anchors >>> (slot * 10)) & 0x3ff) != 0x3ff ? 1 : 0;
      }
      kept[slots]++;
      for (int c = 0; c < wide.size(); c++) {
        assertThat(wideForm.valueToJava(bytes, c, anchors))
            .as("column %d of %s", c, row)
            .isEqualTo(wideForm.valueToJava(bytes, c));
      }
    }
    assertThat(kept[RowLayout.ANCHORS]).as("rows with every anchor").isGreaterThan(1_000);
    assertThat(kept[0] + kept[1] + kept[2]).as("rows too long for some").isGreaterThan(100);
  }

  @Test
  void aCompactDecimalReadsAsTheBigDecimalOfItsText() {
    int compact = 0;
    for (int c = 0; c < columns.size(); c++) {
      if (columns.get(c).kind() != ColumnKind.DECIMAL) {
        continue;
      }
      Random random = new Random(6);
      for (int i = 0; i < 500; i++) {
        byte[] bytes = form.encode(randomRow(random));
        Object text = form.valueToJava(bytes, c);
        java.math.BigDecimal d = form.compactDecimal(bytes, c, form.anchors(bytes));
        if (d != null) {
          compact++;
          assertThat(d).isEqualTo(new java.math.BigDecimal((String) text)); // scale included
        }
      }
    }
    assertThat(compact).as("compact decimals read").isGreaterThan(200);
    assertThat(form.compactDecimal(form.encode(randomRow(new Random(7))), 0, 0))
        .as("not a DECIMAL column")
        .isNull();
  }

  @Test
  void aColumnIsFoundByItsNameWhateverStringObjectCarriesIt() {
    for (int c = 0; c < columns.size(); c++) {
      String name = columns.get(c).name();
      assertThat(form.indexOf(name)).isEqualTo(c);
      assertThat(form.indexOf(new String(name.toCharArray()))).isEqualTo(c); // not interned
    }
    assertThat(form.indexOf("c_nope")).isEqualTo(-1);
    assertThat(form.indexOf(null)).isEqualTo(-1);
  }

  /** The read as it was before the positional one: a reader walking to the column. */
  @Test
  void aRowIsCheckedAsTheReaderChecksIt() {
    Random random = new Random(5);
    int refused = 0;
    for (int i = 0; i < 6_000; i++) {
      byte[] good = form.encode(randomRow(random));
      byte[] row =
          switch (i % 5) {
            case 0 -> good;
            case 1 -> Arrays.copyOf(good, random.nextInt(good.length)); // cut short
            case 2 -> flipped(good, random, 1);
            case 3 -> Arrays.copyOf(good, good.length + 1 + random.nextInt(3)); // bytes left
            default -> withBytes(good, random);
          };
      String expected = outcome(() -> checkByReader(row));
      String actual = outcome(() -> check(row));
      if (!actual.equals(expected)) {
        assertThat(actual).as("check of %s", hex(row)).isEqualTo(expected);
      }
      refused += expected.startsWith("error") ? 1 : 0;
    }
    assertThat(refused).as("rows refused").isGreaterThan(2_000).isLessThan(5_500);
  }

  private Object check(byte[] row) {
    form.check(row);
    return null;
  }

  /** The check {@link RowForm#check} made with a reader per row (before it walked as reads do). */
  private Object checkByReader(byte[] row) {
    RowSource in = new RowSource(row, 0, row.length);
    int length = Varints.readLength(in);
    int keyStart = in.position();
    in.skip(length);
    int keyEnd = keyStart + length;
    in.position(keyStart);
    for (String key : form.primaryKey()) {
      ValueForm.skipOne(formOf(form.indexOf(key)), in);
    }
    if (in.position() != keyEnd) {
      throw in.malformed("the key should end at byte " + keyEnd);
    }
    List<Integer> others = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      if (!form.primaryKey().contains(columns.get(i).name())) {
        others.add(i);
      }
    }
    int bitmap = in.skip((others.size() + 7) / 8);
    for (int j = 0; j < others.size(); j++) {
      if ((row[bitmap + (j >>> 3)] & (1 << (j & 7))) == 0) {
        ValueForm.skipOne(formOf(others.get(j)), in);
      }
    }
    if (!in.atEnd()) {
      throw in.malformed("bytes left after the last column");
    }
    return null;
  }

  private Object readByWalk(byte[] row, int column) {
    Objects.checkIndex(column, columns.size());
    RowSource in = new RowSource(row, 0, row.length);
    int length = Varints.readLength(in);
    int keyStart = in.position();
    in.skip(length);
    int keyEnd = keyStart + length;
    in.position(keyStart);
    int keyPlace = form.primaryKey().indexOf(columns.get(column).name());
    if (keyPlace >= 0) {
      for (int k = 0; k < keyPlace; k++) {
        ValueForm.skipOne(formOf(form.indexOf(form.primaryKey().get(k))), in);
      }
      return formOf(column).toJava(in);
    }
    List<Integer> others = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      if (!form.primaryKey().contains(columns.get(i).name())) {
        others.add(i);
      }
    }
    in.position(keyEnd);
    int bitmap = in.skip((others.size() + 7) / 8);
    for (int j = 0; ; j++) {
      boolean isNull = (row[bitmap + (j >>> 3)] & (1 << (j & 7))) != 0;
      if (others.get(j) == column) {
        return isNull ? null : formOf(column).toJava(in);
      }
      if (!isNull) {
        ValueForm.skipOne(formOf(others.get(j)), in);
      }
    }
  }

  private ValueForm formOf(int column) {
    return ValueForm.of(columns.get(column).kind());
  }

  private ObjectNode randomRow(Random random) {
    return randomRow(form, random);
  }

  /**
   * A row of {@code form} with a random value from {@link RowFormTest#VALUES} in each column, NULL
   * in a quarter of the non-key columns.
   */
  static ObjectNode randomRow(RowForm form, Random random) {
    ObjectNode row = NODES.objectNode();
    for (ColumnInfo c : form.columns()) {
      List<JsonNode> values = RowFormTest.VALUES.get(c.kind());
      if (random.nextInt(4) == 0 && !form.primaryKey().contains(c.name())) {
        row.putNull(c.name());
      } else {
        row.set(c.name(), values.get(random.nextInt(values.size())));
      }
    }
    return row;
  }

  private static byte[] flipped(byte[] row, Random random, int count) {
    byte[] out = row.clone();
    for (int i = 0; i < count && out.length > 0; i++) {
      out[random.nextInt(out.length)] = (byte) random.nextInt(256);
    }
    return out;
  }

  private static byte[] withBytes(byte[] row, Random random) {
    int at = random.nextInt(row.length + 1);
    byte[] insert =
        random.nextBoolean()
            ? new byte[] {(byte) 0x80, 0x00} // a redundant zero group where a varint begins
            : new byte[] {
              (byte) 0xff,
              (byte) 0xff,
              (byte) 0xff,
              (byte) 0xff,
              (byte) 0xff,
              (byte) 0xff,
              (byte) 0xff,
              (byte) 0xff,
              (byte) 0xff,
              0x01
            }; // 64 bits
    byte[] out = new byte[row.length + insert.length];
    System.arraycopy(row, 0, out, 0, at);
    System.arraycopy(insert, 0, out, at, insert.length);
    System.arraycopy(row, at, out, at + insert.length, row.length - at);
    return out;
  }

  private static String outcome(java.util.function.Supplier<Object> read) {
    try {
      Object v = read.get();
      return "value " + (v == null ? "null" : v.getClass().getSimpleName() + " " + v);
    } catch (RuntimeException e) {
      return "error " + e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  private static String hex(byte[] row) {
    StringBuilder sb = new StringBuilder();
    for (byte b : row) {
      sb.append(String.format("%02x", b));
    }
    return sb.toString();
  }
}

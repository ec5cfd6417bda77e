package io.tablecast.protocol.row;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A column decoded straight to Java gives what the JSON node of the same column converts to. */
class ValueToJavaTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** A column c_KIND of every kind, in the enum's order. */
  private static List<ColumnInfo> columnOfEveryKind() {
    List<ColumnInfo> columns = new ArrayList<>();
    for (ColumnKind kind : ColumnKind.values()) {
      columns.add(new ColumnInfo("c_" + kind.name().toLowerCase(), "t", kind));
    }
    return columns;
  }

  @Test
  void everyKindDecodesToTheValueAndClassOfItsJsonNode() {
    Random random = new Random(11);
    List<ColumnInfo> columns = columnOfEveryKind();
    RowForm form = new RowForm(columns, List.of("c_string", "c_integer"));
    int[] compared = new int[ColumnKind.values().length];
    for (int i = 0; i < 2_000; i++) {
      ObjectNode row = DirectReadTest.randomRow(form, random);
      byte[] bytes = form.encode(row);
      for (int c = 0; c < columns.size(); c++) {
        Object expected = JavaValues.toJava(form.valueToNode(bytes, c));
        Object actual = form.valueToJava(bytes, c);
        assertThat(actual).as("column %s of %s", columns.get(c).name(), row).isEqualTo(expected);
        if (expected != null) {
          assertThat(actual).hasSameClassAs(expected);
          compared[columns.get(c).kind().ordinal()]++;
        }
      }
    }
    assertThat(java.util.Arrays.stream(compared).min().orElseThrow())
        .as("non-null values compared of the rarest kind")
        .isGreaterThan(100);
  }

  @Test
  void oneWalkOverTheWantedColumnsGivesWhatEachColumnReadGives() {
    Random random = new Random(12);
    List<ColumnInfo> columns = columnOfEveryKind();
    RowForm form = new RowForm(columns, List.of("c_date", "c_integer"));
    boolean[] wanted = new boolean[columns.size()];
    boolean[] noDecimals = new boolean[columns.size()];
    boolean[] allDecimals = new boolean[columns.size()];
    java.util.Arrays.fill(allDecimals, true);
    int nonNull = 0;
    int decimals = 0;
    for (int i = 0; i < 2_000; i++) {
      byte[] bytes = form.encode(DirectReadTest.randomRow(form, random));
      for (int c = 0; c < wanted.length; c++) {
        wanted[c] = random.nextInt(3) > 0;
      }
      Object[] values = new Object[columns.size()];
      form.valuesToJava(bytes, wanted, noDecimals, values);
      Object[] withDecimals = new Object[columns.size()];
      form.valuesToJava(bytes, wanted, allDecimals, withDecimals);
      for (int c = 0; c < wanted.length; c++) {
        Object expected = wanted[c] ? form.valueToJava(bytes, c) : null;
        assertThat(values[c]).as("column %s, wanted %s", c, wanted[c]).isEqualTo(expected);
        nonNull += values[c] != null ? 1 : 0;
        if (columns.get(c).kind() == ColumnKind.DECIMAL
            && withDecimals[c] instanceof BigDecimal d) {
          assertThat(d).as("%s", expected).isEqualTo(new BigDecimal((String) expected));
          decimals++;
        } else {
          assertThat(withDecimals[c]).isEqualTo(expected);
        }
      }
    }
    assertThat(nonNull).isGreaterThan(10_000);
    assertThat(decimals).as("decimals read as BigDecimal").isGreaterThan(300);
  }

  @Test
  void integersTakeTheSmallestOfIntegerLongAndBigInteger() {
    RowForm form =
        new RowForm(List.of(new ColumnInfo("n", "bigint", ColumnKind.INTEGER)), List.of());
    for (long n : new long[] {7, -70_000, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
      assertThat(form.valueToJava(form.encode(NODES.objectNode().put("n", n)), 0))
          .isEqualTo((int) n);
    }
    assertThat(form.valueToJava(form.encode(NODES.objectNode().put("n", 1L << 31)), 0))
        .isEqualTo(1L << 31);
    assertThat(form.valueToJava(form.encode(NODES.objectNode().put("n", 1L << 40)), 0))
        .isEqualTo(1L << 40);
    BigInteger huge = BigInteger.TWO.pow(64);
    assertThat(form.valueToJava(form.encode(NODES.objectNode().put("n", huge)), 0)).isEqualTo(huge);
  }

  @Test
  void aDecimalPrintsAsBigDecimalsPlainText() {
    Random random = new Random(5);
    List<Long> unscaled =
        new ArrayList<>(
            List.of(
                0L, 1L, -1L, 5L, -5L, 10L, 99L, Long.MAX_VALUE, Long.MIN_VALUE, -Long.MAX_VALUE));
    for (int i = 0; i < 5_000; i++) {
      long v = random.nextLong() >> random.nextInt(64);
      unscaled.add(v);
    }
    for (long u : unscaled) {
      for (int scale : new int[] {0, 1, 2, 3, 9, 18, 19, 20, 40}) {
        assertThat(DecimalText.plain(u, scale))
            .as("%d scale %d", u, scale)
            .isEqualTo(new BigDecimal(BigInteger.valueOf(u), scale).toPlainString());
      }
    }
  }

  @Test
  void aPlainDecimalIsReadWithoutABigDecimalExactlyWhenItPrintsBackTheSame() {
    Random random = new Random(9);
    List<String> texts =
        new ArrayList<>(
            List.of(
                "0",
                "-0",
                "0.00",
                "-0.00",
                "00",
                "01.5",
                ".5",
                "5.",
                "-",
                "",
                "1.2.3",
                "+1",
                "1e5",
                "12.30",
                "-0.5",
                "999999999999999999",
                "9999999999999999999",
                "-99999999999999999.9",
                "0.00000000000000001",
                "0.000000000000000001"));
    String alphabet = "0123456789.-";
    for (int i = 0; i < 50_000; i++) {
      StringBuilder t = new StringBuilder(random.nextBoolean() ? "-" : "");
      for (int n = 1 + random.nextInt(22); n > 0; n--) {
        t.append(alphabet.charAt(random.nextInt(random.nextInt(8) == 0 ? 12 : 10)));
      }
      if (random.nextInt(3) == 0) {
        t.insert(t.length() / 2, '.');
      }
      texts.add(t.toString());
    }
    int accepted = 0;
    for (String text : texts) {
      boolean printsBack;
      try {
        printsBack = new BigDecimal(text).toPlainString().equals(text);
      } catch (NumberFormatException notADecimal) {
        printsBack = false;
      }
      long digits = text.chars().filter(Character::isDigit).count();
      assertThat(DecimalText.isCompactPlain(text)).as(text).isEqualTo(printsBack && digits <= 18);
      if (DecimalText.isCompactPlain(text)) {
        accepted++;
        BigDecimal d = new BigDecimal(text);
        assertThat(DecimalText.unscaled(text))
            .as(text)
            .isEqualTo(d.unscaledValue().longValueExact());
        assertThat(DecimalText.scale(text)).as(text).isEqualTo(d.scale());
      }
    }
    assertThat(accepted).isGreaterThan(1_000);
  }
}

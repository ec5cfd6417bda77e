package io.tablecast.protocol.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A row written from its texts as UTF-8 slices ({@link RowForm#encodeTexts(TextSlices)}) has the
 * very bytes of the row written from the same texts as strings, and is left to the strings' path
 * (null) exactly when that path would not write every text as it is.
 */
class TextSlicesTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private static final RowForm FORM =
      new RowForm(
          List.of(
              new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
              new ColumnInfo("code", "varchar(300)", ColumnKind.STRING),
              new ColumnInfo("n", "bigint", ColumnKind.INTEGER),
              new ColumnInfo("price", "numeric(12,4)", ColumnKind.DECIMAL),
              new ColumnInfo("name", "text", ColumnKind.STRING),
              new ColumnInfo("on", "boolean", ColumnKind.BOOLEAN),
              new ColumnInfo("at", "timestamptz", ColumnKind.TIMESTAMP_TZ)),
          List.of("code", "id"));

  private static final String[] INTEGERS = {
    "0", "7", "-7", "123456789012345678", "-123456789012345678", "1234567890123456789", "007",
    "-0", "+5", "1e3", "", "-", " 5", "٣"
  };
  private static final String[] DECIMALS = {
    "0",
    "0.00",
    "-1.50",
    "12.3400",
    "99999999.9999",
    "-0.01",
    "5",
    "-0.00",
    "1.",
    ".5",
    "01.5",
    "NaN",
    "1234567890.123456789",
    "-"
  };

  /** Bytes that are not UTF-8, which a decoder reads with replacement characters. */
  private static final byte[] NOT_UTF8 = {'a', (byte) 0xc3, '(', (byte) 0xff};

  private static final String DECODED_NOT_UTF8 = new String(NOT_UTF8, StandardCharsets.UTF_8);

  private static final String[] STRINGS = {
    "",
    "a",
    "tea, \"green\"",
    "ünïcödé ✓ 😀",
    "x".repeat(300),
    "line\nbreak\ttab",
    "\\N",
    DECODED_NOT_UTF8
  };
  private static final String[] BOOLEANS = {"t", "f", "true", "false", "0", "1", "-3", "T", "yes"};

  @Test
  void aRowHasTheBytesOfItsStringsOrIsLeftToThem() {
    Random random = new Random(29);
    int written = 0;
    int left = 0;
    for (int i = 0; i < 20_000; i++) {
      String[] texts = {
        random.nextInt(20) == 0 ? null : pick(random, INTEGERS),
        random.nextInt(20) == 0 ? null : pick(random, STRINGS),
        random.nextInt(5) == 0 ? null : pick(random, INTEGERS),
        random.nextInt(5) == 0 ? null : pick(random, DECIMALS),
        random.nextInt(5) == 0 ? null : pick(random, STRINGS),
        random.nextInt(5) == 0 ? null : pick(random, BOOLEANS),
        random.nextInt(50) == 0 ? "2026-12-01 12:00:00+00" : null
      };
      byte[] slices = FORM.encodeTexts(slices(random, texts));
      byte[] strings = viaStrings(texts);
      if (strings == null) {
        assertThat(slices).as(Arrays.toString(texts)).isNull();
        left++;
      } else {
        assertThat(slices).as(Arrays.toString(texts)).isEqualTo(strings);
        written++;
      }
    }
    assertThat(written).isGreaterThan(1_000);
    assertThat(left).isGreaterThan(1_000);
  }

  @Test
  void slicesGiveTheirTextsAndLength() {
    TextSlices row = slices(new Random(3), new String[] {"1", null, "é", ""});
    assertThat(row.texts()).containsExactly("1", null, "é", "");
    assertThat(row.columns()).isEqualTo(4);
    assertThat(row.isNull(1)).isTrue();
    assertThat(row.length()).isEqualTo(3);
  }

  @Test
  void aRowWithAnotherNumberOfTextsIsRefused() {
    assertThatThrownBy(() -> FORM.encodeTexts(slices(new Random(1), new String[] {"1", "a"})))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2 column texts for the 7 columns");
  }

  /**
   * The strings' path: the row {@link RowForm#encodeTexts(String[], JsonNode[])} writes when every
   * text is one it takes as it is (NULL outside the key) and the key is under 128 bytes, else null.
   */
  private static byte[] viaStrings(String[] texts) {
    JsonNode[] values = new JsonNode[texts.length];
    for (int c = 0; c < texts.length; c++) {
      if (texts[c] == null) {
        if (c < 2) {
          return null; // a key column NULL: the strings' path refuses it
        }
        values[c] = NODES.nullNode();
      } else if (!RowForm.writesText(FORM.columns().get(c).kind(), texts[c])) {
        return null;
      }
    }
    byte[] row = FORM.encodeTexts(texts, values);
    return RowForm.keyLength(row) < 0x80 ? row : null;
  }

  /** The texts as slices of one array, with bytes of other texts between and around them. */
  private static TextSlices slices(Random random, String[] texts) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int[] bounds = new int[texts.length * 2];
    for (int c = 0; c < texts.length; c++) {
      bytes.writeBytes("9\t".repeat(random.nextInt(3)).getBytes(StandardCharsets.UTF_8));
      if (texts[c] == null) {
        bounds[2 * c] = -1;
        bounds[2 * c + 1] = -1;
      } else {
        bounds[2 * c] = bytes.size();
        bytes.writeBytes(
            texts[c].equals(DECODED_NOT_UTF8)
                ? NOT_UTF8
                : texts[c].getBytes(StandardCharsets.UTF_8));
        bounds[2 * c + 1] = bytes.size();
      }
    }
    bytes.writeBytes("-1.5x".getBytes(StandardCharsets.UTF_8));
    return new TextSlices(bytes.toByteArray(), bounds);
  }

  private static String pick(Random random, String[] texts) {
    return texts[random.nextInt(texts.length)];
  }
}

package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link RowNormalizer#keyImage} reads a MySQL trigger's key image from its text without a tree; it
 * must give the key bytes and bound values that parsing the image into a tree gave ({@link
 * RowNormalizer#parse}, {@link RowNormalizer#key}, the values as text), the same "no key" answer,
 * and the same error.
 */
class RowNormalizerKeyImageTest {

  private static final List<List<String>> KEY_VALUES =
      List.of(
          List.of("0", "-1", "70000", "9223372036854775807", "18446744073709551615", "\"42\""),
          List.of("12.30", "-0.5", "0", "1E+5", "\"12.3400\"", "100"),
          List.of("\"\"", "\"héllo 😀\"", "\"a \\\" b\"", "12", "true"),
          List.of("true", "false", "1", "0"),
          List.of("\"2024-02-29\"", "\"infinity\""),
          List.of("\"2024-02-29 13:45:30.5\"", "\"2024-02-29T00:00:00\""),
          List.of("1709214330.123456", "\"2024-02-29T13:45:30.5+02:00\""));

  private static final List<ColumnKind> KEY_KINDS =
      List.of(
          ColumnKind.INTEGER,
          ColumnKind.DECIMAL,
          ColumnKind.STRING,
          ColumnKind.BOOLEAN,
          ColumnKind.DATE,
          ColumnKind.TIMESTAMP,
          ColumnKind.TIMESTAMP_TZ);

  @Test
  void keyImagesGiveWhatTheTreeGaveForEveryKindAndShape() {
    int compared = 0;
    for (int k = 0; k < KEY_KINDS.size(); k++) {
      for (int k2 = 0; k2 < KEY_KINDS.size(); k2 += 3) { // composite keys too
        RowNormalizer n = normalizer(KEY_KINDS.get(k), KEY_KINDS.get(k2));
        for (String a : KEY_VALUES.get(k)) {
          for (String b : KEY_VALUES.get(k2)) {
            for (String image : shapes(a, b)) {
              assertThat(outcome(() -> fromText(n, image)))
                  .as("image %s", image)
                  .isEqualTo(outcome(() -> fromTree(n, image)));
              compared++;
            }
          }
        }
      }
    }
    assertThat(compared).isGreaterThan(500);
  }

  /** The image as triggers print it, and odd ones: fields reordered, extra, missing, null. */
  private static List<String> shapes(String a, String b) {
    return List.of(
        "{\"k1\": " + a + ", \"k2\": " + b + "}",
        "{\"other\": {\"x\": [1, 2.5]}, \"k2\": " + b + ", \"k1\": " + a + "}",
        "{\"k1\": " + a + "}",
        "{\"k1\": " + a + ", \"k2\": null}",
        "{\"k1\": 1, \"k1\": " + a + ", \"k2\": " + b + "}",
        "null",
        "[" + a + "]",
        "{\"k1\": " + a + ", \"k2\": ");
  }

  private static RowNormalizer normalizer(ColumnKind first, ColumnKind second) {
    List<ColumnInfo> columns = new ArrayList<>();
    columns.add(new ColumnInfo("other", "json", ColumnKind.JSON));
    columns.add(new ColumnInfo("k2", "t", second));
    columns.add(new ColumnInfo("k1", "t", first));
    columns.add(new ColumnInfo("v", "t", ColumnKind.STRING));
    TableSchema t = new TableSchema(TableId.parse("app.t", "app"), columns, List.of("k1", "k2"));
    return new RowNormalizer(t, RowNormalizerStreamingTest.dialect());
  }

  private static String fromText(RowNormalizer n, String image) {
    RowNormalizer.KeyImage k = n.keyImage(image);
    return k == null ? "no key" : hex(k.key()) + " " + k.bound();
  }

  /** What ChangedRows did before: a tree, its key, its key values as text. */
  private static String fromTree(RowNormalizer n, String image) {
    JsonNode raw = n.parse(image);
    if (!n.table().primaryKey().stream().allMatch(raw::has)) {
      return "no key";
    }
    byte[] key = n.key(raw);
    List<String> bound = new ArrayList<>();
    for (String c : n.table().primaryKey()) {
      JsonNode v = raw.get(c);
      bound.add(
          v.isNumber()
              ? v.decimalValue().toPlainString()
              : v.isBoolean() ? (v.asBoolean() ? "1" : "0") : v.asText());
    }
    return hex(key) + " " + bound;
  }

  private static String outcome(java.util.function.Supplier<String> s) {
    try {
      return s.get();
    } catch (RuntimeException e) {
      return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  private static String hex(byte[] b) {
    StringBuilder out = new StringBuilder();
    for (byte x : b) {
      out.append(String.format("%02x", x));
    }
    return out.toString();
  }
}

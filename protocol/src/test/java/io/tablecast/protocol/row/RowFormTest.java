package io.tablecast.protocol.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.io.StringWriter;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The row form keeps every value of every kind exactly (the JSON forms of docs/TYPES.md, node for
 * node and as JSON text), has one encoding per value (rows compare byte for byte), computes the
 * same key from a whole row and from a key-only image, and refuses corrupt bytes by name.
 */
class RowFormTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

  /**
   * Values of each kind as the server's normalizer hands them over: typical, extreme, and ones kept
   * as text.
   */
  static final Map<ColumnKind, List<JsonNode>> VALUES =
      Map.ofEntries(
          Map.entry(
              ColumnKind.INTEGER,
              List.of(
                  NODES.numberNode(0L),
                  NODES.numberNode(-1L),
                  NODES.numberNode(300L),
                  NODES.numberNode(Long.MIN_VALUE),
                  NODES.numberNode(Long.MAX_VALUE),
                  NODES.numberNode(new BigInteger("18446744073709551615")),
                  NODES.numberNode(BigInteger.TWO.pow(70).negate()))),
          Map.entry(
              ColumnKind.DECIMAL,
              texts(
                  "12.3400",
                  "-0.5",
                  "0",
                  "0.00",
                  "100",
                  "12345678901234567890.123456789",
                  "-99999999999999999999999999999999999999.99",
                  "NaN",
                  "Infinity",
                  "-Infinity",
                  "-0.00",
                  "1E+5",
                  "+5",
                  "0." + "0".repeat(20_000))),
          Map.entry(
              ColumnKind.FLOAT,
              List.of(
                  NODES.numberNode(0.25),
                  NODES.numberNode(-0.0),
                  NODES.numberNode(1e300),
                  NODES.numberNode(Double.MIN_VALUE),
                  NODES.numberNode(3.1415927f),
                  NODES.numberNode(1.6777216E7f),
                  NODES.textNode("NaN"),
                  NODES.textNode("Infinity"),
                  NODES.textNode("-Infinity"))),
          Map.entry(ColumnKind.BOOLEAN, List.of(NODES.booleanNode(true), NODES.booleanNode(false))),
          Map.entry(
              ColumnKind.STRING,
              texts(
                  "", "héllo 😀", "quote \" backslash \\ nul \u0000 newline \n", "x".repeat(300))),
          Map.entry(
              ColumnKind.BINARY,
              texts("", "AAEC", "/w==", "AAECAwQFBgcICQ==", "not base64!", "AAEC\n")),
          Map.entry(
              ColumnKind.DATE,
              texts(
                  "2024-02-29",
                  "0001-01-01",
                  "0000-01-01",
                  "9999-12-31",
                  "1969-12-31",
                  "infinity",
                  "-infinity",
                  "0044-03-15 BC",
                  "0000-00-00",
                  "2023-02-29",
                  "12024-01-01")),
          Map.entry(
              ColumnKind.TIME,
              texts(
                  "13:45:30.123456",
                  "00:00:00",
                  "24:00:00",
                  "-838:59:59.000000",
                  "838:59:59",
                  "100:00:00",
                  "-00:00:01",
                  "-00:00:00",
                  "13:45:30.5",
                  "13:45:30.123456789",
                  "13:60:00",
                  "1:00:00",
                  "13:45:30+02")),
          Map.entry(
              ColumnKind.TIMESTAMP,
              texts(
                  "2024-02-29T13:45:30.123456",
                  "1970-01-01T00:00:00",
                  "1900-01-01T00:00:00.1",
                  "9999-12-31T23:59:59.999999999",
                  "0001-01-01T00:00:00",
                  "infinity",
                  "0044-03-15T00:00:00 BC",
                  "2024-02-29 13:45:30",
                  "2024-02-29T24:00:00")),
          Map.entry(
              ColumnKind.TIMESTAMP_TZ,
              texts(
                  "2024-02-29T13:45:30.123456Z",
                  "1970-01-01T00:00:00Z",
                  "2024-02-29T13:45:30.120Z",
                  "1969-12-31T23:59:59.999999999Z",
                  "+10000-01-01T00:00:00Z",
                  "infinity",
                  "-infinity",
                  "2024-02-29T13:45:30.1Z")),
          Map.entry(
              ColumnKind.JSON,
              List.of(
                  json("{\"a\":[1,2.50],\"b\":{\"c\":null}}"),
                  json("\"text\""),
                  json("12"),
                  json("1e400"),
                  json("[]"),
                  json("true"),
                  json("{\"type\":\"Point\",\"coordinates\":[1,2]}"))));

  @Test
  void everyValueOfEveryKindComesBackNodeForNodeAndAsTheSameJsonText() throws Exception {
    for (ColumnKind kind : ColumnKind.values()) {
      assertThat(VALUES).as("values of %s", kind).containsKey(kind);
      RowForm form =
          new RowForm(
              List.of(
                  new ColumnInfo("id", "int", ColumnKind.INTEGER), new ColumnInfo("v", "t", kind)),
              List.of("id"));
      for (JsonNode value : VALUES.get(kind)) {
        ObjectNode row = NODES.objectNode().put("id", 7L).set("v", value);
        byte[] bytes = form.encode(row);
        assertThat(form.toNode(bytes)).as("%s %s", kind, value).isEqualTo(row);
        assertThat(json(form, bytes))
            .as("%s %s", kind, value)
            .isEqualTo(RowForm.JSON.writeValueAsString(row));
        assertThat(form.encode(form.toNode(bytes)))
            .as("canonical: %s %s", kind, value)
            .isEqualTo(bytes);
      }
    }
  }

  @Test
  void valuesTheDatabasePrintedOtherwiseAreKeptAsTextAndOthersAreCompact() {
    assertThat(valueBytes(ColumnKind.DECIMAL, NODES.textNode("12.3400")))
        .as("scale 4, 123400")
        .hasSize(1 + 3);
    assertThat(valueBytes(ColumnKind.TIMESTAMP_TZ, NODES.textNode("2024-02-29T13:45:30.123456Z")))
        .hasSize(1 + 5 + 4);
    assertThat(valueBytes(ColumnKind.DATE, NODES.textNode("2024-02-29"))).hasSize(1 + 3);
    assertThat(valueBytes(ColumnKind.BINARY, NODES.textNode("AAECAwQFBgcICQ=="))).hasSize(1 + 10);
    // kept as text: the header's low bit is set, and the text follows as printed
    for (String text : List.of("-0.00", "NaN")) {
      byte[] v = valueBytes(ColumnKind.DECIMAL, NODES.textNode(text));
      assertThat(v[0] & 1).as(text).isEqualTo(1);
      assertThat(new String(v, 1, v.length - 1, java.nio.charset.StandardCharsets.UTF_8))
          .isEqualTo(text);
    }
    assertThat(valueBytes(ColumnKind.DATE, NODES.textNode("0044-03-15 BC"))[0] & 1).isEqualTo(1);
    assertThat(valueBytes(ColumnKind.TIME, NODES.textNode("-00:00:00"))[0] & 1).isEqualTo(1);
  }

  @Test
  void goldenBytesOfOneRow() {
    RowForm form =
        new RowForm(
            List.of(
                new ColumnInfo("id", "int", ColumnKind.INTEGER),
                new ColumnInfo("name", "varchar(20)", ColumnKind.STRING),
                new ColumnInfo("price", "decimal(8,2)", ColumnKind.DECIMAL),
                new ColumnInfo("note", "text", ColumnKind.STRING),
                new ColumnInfo("in_stock", "bool", ColumnKind.BOOLEAN)),
            List.of("id"));
    ObjectNode row =
        NODES
            .objectNode()
            .put("id", 42L)
            .put("name", "tea")
            .put("price", "9.90")
            .putNull("note")
            .put("in_stock", true);
    // key length 01 | key: id 42 zig-zag 84 = 54 | bitmap of name, price, note, in_stock: 04 (note
    // NULL) | name 03 't' 'e' 'a' | price header scale 2 zig-zag 04 -> 08, 990 zig-zag 1980 = bc 0f
    // | true 01
    assertThat(HexFormat.of().formatHex(form.encode(row)))
        .isEqualTo("01" + "54" + "04" + "03746561" + "08bc0f" + "01");
    assertThat(HexFormat.of().formatHex(form.keyOf(form.encode(row)))).isEqualTo("54");
  }

  @Test
  void theKeyOfAWholeRowEqualsTheKeyOfAKeyOnlyImage() {
    RowForm form =
        new RowForm(
            List.of(
                new ColumnInfo("region", "text", ColumnKind.STRING),
                new ColumnInfo("v", "text", ColumnKind.STRING),
                new ColumnInfo("n", "int", ColumnKind.INTEGER)),
            List.of("n", "region")); // key order differs from column order
    ObjectNode row = NODES.objectNode().put("region", "eu").putNull("v").put("n", 3L);
    ObjectNode keyImage = NODES.objectNode().put("n", 3L).put("region", "eu");
    byte[] key = form.encodeKey(keyImage);
    assertThat(form.keyOf(form.encode(row))).isEqualTo(key);
    assertThat(form.keyToNode(key)).isEqualTo(NODES.arrayNode().add(3L).add("eu"));
    assertThat(form.encodeKey(NODES.objectNode().put("n", 3).put("region", "eu")))
        .as("int or long: one key")
        .isEqualTo(key);
    assertThatThrownBy(() -> form.encodeKey(NODES.objectNode().put("n", 3L)))
        .hasMessageContaining("primary-key column region is missing");
  }

  @Test
  void keysOnEitherSideOfAOneByteLengthAreWrittenWithTheirLengthAndReadBack() {
    RowForm form =
        new RowForm(
            List.of(
                new ColumnInfo("k", "text", ColumnKind.STRING),
                new ColumnInfo("v", "text", ColumnKind.STRING)),
            List.of("k"));
    for (int length : new int[] {0, 1, 125, 126, 127, 128, 129, 300, 20_000}) {
      ObjectNode row = NODES.objectNode().put("k", "k".repeat(length)).put("v", "value");
      byte[] bytes = form.encode(row);
      byte[] key = form.encodeKey(NODES.objectNode().put("k", "k".repeat(length)));
      assertThat(form.toNode(bytes)).as("key text of %s", length).isEqualTo(row);
      assertThat(form.keyOf(bytes)).as("key text of %s", length).isEqualTo(key);
      int lengthBytes = key.length < 0x80 ? 1 : key.length < 0x4000 ? 2 : 3; // varint
      assertThat(RowForm.keyStart(bytes)).as("key text of %s", length).isEqualTo(lengthBytes);
      assertThat(RowForm.keyLength(bytes)).as("key text of %s", length).isEqualTo(key.length);
    }
  }

  @Test
  void aValueNotOfItsKindsFormIsRefusedNamingTheColumn() {
    RowForm form =
        new RowForm(List.of(new ColumnInfo("price", "decimal", ColumnKind.DECIMAL)), List.of());
    assertThatThrownBy(() -> form.encode(NODES.objectNode().put("price", 1.5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column price (DECIMAL)");
  }

  @Test
  void corruptBytesAreRefusedAsMalformedNeverReadAsAnotherValue() {
    RowForm form =
        new RowForm(
            List.of(
                new ColumnInfo("id", "int", ColumnKind.INTEGER),
                new ColumnInfo("name", "text", ColumnKind.STRING),
                new ColumnInfo("at", "timestamptz", ColumnKind.TIMESTAMP_TZ),
                new ColumnInfo("doc", "json", ColumnKind.JSON),
                new ColumnInfo("ok", "bool", ColumnKind.BOOLEAN)),
            List.of("id"));
    ObjectNode row =
        NODES
            .objectNode()
            .put("id", 1L)
            .put("name", "abc")
            .put("at", "2024-02-29T13:45:30Z")
            .put("ok", false);
    row.set("doc", json("{\"a\":1}"));
    byte[] good = form.encode(row);
    for (int cut = 0; cut < good.length; cut++) {
      byte[] truncated = java.util.Arrays.copyOf(good, cut);
      assertThatThrownBy(() -> form.toNode(truncated))
          .as("cut at %d", cut)
          .isInstanceOf(MalformedRowException.class);
    }
    byte[] longer = java.util.Arrays.copyOf(good, good.length + 1);
    assertThatThrownBy(() -> form.toNode(longer))
        .isInstanceOf(MalformedRowException.class)
        .hasMessageContaining("bytes left after the last column");
    Random random = new Random(11);
    RowForm temporal =
        new RowForm(
            List.of(
                new ColumnInfo("d", "date", ColumnKind.DATE),
                new ColumnInfo("t", "timestamp", ColumnKind.TIMESTAMP),
                new ColumnInfo("z", "timestamptz", ColumnKind.TIMESTAMP_TZ),
                new ColumnInfo("n", "numeric", ColumnKind.DECIMAL),
                new ColumnInfo("b", "bytea", ColumnKind.BINARY)),
            List.of());
    byte[] dates =
        temporal.encode(
            NODES
                .objectNode()
                .put("d", "2024-02-29")
                .put("t", "2024-02-29T13:45:30.5")
                .put("z", "2024-02-29T13:45:30Z")
                .put("n", "1.5")
                .put("b", "AAEC"));
    for (int i = 0; i < 50_000; i++) {
      RowForm f = i % 2 == 0 ? form : temporal;
      byte[] noise = (i % 2 == 0 ? good : dates).clone();
      for (int k = 1 + random.nextInt(3); k > 0; k--) {
        noise[random.nextInt(noise.length)] = (byte) random.nextInt(256);
      }
      try {
        f.toNode(noise);
        f.keyOf(noise);
      } catch (MalformedRowException expected) {
        // refused by name
      }
    }
  }

  @Test
  void randomRowsRoundTripAndEqualValuesGiveEqualBytes() throws Exception {
    Random random = new Random(5);
    List<ColumnInfo> columns = new ArrayList<>();
    for (ColumnKind kind : ColumnKind.values()) {
      columns.add(new ColumnInfo("c_" + kind.name().toLowerCase(), "t", kind));
    }
    RowForm form = new RowForm(columns, List.of("c_integer"));
    for (int i = 0; i < 5_000; i++) {
      ObjectNode row = NODES.objectNode();
      for (ColumnInfo c : columns) {
        List<JsonNode> values = VALUES.get(c.kind());
        if (random.nextInt(8) == 0 && !c.name().equals("c_integer")) {
          row.putNull(c.name());
        } else {
          row.set(c.name(), values.get(random.nextInt(values.size())));
        }
      }
      byte[] bytes = form.encode(row);
      assertThat(form.toNode(bytes)).isEqualTo(row);
      assertThat(json(form, bytes)).isEqualTo(RowForm.JSON.writeValueAsString(row));
      assertThat(form.encode(row.deepCopy())).isEqualTo(bytes);
    }
  }

  @Test
  void oneValueIsReadAloneAndAWellFormedRowPassesItsCheckWhereACutOneDoesNot() {
    Random random = new Random(7);
    List<ColumnInfo> columns = new ArrayList<>();
    for (ColumnKind kind : ColumnKind.values()) {
      columns.add(new ColumnInfo("c_" + kind.name().toLowerCase(), "t", kind));
    }
    RowForm form =
        new RowForm(
            columns, List.of("c_string", "c_integer")); // key columns not first in the table
    for (int i = 0; i < 2_000; i++) {
      ObjectNode row = NODES.objectNode();
      for (ColumnInfo c : columns) {
        List<JsonNode> values = VALUES.get(c.kind());
        if (random.nextInt(4) == 0 && !form.primaryKey().contains(c.name())) {
          row.putNull(c.name());
        } else {
          row.set(c.name(), values.get(random.nextInt(values.size())));
        }
      }
      byte[] bytes = form.encode(row);
      form.check(bytes);
      for (int c = 0; c < columns.size(); c++) {
        assertThat(form.valueToNode(bytes, c))
            .as("column %s of %s", columns.get(c).name(), row)
            .isEqualTo(row.get(columns.get(c).name()));
      }
      byte[] cut = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
      assertThatThrownBy(() -> form.check(cut)).isInstanceOf(MalformedRowException.class);
      byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
      assertThatThrownBy(() -> form.check(longer))
          .hasMessageContaining("bytes left after the last column");
    }
    assertThatThrownBy(
            () ->
                form.valueToNode(
                    form.encode(NODES.objectNode().put("c_string", "k").put("c_integer", 1L)),
                    columns.size()))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  private static byte[] valueBytes(ColumnKind kind, JsonNode value) {
    RowForm form = new RowForm(List.of(new ColumnInfo("v", "t", kind)), List.of());
    byte[] row = form.encode(NODES.objectNode().set("v", value));
    return java.util.Arrays.copyOfRange(row, 2, row.length); // after key length 0 and the bitmap
  }

  private static String json(RowForm form, byte[] row) throws Exception {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = RowForm.JSON.getFactory().createGenerator(w)) {
      form.writeJson(row, g);
    }
    return w.toString();
  }

  private static List<JsonNode> texts(String... values) {
    List<JsonNode> out = new ArrayList<>();
    for (String v : values) {
      out.add(NODES.textNode(v));
    }
    return out;
  }

  private static JsonNode json(String text) {
    try {
      return RowForm.JSON.readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException(text, e);
    }
  }
}

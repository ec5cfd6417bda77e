package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.MessageCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link RowNormalizer#encode(String)} reads an image's JSON text straight into the row form; it
 * must write the very bytes that parsing the text into a tree, normalizing the tree and encoding it
 * write ({@link RowNormalizer#encode(com.fasterxml.jackson.databind.JsonNode)}), and fail where
 * that fails, with the same message.
 */
class RowNormalizerStreamingTest {

  /** JSON texts of values per kind, as the databases' generators print them, and some odd ones. */
  private static final Map<ColumnKind, List<String>> VALUES =
      Map.ofEntries(
          Map.entry(
              ColumnKind.INTEGER,
              List.of(
                  "0",
                  "-1",
                  "70000",
                  "2147483648",
                  "-9223372036854775808",
                  "18446744073709551615",
                  "-340282366920938463463374607431768211456",
                  "\"42\"",
                  "\" 7 \"")),
          Map.entry(
              ColumnKind.DECIMAL,
              List.of(
                  "12.30",
                  "-0.5",
                  "0",
                  "0.00",
                  "-0.00",
                  "-0",
                  "0.10",
                  "999999999999999999",
                  "-99999999999999999.9",
                  "1000000000000000000",
                  "0.0000000000000000001",
                  "100",
                  "1E+5",
                  "1.5e-7",
                  "-0.0",
                  "12345678901234567890.123456789",
                  "\"NaN\"",
                  "\"12.3400\"",
                  "\"-$1,234.56\"")),
          Map.entry(
              ColumnKind.FLOAT,
              List.of("0.25", "-0.0", "1e300", "3", "1.1", "\"NaN\"", "\"-Infinity\"", "16777216")),
          Map.entry(
              ColumnKind.BOOLEAN,
              List.of("true", "false", "1", "0", "2.5", "\"t\"", "\"f\"", "\"TRUE\"")),
          Map.entry(
              ColumnKind.STRING,
              List.of(
                  "\"\"",
                  "\"héllo 😀\"",
                  "\"quote \\\" backslash \\\\ nul \\u0000 nl \\n\"",
                  "12",
                  "1.50",
                  "true")),
          Map.entry(ColumnKind.BINARY, List.of("\"AAEC\"", "\"\"", "\"/w==\"")),
          Map.entry(
              ColumnKind.DATE, List.of("\"2024-02-29\"", "\"infinity\"", "\"0044-03-15 BC\"")),
          Map.entry(ColumnKind.TIME, List.of("\"13:45:30.123456\"", "\"-838:59:59\"")),
          Map.entry(
              ColumnKind.TIMESTAMP,
              List.of("\"2024-02-29 13:45:30.5\"", "\"2024-02-29T00:00:00\"", "\"infinity\"")),
          Map.entry(
              ColumnKind.TIMESTAMP_TZ,
              List.of(
                  "\"2024-02-29T13:45:30.5+02:00\"",
                  "\"2024-02-29 13:45:30+00:00\"",
                  "1709214330.123456",
                  "1709214330",
                  "\"-infinity\"")),
          Map.entry(
              ColumnKind.JSON,
              List.of(
                  "{\"a\": [1, 2.50, {\"b\": null}], \"c\": \"d\"}",
                  "[]",
                  "12.30",
                  "\"text\"",
                  "true",
                  "1E+2",
                  "{}")));

  /**
   * A dialect for images as the databases print them (shared with {@link
   * RowNormalizerKeyImageTest}).
   */
  static Dialect dialect() {
    InvocationHandler h =
        (proxy, method, args) ->
            switch (method.getName()) {
              case "binaryBase64" -> args[0];
              case "singlePrecision" -> ((ColumnInfo) args[0]).dbType().equals("float");
              case "decimal" -> ((String) args[0]).replace("$", "").replace(",", "");
              case "toString" -> "test dialect";
              default -> throw new UnsupportedOperationException(method.getName());
            };
    return (Dialect)
        Proxy.newProxyInstance(Dialect.class.getClassLoader(), new Class<?>[] {Dialect.class}, h);
  }

  /**
   * With a JSON column (whose values nest) images are read by Jackson's parser, without one by
   * {@link FlatJsonObject} first: both tables, the one with every kind and the one with every kind
   * but JSON.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void randomImagesGiveTheBytesOfTheTreePathOrItsVeryError(boolean withJson) {
    List<ColumnInfo> columns = new ArrayList<>();
    for (ColumnKind kind : ColumnKind.values()) {
      if (withJson || kind != ColumnKind.JSON) {
        columns.add(new ColumnInfo("c_" + kind.name().toLowerCase(), "t", kind));
      }
    }
    columns.add(new ColumnInfo("c_float4", "float", ColumnKind.FLOAT));
    TableSchema table =
        new TableSchema(TableId.parse("app.t", "app"), columns, List.of("c_string", "c_integer"));
    RowNormalizer n = new RowNormalizer(table, dialect());
    Random random = new Random(3);
    int compared = 0;
    int failed = 0;
    int exact = 0;
    for (int i = 0; i < 20_000; i++) {
      StringBuilder json = new StringBuilder("{");
      boolean exactColumns = true; // every column once, nothing else
      List<ColumnInfo> order = new ArrayList<>(columns);
      java.util.Collections.shuffle(order, random); // generators print columns in any order
      for (ColumnInfo c : order) {
        int pick = random.nextInt(12);
        if (pick == 0) {
          exactColumns = false;
          continue; // a column missing from the image
        }
        String value;
        if (pick == 1) {
          value = "null";
        } else if (pick == 2) { // a value of another kind: both paths must fail alike
          List<String> others = VALUES.get(ColumnKind.values()[random.nextInt(11)]);
          value = others.get(random.nextInt(others.size()));
        } else {
          List<String> values = VALUES.get(c.kind());
          value = values.get(random.nextInt(values.size()));
        }
        json.append(json.length() > 1 ? ", " : "").append('"').append(c.name()).append("\": ");
        json.append(value);
        if (random.nextInt(20) == 0) { // a column the table does not cache
          json.append(", \"dropped\": {\"x\": [1, {\"y\": 2}]}");
          exactColumns = false;
        }
      }
      String text = json.append('}').toString();
      byte[] expected;
      try {
        expected = n.encode(n.parse(text));
      } catch (IllegalStateException e) {
        assertThatThrownBy(() -> n.encode(text))
            .as(text)
            .isInstanceOf(IllegalStateException.class)
            .hasMessage(e.getMessage());
        failed++;
        continue;
      }
      assertThat(n.encode(text)).as(text).isEqualTo(expected);
      if (exactColumns) {
        assertThat(n.encodeExact(text)).as(text).isEqualTo(expected);
        exact++;
      } else {
        assertThat(n.encodeExact(text)).as("not exact: %s", text).isNull();
      }
      compared++;
    }
    assertThat(compared).isGreaterThan(1_000);
    assertThat(failed).isGreaterThan(1_000);
    assertThat(exact).isGreaterThan(100);
  }

  /**
   * Texts {@link FlatJsonObject} reads and texts it leaves to Jackson, at every field position and
   * in changing field orders (the normalizer learns a table's order from one image for the next):
   * each gives the tree path's bytes or fails with the streaming parser's message.
   */
  @Test
  void oddAndBrokenTextsGiveJacksonsBytesOrJacksonsError() {
    TableSchema table =
        new TableSchema(
            TableId.parse("app.t", "app"),
            List.of(
                new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
                new ColumnInfo("name", "text", ColumnKind.STRING),
                new ColumnInfo("price", "numeric", ColumnKind.DECIMAL)),
            List.of("id"));
    RowNormalizer n = new RowNormalizer(table, dialect());
    List<String> odd = new ArrayList<>(FlatJsonObjectTest.NOT_PLAIN_VALUES);
    odd.addAll(List.of("7" + "0".repeat(70), "1.25", "-0.0", "\"x\"", "null", "true"));
    List<String> orders = List.of("id name price", "price id name", "name price id", "id price");
    int same = 0;
    int failed = 0;
    for (String order : orders) {
      for (String v : odd) {
        for (String column : order.split(" ")) {
          StringBuilder json = new StringBuilder("{");
          for (String c : order.split(" ")) {
            String value = c.equals(column) ? v : c.equals("name") ? "\"n\"" : "3";
            json.append(json.length() > 1 ? ", " : "").append('"').append(c).append("\": ");
            json.append(value);
          }
          String text = json.append('}').toString();
          String error = jsonError(text);
          byte[] expected = null;
          try {
            expected = error == null ? n.encode(n.parse(text)) : null;
          } catch (IllegalStateException e) {
            error = e.getMessage();
          }
          if (error == null) {
            assertThat(n.encode(text)).as(text).isEqualTo(expected);
            same++;
          } else {
            assertThatThrownBy(() -> n.encode(text))
                .as(text)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(error);
            failed++;
          }
        }
      }
    }
    assertThat(same).isGreaterThan(50);
    assertThat(failed).isGreaterThan(100);
  }

  /** The error Jackson's streaming parser finds reading the object {@code text}, as named. */
  private static String jsonError(String text) {
    try (JsonParser p = MessageCodec.jsonMapper().getFactory().createParser(text)) {
      p.nextToken();
      p.skipChildren();
      return null;
    } catch (JsonProcessingException e) {
      return "image of app.t is not valid JSON: " + e.getOriginalMessage();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void nullNonObjectAndBrokenTextsAreTreatedAsBefore() {
    TableSchema table =
        new TableSchema(
            TableId.parse("app.t", "app"),
            List.of(new ColumnInfo("id", "bigint", ColumnKind.INTEGER)),
            List.of("id"));
    RowNormalizer n = new RowNormalizer(table, dialect());
    assertThat(n.encode("null")).isNull();
    assertThat(n.encode((String) null)).isNull();
    assertThatThrownBy(() -> n.encode("{\"id\": 1,"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("image of app.t is not valid JSON");
    assertThatThrownBy(() -> n.encode("[1]"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("primary-key column id is NULL"); // as the tree path says
    assertThat(n.encode("{\"id\": 7} trailing")).isEqualTo(n.encode(n.parse("{\"id\": 7}")));
  }
}

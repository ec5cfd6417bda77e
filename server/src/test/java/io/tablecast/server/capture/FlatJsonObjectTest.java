package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonToken;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link FlatJsonObject} reads plain row images field by field and gives up on everything else,
 * which its callers then read with Jackson ({@link RowNormalizerStreamingTest} holds the two to the
 * same bytes and errors).
 */
class FlatJsonObjectTest {

  /** Values the reader leaves to Jackson: not JSON, or JSON it does not read plainly. */
  static final List<String> NOT_PLAIN_VALUES =
      List.of(
          "\"quote \\\" inside\"",
          "\"\\u00e9\"",
          "\"tab\tinside\"",
          "\"not closed",
          "{\"nested\": 1}",
          "[1, 2]",
          "01",
          "1.",
          ".5",
          "+1",
          "-",
          "1e",
          "1e+",
          "1.5.2",
          "12abc",
          "1 2",
          "1,",
          "",
          "tru",
          "trueX",
          "nul",
          "'single'",
          "1".repeat(FlatJsonObject.MAX_NUMBER_CHARS + 1));

  @Test
  void readsAnImageAsTheDatabasesPrintItFieldByField() {
    assertThat(
            fields(
                "{\"id\": 5, \"qty\": -0, \"name\": \"héllo 😀\", \"price\": 1.50,"
                    + " \"rate\": 1.5e-7, \"ok\": true, \"off\": false, \"gone\": null}"))
        .containsExactly(
            "id VALUE_NUMBER_INT 5",
            "qty VALUE_NUMBER_INT -0",
            "name VALUE_STRING héllo 😀",
            "price VALUE_NUMBER_FLOAT 1.50",
            "rate VALUE_NUMBER_FLOAT 1.5e-7",
            "ok VALUE_TRUE true",
            "off VALUE_FALSE false",
            "gone VALUE_NULL null",
            "END");
    assertThat(fields(" \n{\"a\":1,\"b\":\"\"}\t"))
        .containsExactly("a VALUE_NUMBER_INT 1", "b VALUE_STRING ", "END");
    assertThat(fields("{}")).containsExactly("END");
    assertThat(fields("{ }")).containsExactly("END");
    // what follows the object is not read, as Jackson's reader does not read it
    assertThat(fields("{\"a\": 1E+5} trailing"))
        .containsExactly("a VALUE_NUMBER_FLOAT 1E+5", "END");
  }

  @Test
  void givesUpOnWhatItDoesNotReadPlainly() {
    for (String value : NOT_PLAIN_VALUES) {
      // at that field, or at the next character for a value that ends early (01, 12abc)
      assertThat(fields("{\"id\": 1, \"v\": " + value + "}"))
          .as(value)
          .startsWith("id VALUE_NUMBER_INT 1")
          .endsWith("GAVE_UP")
          .hasSizeLessThanOrEqualTo(3);
    }
    assertThat(fields("{\"id\": 1, \"v\": " + "9".repeat(FlatJsonObject.MAX_NUMBER_CHARS) + "}"))
        .hasSize(3);
    for (String broken :
        List.of(
            "{\"a\": 1,}",
            "{\"a\": 1, }",
            "{\"a\" 1}",
            "{\"a\": 1",
            "{\"a\": 1 \"b\": 2}",
            "{\"a\\u0062\": 1}",
            "{a: 1}",
            "{\"a\": }")) {
      assertThat(fields(broken)).as(broken).endsWith("GAVE_UP");
    }
    for (String notAnObject : List.of("", "  ", "null", "[1]", "\"text\"", "1")) {
      assertThat(new FlatJsonObject(notAnObject).open()).as(notAnObject).isFalse();
    }
  }

  @Test
  void comparesTheFieldNameWithoutMakingAString() {
    FlatJsonObject image = new FlatJsonObject("{\"price\": 1}");
    assertThat(image.open()).isTrue();
    assertThat(image.next()).isEqualTo(FlatJsonObject.FIELD);
    assertThat(image.nameIs("price")).isTrue();
    assertThat(image.nameIs("prices")).isFalse();
    assertThat(image.nameIs("pricf")).isFalse();
    assertThat(image.nameIs("")).isFalse();
    assertThat(image.token()).isEqualTo(JsonToken.VALUE_NUMBER_INT);
  }

  /** Each field as "name token text", then END or GAVE_UP; NOT AN OBJECT when it is none. */
  private static List<String> fields(String text) {
    FlatJsonObject image = new FlatJsonObject(text);
    List<String> out = new ArrayList<>();
    if (!image.open()) {
      out.add("NOT AN OBJECT");
      return out;
    }
    int read;
    while ((read = image.next()) == FlatJsonObject.FIELD) {
      out.add(image.name() + " " + image.token() + " " + image.text());
    }
    out.add(read == FlatJsonObject.END ? "END" : "GAVE_UP");
    return out;
  }
}

package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.protocol.MessageCodec;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonNumbersTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0",
        "-0",
        "7",
        "-12",
        "12.3400",
        "0.5",
        "-0.0010",
        "1e5",
        "1E+5",
        "2.5e-3",
        "123456789012345678901234567890.123456789",
        "9223372036854775808"
      })
  void jsonNumbersAreNumbersAndReadAsJacksonReadsThem(String text) throws Exception {
    assertThat(JsonNumbers.isNumber(text)).isTrue();
    JsonNode jackson = MessageCodec.jsonMapper().readTree(text);
    JsonNode ours = JsonNumbers.node(text);
    assertThat(ours.getClass()).isEqualTo(jackson.getClass());
    assertThat(ours).isEqualTo(jackson);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "-",
        "NaN",
        "Infinity",
        "-Infinity",
        "01",
        "-01",
        "1.",
        ".5",
        "+1",
        "1e",
        "1e+",
        "$1,234.56",
        "1 ",
        " 1",
        "0x10",
        "1.2.3",
        "12a"
      })
  void anythingElseIsNotANumber(String text) {
    assertThat(JsonNumbers.isNumber(text)).isFalse();
  }

  /**
   * A float's text read straight to a double is the double of the decimal Jackson reads (what the
   * JSON read of the same row converts), on random doubles as PostgreSQL and MariaDB print them
   * (shortest digits, exponents) and on the edges; {@code -0} stays the integer 0 as in JSON.
   */
  @Test
  void aFloatTextIsTheDoubleOfItsDecimal() throws Exception {
    SplittableRandom random = new SplittableRandom(3);
    List<String> texts =
        new ArrayList<>(
            List.of(
                "-0",
                "0",
                "1e300",
                "5e-324",
                "4.9e-324",
                "2.2250738585072014e-308",
                "1.7976931348623157e308",
                "0.30000000000000004",
                "1.0000001",
                "142857.14285714287",
                "1.2345678901234568e20",
                "-1.5e-38",
                "123456789012345680000"));
    for (int i = 0; i < 50_000; i++) {
      double d = Double.longBitsToDouble(random.nextLong());
      if (Double.isFinite(d)) {
        texts.add(Double.toString(d).replace("E", "e"));
        texts.add(new BigDecimal(d).toString()); // the exact value, many digits
      }
    }
    for (String text : texts) {
      assertThat(JsonNumbers.isNumber(text)).as(text).isTrue();
      JsonNode decimal = JsonNumbers.node(text);
      JsonNode ours = JsonNumbers.floatNode(text);
      assertThat(Double.doubleToRawLongBits(ours.doubleValue()))
          .as(text)
          .isEqualTo(Double.doubleToRawLongBits(decimal.doubleValue()));
    }
    assertThat(JsonNumbers.floatNode("-0")).isEqualTo(JsonNumbers.node("-0"));
  }
}

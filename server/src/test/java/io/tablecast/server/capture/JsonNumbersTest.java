package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.protocol.MessageCodec;
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
}

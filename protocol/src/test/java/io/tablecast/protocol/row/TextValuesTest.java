package io.tablecast.protocol.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A row written from its columns' texts ({@link RowForm#encodeTexts}) has the very bytes of the row
 * written from the values the server makes of those texts, for every text it takes; the texts it
 * does not take are those whose value is not their plain print.
 */
class TextValuesTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private static final RowForm FORM =
      new RowForm(
          List.of(
              new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
              new ColumnInfo("code", "varchar(8)", ColumnKind.STRING),
              new ColumnInfo("n", "bigint", ColumnKind.INTEGER),
              new ColumnInfo("price", "numeric(12,4)", ColumnKind.DECIMAL),
              new ColumnInfo("name", "text", ColumnKind.STRING),
              new ColumnInfo("on", "boolean", ColumnKind.BOOLEAN)),
          List.of("code", "id"));

  @Test
  void everyTakenTextWritesTheBytesOfItsValue() {
    Random random = new Random(13);
    String[] integers = {"0", "7", "-7", "123456789012345678", "-123456789012345678", "65535"};
    String[] decimals = {"0", "0.00", "-1.50", "12.3400", "99999999.9999", "-0.01", "5"};
    String[] strings = {"", "a", "tea, \"green\"", "ünïcödé ✓", "x".repeat(300), "line\nbreak"};
    String[] booleans = {"t", "f", "true", "false", "0", "1", "-3"};
    for (int i = 0; i < 2_000; i++) {
      String[] texts = {
        i % 2 == 0 ? pick(random, integers) : Long.toString(random.nextLong() / 10),
        pick(random, strings),
        random.nextInt(5) == 0 ? null : pick(random, integers),
        random.nextInt(5) == 0 ? null : pick(random, decimals),
        random.nextInt(5) == 0 ? null : pick(random, strings),
        random.nextInt(5) == 0 ? null : pick(random, booleans)
      };
      JsonNode[] values = new JsonNode[texts.length];
      JsonNode[] expected = new JsonNode[texts.length];
      for (int c = 0; c < texts.length; c++) {
        ColumnKind kind = FORM.columns().get(c).kind();
        if (texts[c] == null) {
          values[c] = NODES.nullNode();
        } else {
          assertThat(RowForm.writesText(kind, texts[c])).as(kind + " " + texts[c]).isTrue();
        }
        expected[c] = texts[c] == null ? NODES.nullNode() : valueOf(kind, texts[c]);
      }
      assertThat(FORM.encodeTexts(texts, values)).isEqualTo(FORM.encode(expected));
    }
  }

  @Test
  void textsThatAreNotTheirValuesPlainPrintAreLeftToTheNode() {
    for (String text :
        new String[] {"", "-", "007", "-0", "+5", "1e3", "1234567890123456789", " 5", "5 "}) {
      assertThat(RowForm.writesText(ColumnKind.INTEGER, text)).as(text).isFalse();
    }
    for (String text : new String[] {"1.", ".5", "01.5", "1e3", "NaN", "-", "1,5"}) {
      assertThat(RowForm.writesText(ColumnKind.DECIMAL, text)).as(text).isFalse();
    }
    for (String text : new String[] {"T", "yes", "TRUE", "", "007"}) {
      assertThat(RowForm.writesText(ColumnKind.BOOLEAN, text)).as(text).isFalse();
    }
    for (ColumnKind kind :
        new ColumnKind[] {
          ColumnKind.FLOAT,
          ColumnKind.BINARY,
          ColumnKind.DATE,
          ColumnKind.TIMESTAMP_TZ,
          ColumnKind.JSON
        }) {
      assertThat(RowForm.writesText(kind, "1")).as(kind.toString()).isFalse();
    }
  }

  @Test
  void aTextNotTakenIsRefusedNamingTheColumnNeverWrittenAsSomethingElse() {
    String[] texts = {"1", "a", "007", null, null, null};
    JsonNode[] values = new JsonNode[texts.length];
    for (int c = 3; c < texts.length; c++) {
      values[c] = NODES.nullNode();
    }
    assertThatThrownBy(() -> FORM.encodeTexts(texts, values))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column n (INTEGER): the text 007 is not its value's plain print");
  }

  /** The value the server's normalizer makes of a text it reads for a column of {@code kind}. */
  private static JsonNode valueOf(ColumnKind kind, String text) {
    switch (kind) {
      case INTEGER:
        return NODES.numberNode(new BigInteger(text).longValueExact());
      case BOOLEAN:
        return NODES.booleanNode(
            text.startsWith("t") || (!text.startsWith("f") && new BigInteger(text).signum() != 0));
      default: // a DECIMAL's form is its plain text, as a STRING's is the text
        return NODES.textNode(text);
    }
  }

  private static String pick(Random random, String[] texts) {
    return texts[random.nextInt(texts.length)];
  }
}

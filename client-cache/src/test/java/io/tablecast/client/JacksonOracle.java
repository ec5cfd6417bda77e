package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Jackson as the reference for typed rows read straight from the row form: maps rows three ways and
 * compares ({@link #compare}), with rows of every kind and edge values to map. Shared by the tests
 * of {@link DirectRecordMapping}.
 */
final class JacksonOracle {
  private JacksonOracle() {}

  static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  static final ObjectMapper TIME_MAPPER =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  static final Map<ColumnKind, List<JsonNode>> VALUES =
      Map.of(
          ColumnKind.INTEGER,
          List.of(
              NODES.numberNode(0L),
              NODES.numberNode(-1L),
              NODES.numberNode(300L),
              NODES.numberNode((long) Integer.MAX_VALUE),
              NODES.numberNode(Integer.MAX_VALUE + 1L),
              NODES.numberNode(Long.MIN_VALUE),
              NODES.numberNode(BigInteger.TWO.pow(70))),
          ColumnKind.DECIMAL,
          texts(
              "12.3400", "-0.5", "0", "0.00", "NaN", "-Infinity", "1E+5", "0." + "1".repeat(1200)),
          ColumnKind.FLOAT,
          List.of(
              NODES.numberNode(0.25),
              NODES.numberNode(-0.0),
              NODES.numberNode(1e300),
              NODES.numberNode(3.1415927f),
              NODES.textNode("NaN")),
          ColumnKind.BOOLEAN,
          List.of(NODES.booleanNode(true), NODES.booleanNode(false)),
          ColumnKind.STRING,
          texts("", "héllo 😀", "quote \" nul \u0000 newline \n", " padded "),
          ColumnKind.TIMESTAMP_TZ,
          texts(
              "2024-02-29T11:45:30.123456Z",
              "2024-02-29T11:45:30Z",
              "1969-12-31T23:59:59.500Z",
              "-0043-03-15T12:00:00Z",
              "+294276-12-31T23:59:59.999999Z",
              "infinity"),
          ColumnKind.DATE,
          texts("2024-02-29", "0001-01-01", "0044-03-15 BC", "infinity", "294276-12-31"),
          ColumnKind.TIMESTAMP,
          texts(
              "2024-02-29T13:45:30.123456",
              "2024-02-29T13:45:30",
              "0044-03-15T13:45:30.5 BC",
              "-infinity"),
          ColumnKind.TIME,
          texts("13:45:30.123456", "-838:59:59", "24:00:00"),
          ColumnKind.JSON,
          List.of(NODES.objectNode().put("a", 1), NODES.arrayNode().add("x")));

  /** What mapping a list of rows gave. */
  record Outcomes(TypedRowMapping<?> mapping, int taken, int byJackson, int refusals) {}

  /**
   * Maps each row three ways: Jackson from the row's tree (the reference), the direct path alone (a
   * value, when taken, must equal the reference), and the typed mapping as mirrors use it (value or
   * refusal must be the reference's).
   */
  static <T> Outcomes compare(
      ObjectMapper mapper, Class<T> type, RowForm form, List<ObjectNode> rows) {
    DirectRecordMapping<T> direct = DirectRecordMapping.of(mapper, type);
    TypedRowMapping<T> mapping = new TypedRowMapping<>(type, mapper);
    int taken = 0;
    int byJackson = 0;
    int refusals = 0;
    for (ObjectNode row : rows) {
      byte[] bytes = form.encode(row);
      String reference = jackson(mapper, type, form.toNode(bytes));
      T directly = direct == null ? null : direct.map(form, bytes);
      if (directly != null) {
        taken++;
        assertThat("value " + directly).as("read directly: %s", row).isEqualTo(reference);
      } else {
        byJackson++;
      }
      refusals += reference.startsWith("error") ? 1 : 0;
      String mapped;
      try {
        mapped = "value " + mapping.map(PackedRow.of(form, bytes));
      } catch (IllegalArgumentException e) {
        mapped =
            "error " + e.getMessage().replace("cannot map row to " + type.getName() + ": ", "");
      }
      assertThat(mapped).as("%s", row).isEqualTo(reference);
    }
    return new Outcomes(mapping, taken, byJackson, refusals);
  }

  /** "value " and the row Jackson maps from {@code tree}, or "error " and its explanation. */
  static String jackson(ObjectMapper mapper, Class<?> type, ObjectNode tree) {
    try {
      return "value " + mapper.treeToValue(tree, type);
    } catch (JsonProcessingException e) {
      return "error " + e.getOriginalMessage();
    }
  }

  static List<ObjectNode> randomRows(RowForm form, int count, long seed) {
    Random random = new Random(seed);
    List<ObjectNode> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ObjectNode row = NODES.objectNode();
      for (ColumnInfo c : form.columns()) {
        List<JsonNode> values = VALUES.get(c.kind());
        if (form.primaryKey().contains(c.name())) {
          row.put(c.name(), (long) i);
        } else if (random.nextInt(10) == 0) {
          row.putNull(c.name());
        } else { // mostly one of the first two values of each kind, which are plain
          row.set(c.name(), values.get(random.nextInt(random.nextInt(4) > 0 ? 2 : values.size())));
        }
      }
      rows.add(row);
    }
    return rows;
  }

  /** A form of "name KIND" columns, the first one the key. */
  static RowForm form(String... columns) {
    List<ColumnInfo> infos = new ArrayList<>();
    for (String c : columns) {
      String[] parts = c.split(" ", 2);
      infos.add(new ColumnInfo(parts[0], "t", ColumnKind.valueOf(parts[1])));
    }
    return new RowForm(infos, List.of(infos.get(0).name()));
  }

  static List<JsonNode> texts(String... values) {
    List<JsonNode> nodes = new ArrayList<>();
    for (String v : values) {
      nodes.add(NODES.textNode(v));
    }
    return nodes;
  }
}

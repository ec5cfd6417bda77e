package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Typed rows read straight from the row form give what Jackson gives from the row's JSON tree,
 * value for value and refusal for refusal, on rows of every kind with edge values and NULLs, under
 * the mappers users configure; and the direct path is taken where it should be, so that these
 * comparisons compare it.
 */
class DirectRecordMappingTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper TIME_MAPPER =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  public record Plain(
      long id,
      Long version,
      int qty,
      Integer count,
      String name,
      BigDecimal price,
      boolean active,
      Boolean flag,
      double ratio,
      Double score,
      Instant at,
      LocalDate day,
      LocalDateTime local,
      String clock) {}

  private static final RowForm PLAIN =
      form(
          "id INTEGER",
          "version INTEGER",
          "qty INTEGER",
          "count INTEGER",
          "name STRING",
          "price DECIMAL",
          "active BOOLEAN",
          "flag BOOLEAN",
          "ratio FLOAT",
          "score FLOAT",
          "at TIMESTAMP_TZ",
          "day DATE",
          "local TIMESTAMP",
          "clock TIME",
          "extra JSON");

  private static final Map<ColumnKind, List<JsonNode>> VALUES =
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

  @Test
  void plainRecordsAreReadDirectlyAndEveryRowMapsAsJacksonMapsIt() {
    Outcomes o = compare(TIME_MAPPER, Plain.class, PLAIN, randomRows(PLAIN, 3_000, 1));
    assertThat(o.taken).as("rows mapped directly").isGreaterThan(300);
    assertThat(o.byJackson).as("rows with a value only Jackson maps").isGreaterThan(300);
    assertThat(o.mapping.mapsDirectly(PLAIN)).as("no difference found").isTrue();
  }

  @Test
  void rowsOfPlainValuesAreNearlyAllMappedDirectly() {
    List<ObjectNode> rows = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      ObjectNode row = NODES.objectNode().put("id", (long) i).put("version", 3L).put("qty", i);
      row.putNull("count").put("name", "row-" + i).put("price", i + ".99");
      row.put("active", true).putNull("flag").put("ratio", 0.5).putNull("score");
      row.put("at", "2024-02-29T11:45:30.123Z").put("day", "2024-02-29");
      row.put("local", "2024-02-29T13:45:30").put("clock", "13:45:30").putNull("extra");
      rows.add(row);
    }
    Outcomes o = compare(TIME_MAPPER, Plain.class, PLAIN, rows);
    assertThat(o.taken).isEqualTo(500);
  }

  public record Snake(long id, String firstName, @JsonProperty("nm") String name) {}

  @Test
  void namesAreTheOnesTheMapperGivesTheComponents() {
    ObjectMapper snake =
        TIME_MAPPER.copy().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
    RowForm form = form("id INTEGER", "first_name STRING", "nm STRING");
    Outcomes o = compare(snake, Snake.class, form, randomRows(form, 300, 2));
    assertThat(o.taken).isGreaterThan(100);
    // the same columns under the default names: firstName has no column, Jackson alone maps
    RowForm plainNames = form("id INTEGER", "firstName STRING", "name STRING");
    assertThat(compare(snake, Snake.class, plainNames, randomRows(plainNames, 50, 3)).taken)
        .isZero();
  }

  public record Priced(long id, BigDecimal price) {}

  @Test
  void aDeserializerOfTheUsersOwnIsLeftToJackson() {
    SimpleModule rounding = new SimpleModule();
    rounding.addDeserializer(
        BigDecimal.class,
        new JsonDeserializer<>() {
          @Override
          public BigDecimal deserialize(JsonParser p, DeserializationContext c) throws IOException {
            return new BigDecimal(p.getText()).setScale(0, RoundingMode.HALF_UP);
          }
        });
    RowForm form = form("id INTEGER", "price DECIMAL");
    ObjectMapper mapper = TIME_MAPPER.copy().registerModule(rounding);
    Outcomes o = compare(mapper, Priced.class, form, randomRows(form, 200, 4));
    assertThat(o.taken).isZero();
    assertThat(o.mapping.mapsDirectly(form)).isFalse();
  }

  public record Noted(long id, @JsonSetter(nulls = Nulls.AS_EMPTY) String note, String other) {}

  @Test
  void nullsTakeWhatTheMapperSaysNullsBecome() {
    RowForm form = form("id INTEGER", "note STRING", "other STRING");
    List<ObjectNode> rows = randomRows(form, 300, 5);
    compare(TIME_MAPPER, Noted.class, form, rows);
    ObjectMapper failing =
        TIME_MAPPER.copy().enable(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES);
    compare(failing, Noted.class, form, rows);
    ObjectMapper asEmpty =
        TIME_MAPPER.copy().setDefaultSetterInfo(JsonSetter.Value.forValueNulls(Nulls.AS_EMPTY));
    compare(asEmpty, Noted.class, form, rows);
    ObjectMapper primitives =
        TIME_MAPPER.copy().enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    compare(primitives, Plain.class, PLAIN, randomRows(PLAIN, 300, 6));
  }

  public record Checked(long id, int qty) {
    public Checked {
      if (qty < 0) {
        throw new IllegalArgumentException("qty must not be negative: " + qty);
      }
    }
  }

  @Test
  void aConstructorThatRefusesARowRefusesItAsUnderJackson() {
    RowForm form = form("id INTEGER", "qty INTEGER");
    Outcomes o = compare(TIME_MAPPER, Checked.class, form, randomRows(form, 300, 7));
    assertThat(o.taken).isGreaterThan(20);
    assertThat(o.refusals).isGreaterThan(20);
  }

  @JsonIgnoreProperties({"secret"})
  public record Ignoring(long id, String secret) {}

  @Test
  void layoutsAndMappersJacksonAloneCanMapAreLeftToIt() {
    // a column of a kind the component is not read from directly
    RowForm floatPrice = form("id INTEGER", "price FLOAT");
    assertThat(compare(TIME_MAPPER, Priced.class, floatPrice, randomRows(floatPrice, 50, 8)).taken)
        .isZero();
    // a component without a column
    RowForm noPrice = form("id INTEGER", "qty INTEGER");
    assertThat(compare(TIME_MAPPER, Priced.class, noPrice, randomRows(noPrice, 50, 9)).taken)
        .isZero();
    // a column the record does not have, under a mapper that refuses unknown properties
    RowForm extra = form("id INTEGER", "price DECIMAL", "more STRING");
    ObjectMapper strict = new ObjectMapper().registerModule(new JavaTimeModule());
    assertThat(compare(strict, Priced.class, extra, randomRows(extra, 50, 10)).taken).isZero();
    // java.time without the module
    assertThat(compare(new ObjectMapper(), Plain.class, PLAIN, randomRows(PLAIN, 50, 11)).taken)
        .isZero();
    // a component ignored by name: Jackson passes the constructor a null for it
    RowForm secret = form("id INTEGER", "secret STRING");
    Outcomes ignoring = compare(TIME_MAPPER, Ignoring.class, secret, randomRows(secret, 100, 12));
    assertThat(ignoring.taken).isZero();
    assertThat(ignoring.mapping.mapsDirectly(secret)).isFalse();
  }

  public record Keyed(
      long id, java.util.UUID uid, java.time.LocalTime clock, java.time.OffsetDateTime at) {}

  @Test
  void uuidsTimesOfDayAndOffsetDateTimesAreReadDirectlyWhereJacksonReadsThemAlike() {
    RowForm form = form("id INTEGER", "uid STRING", "clock TIME", "at TIMESTAMP_TZ");
    List<String> uids =
        List.of(
            "123e4567-e89b-12d3-a456-426614174000",
            "123E4567-E89B-12D3-A456-426614174000",
            "1-1-1-1-1", // UUID.fromString reads it, Jackson does not
            "Ej5FZ+ibEtOkVkJmFBdAAA==", // Jackson reads base64 too
            "not a uuid");
    List<String> clocks =
        List.of("13:45:30.123456", "00:00:00", "24:00:00", "-838:59:59", "100:00:00");
    List<String> ats =
        List.of(
            "2024-02-29T11:45:30.123456Z",
            "2024-02-29T11:45:30Z",
            "-0043-03-15T12:00:00Z",
            "infinity");
    List<ObjectNode> rows = new ArrayList<>();
    Random random = new Random(14);
    for (int i = 0; i < 400; i++) {
      ObjectNode row = NODES.objectNode().put("id", (long) i);
      row.put("uid", uids.get(random.nextInt(random.nextBoolean() ? 2 : uids.size())));
      row.put("clock", clocks.get(random.nextInt(random.nextBoolean() ? 2 : clocks.size())));
      row.put("at", ats.get(random.nextInt(random.nextBoolean() ? 2 : ats.size())));
      if (random.nextInt(10) == 0) {
        row.putNull("uid");
      }
      rows.add(row);
    }
    Outcomes o = compare(TIME_MAPPER, Keyed.class, form, rows);
    assertThat(o.taken).isGreaterThan(50);
    assertThat(o.byJackson).isGreaterThan(50);
    // under another time zone Jackson gives an OffsetDateTime at that zone's offset: not direct
    ObjectMapper tokyo =
        TIME_MAPPER.copy().setTimeZone(java.util.TimeZone.getTimeZone("Asia/Tokyo"));
    assertThat(compare(tokyo, Keyed.class, form, rows).taken).isZero();
  }

  /** A value class with a creator and equals, as Lombok's {@code @Value} or hand-written ones. */
  public static final class Item {
    private final long id;
    private final String name;
    private final BigDecimal price;

    @com.fasterxml.jackson.annotation.JsonCreator
    public Item(
        @JsonProperty("id") long id,
        @JsonProperty("name") String name,
        @JsonProperty("price") BigDecimal price) {
      this.id = id;
      this.name = name;
      this.price = price;
    }

    public long getId() {
      return id;
    }

    public String getName() {
      return name;
    }

    public BigDecimal getPrice() {
      return price;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Item i
          && i.id == id
          && java.util.Objects.equals(i.name, name)
          && java.util.Objects.equals(i.price, price);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(id);
    }

    @Override
    public String toString() {
      return "Item[" + id + ", " + name + ", " + price + "]";
    }
  }

  /** The same without equals: rows mapped directly could not be compared, so Jackson maps them. */
  public static final class ItemWithoutEquals {
    public final long id;
    public final String name;

    @com.fasterxml.jackson.annotation.JsonCreator
    public ItemWithoutEquals(@JsonProperty("id") long id, @JsonProperty("name") String name) {
      this.id = id;
      this.name = name;
    }
  }

  @Test
  void valueClassesWithACreatorAndEqualsAreReadDirectlyToo() {
    RowForm form = form("id INTEGER", "name STRING", "price DECIMAL");
    Outcomes o = compare(TIME_MAPPER, Item.class, form, randomRows(form, 300, 13));
    assertThat(o.taken).isGreaterThan(100);
    assertThat(DirectRecordMapping.of(TIME_MAPPER, ItemWithoutEquals.class)).isNull();
  }

  /** A row type whose objects never equal one another: as if the direct path read differently. */
  public record NeverEqual(long id, String name) {
    @Override
    public boolean equals(Object o) {
      return false;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(id);
    }
  }

  @Test
  void aRowReadDirectlyThatJacksonReadsOtherwiseStopsTheDirectPathForGood() {
    RowForm form = form("id INTEGER", "name STRING");
    TypedRowMapping<NeverEqual> mapping = new TypedRowMapping<>(NeverEqual.class, TIME_MAPPER);
    assertThat(mapping.mapsDirectly(form)).isTrue();
    NeverEqual row =
        mapping.map(
            PackedRow.of(form, form.encode(NODES.objectNode().put("id", 7L).put("name", "a"))));
    assertThat(row.name()).isEqualTo("a");
    assertThat(mapping.mapsDirectly(form)).as("Jackson maps every row from now on").isFalse();
    assertThat(
            mapping
                .map(
                    PackedRow.of(
                        form, form.encode(NODES.objectNode().put("id", 8L).put("name", "b"))))
                .id())
        .isEqualTo(8);
  }

  /** What mapping a list of rows gave. */
  private record Outcomes(TypedRowMapping<?> mapping, int taken, int byJackson, int refusals) {}

  /**
   * Maps each row three ways: Jackson from the row's tree (the reference), the direct path alone (a
   * value, when taken, must equal the reference), and the typed mapping as mirrors use it (value or
   * refusal must be the reference's).
   */
  private static <T> Outcomes compare(
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
  private static String jackson(ObjectMapper mapper, Class<?> type, ObjectNode tree) {
    try {
      return "value " + mapper.treeToValue(tree, type);
    } catch (JsonProcessingException e) {
      return "error " + e.getOriginalMessage();
    }
  }

  private static List<ObjectNode> randomRows(RowForm form, int count, long seed) {
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
  private static RowForm form(String... columns) {
    List<ColumnInfo> infos = new ArrayList<>();
    for (String c : columns) {
      String[] parts = c.split(" ", 2);
      infos.add(new ColumnInfo(parts[0], "t", ColumnKind.valueOf(parts[1])));
    }
    return new RowForm(infos, List.of(infos.get(0).name()));
  }

  private static List<JsonNode> texts(String... values) {
    List<JsonNode> nodes = new ArrayList<>();
    for (String v : values) {
      nodes.add(NODES.textNode(v));
    }
    return nodes;
  }
}

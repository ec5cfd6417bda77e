package io.tablecast.client;

import static io.tablecast.client.JacksonOracle.NODES;
import static io.tablecast.client.JacksonOracle.TIME_MAPPER;
import static io.tablecast.client.JacksonOracle.compare;
import static io.tablecast.client.JacksonOracle.form;
import static io.tablecast.client.JacksonOracle.randomRows;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.JacksonOracle.Outcomes;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Typed rows read straight from the row form give what Jackson gives from the row's JSON tree,
 * value for value and refusal for refusal, on rows of every kind with edge values and NULLs, under
 * the mappers users configure; and the direct path is taken where it should be, so that these
 * comparisons compare it.
 */
class DirectRecordMappingTest {
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

  static final RowForm PLAIN =
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

  @Test
  void plainRecordsAreReadDirectlyAndEveryRowMapsAsJacksonMapsIt() {
    Outcomes o = compare(TIME_MAPPER, Plain.class, PLAIN, randomRows(PLAIN, 3_000, 1));
    assertThat(o.taken()).as("rows mapped directly").isGreaterThan(300);
    assertThat(o.byJackson()).as("rows with a value only Jackson maps").isGreaterThan(300);
    assertThat(o.mapping().mapsDirectly(PLAIN)).as("no difference found").isTrue();
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
    assertThat(o.taken()).isEqualTo(500);
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
    assertThat(o.taken()).isGreaterThan(50);
    assertThat(o.byJackson()).isGreaterThan(50);
    // under another time zone Jackson gives an OffsetDateTime at that zone's offset: not direct
    ObjectMapper tokyo =
        TIME_MAPPER.copy().setTimeZone(java.util.TimeZone.getTimeZone("Asia/Tokyo"));
    assertThat(compare(tokyo, Keyed.class, form, rows).taken()).isZero();
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
    assertThat(o.taken()).isGreaterThan(100);
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

  /** Unequal to any other object once its id reaches 1,000: a difference only a later row shows. */
  public record EqualBelowAThousand(long id, String name) {
    @Override
    public boolean equals(Object o) {
      return id < 1000 && o instanceof EqualBelowAThousand e && e.id == id && e.name.equals(name);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(id);
    }
  }

  @Test
  void afterTheFirstRowsOneRowInSoManyIsComparedStill() {
    RowForm form = form("id INTEGER", "name STRING");
    TypedRowMapping<EqualBelowAThousand> mapping =
        new TypedRowMapping<>(EqualBelowAThousand.class, TIME_MAPPER);
    int checkedRow = TypedRowMapping.CHECKED_EVERY; // the 1,025th row mapped directly
    for (long id = 0; id < checkedRow + 10; id++) {
      ObjectNode row =
          NODES.objectNode().put("id", id < checkedRow ? id : 1000 + id).put("name", "n");
      mapping.map(PackedRow.of(form, form.encode(row)));
      assertThat(mapping.mapsDirectly(form)).as("after row %s", id).isEqualTo(id < checkedRow);
    }
  }
}

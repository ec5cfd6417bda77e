package io.tablecast.client;

import static io.tablecast.client.JacksonOracle.TIME_MAPPER;
import static io.tablecast.client.JacksonOracle.compare;
import static io.tablecast.client.JacksonOracle.form;
import static io.tablecast.client.JacksonOracle.randomRows;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.tablecast.client.JacksonOracle.Outcomes;
import io.tablecast.protocol.row.RowForm;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Typed rows read straight from the row form under the mapper and record settings users configure
 * (names, deserializers of their own, null handling, refusing constructors, ignored components,
 * strict unknown properties): the direct path gives what Jackson gives, or leaves the rows to it.
 */
class DirectRecordMappingSettingsTest {
  public record Snake(long id, String firstName, @JsonProperty("nm") String name) {}

  @Test
  void namesAreTheOnesTheMapperGivesTheComponents() {
    ObjectMapper snake =
        TIME_MAPPER.copy().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
    RowForm form = form("id INTEGER", "first_name STRING", "nm STRING");
    Outcomes o = compare(snake, Snake.class, form, randomRows(form, 300, 2));
    assertThat(o.taken()).isGreaterThan(100);
    // the same columns under the default names: firstName has no column, Jackson alone maps
    RowForm plainNames = form("id INTEGER", "firstName STRING", "name STRING");
    assertThat(compare(snake, Snake.class, plainNames, randomRows(plainNames, 50, 3)).taken())
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
    assertThat(o.taken()).isZero();
    assertThat(o.mapping().mapsDirectly(form)).isFalse();
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
    compare(
        primitives,
        DirectRecordMappingTest.Plain.class,
        DirectRecordMappingTest.PLAIN,
        randomRows(DirectRecordMappingTest.PLAIN, 300, 6));
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
    assertThat(o.taken()).isGreaterThan(20);
    assertThat(o.refusals()).isGreaterThan(20);
  }

  @JsonIgnoreProperties({"secret"})
  public record Ignoring(long id, String secret) {}

  @Test
  void layoutsAndMappersJacksonAloneCanMapAreLeftToIt() {
    // a column of a kind the component is not read from directly
    RowForm floatPrice = form("id INTEGER", "price FLOAT");
    assertThat(
            compare(TIME_MAPPER, Priced.class, floatPrice, randomRows(floatPrice, 50, 8)).taken())
        .isZero();
    // a component without a column
    RowForm noPrice = form("id INTEGER", "qty INTEGER");
    assertThat(compare(TIME_MAPPER, Priced.class, noPrice, randomRows(noPrice, 50, 9)).taken())
        .isZero();
    // a column the record does not have, under a mapper that refuses unknown properties
    RowForm extra = form("id INTEGER", "price DECIMAL", "more STRING");
    ObjectMapper strict = new ObjectMapper().registerModule(new JavaTimeModule());
    assertThat(compare(strict, Priced.class, extra, randomRows(extra, 50, 10)).taken()).isZero();
    // java.time without the module
    assertThat(
            compare(
                    new ObjectMapper(),
                    DirectRecordMappingTest.Plain.class,
                    DirectRecordMappingTest.PLAIN,
                    randomRows(DirectRecordMappingTest.PLAIN, 50, 11))
                .taken())
        .isZero();
    // a component ignored by name: Jackson passes the constructor a null for it
    RowForm secret = form("id INTEGER", "secret STRING");
    Outcomes ignoring = compare(TIME_MAPPER, Ignoring.class, secret, randomRows(secret, 100, 12));
    assertThat(ignoring.taken()).isZero();
    assertThat(ignoring.mapping().mapsDirectly(secret)).isFalse();
  }
}

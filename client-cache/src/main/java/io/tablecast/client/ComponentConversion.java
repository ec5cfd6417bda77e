package io.tablecast.client;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.deser.std.NumberDeserializers;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.deser.std.UUIDDeserializer;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import com.fasterxml.jackson.datatype.jsr310.deser.LocalDateDeserializer;
import com.fasterxml.jackson.datatype.jsr310.deser.LocalDateTimeDeserializer;
import com.fasterxml.jackson.datatype.jsr310.deser.LocalTimeDeserializer;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.row.InstantText;
import io.tablecast.protocol.row.RowForm;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * How {@link DirectRecordMapping} turns one column's decoded value into the argument of one
 * component: chosen from the deserializer Jackson resolved for the component ({@link #of}), taken
 * only after that deserializer read probe texts as the conversion does ({@link
 * #readsAsJacksonDoes}), and giving null for any value Jackson is to read itself ({@link
 * #convert}).
 */
enum ComponentConversion {
  LONG(false),
  LONG_OR_NULL(true),
  INT(false),
  INT_OR_NULL(true),
  DOUBLE(false),
  DOUBLE_OR_NULL(true),
  BOOLEAN(false),
  BOOLEAN_OR_NULL(true),
  STRING(true),
  DECIMAL(true),
  INSTANT(true),
  LOCAL_DATE(true),
  LOCAL_DATE_TIME(true),
  LOCAL_TIME(true),
  OFFSET_DATE_TIME(true),
  UUID(true);

  final boolean reference;

  ComponentConversion(boolean reference) {
    this.reference = reference;
  }

  /** Whether a column of {@code kind} has values of the form this conversion reads. */
  boolean reads(ColumnKind kind) {
    return switch (this) {
      case LONG, LONG_OR_NULL, INT, INT_OR_NULL -> kind == ColumnKind.INTEGER;
      case DOUBLE, DOUBLE_OR_NULL -> kind == ColumnKind.FLOAT;
      case BOOLEAN, BOOLEAN_OR_NULL -> kind == ColumnKind.BOOLEAN;
      case STRING ->
          kind != ColumnKind.INTEGER
              && kind != ColumnKind.FLOAT
              && kind != ColumnKind.BOOLEAN
              && kind != ColumnKind.JSON;
      case DECIMAL -> kind == ColumnKind.DECIMAL;
      case INSTANT -> kind == ColumnKind.TIMESTAMP_TZ;
      case LOCAL_DATE -> kind == ColumnKind.DATE;
      case LOCAL_DATE_TIME -> kind == ColumnKind.TIMESTAMP;
      case LOCAL_TIME -> kind == ColumnKind.TIME;
      case OFFSET_DATE_TIME -> kind == ColumnKind.TIMESTAMP_TZ;
      case UUID -> kind == ColumnKind.STRING;
    };
  }

  /** How a component is read, from the deserializer Jackson resolved for it; null: by Jackson. */
  static ComponentConversion of(SettableBeanProperty p) {
    JsonDeserializer<?> d = p.getValueDeserializer();
    Class<?> t = p.getType().getRawClass();
    if (d == null) {
      return null;
    }
    Class<?> c = d.getClass();
    if (c == NumberDeserializers.LongDeserializer.class) {
      return t == long.class ? LONG : LONG_OR_NULL;
    }
    if (c == NumberDeserializers.IntegerDeserializer.class) {
      return t == int.class ? INT : INT_OR_NULL;
    }
    if (c == NumberDeserializers.DoubleDeserializer.class) {
      return t == double.class ? DOUBLE : DOUBLE_OR_NULL;
    }
    if (c == NumberDeserializers.BooleanDeserializer.class) {
      return t == boolean.class ? BOOLEAN : BOOLEAN_OR_NULL;
    }
    if (c == StringDeserializer.class && t == String.class) {
      return STRING;
    }
    if (c == NumberDeserializers.BigDecimalDeserializer.class && t == BigDecimal.class) {
      return DECIMAL;
    }
    if (c == InstantDeserializer.class && t == Instant.class) {
      return INSTANT;
    }
    if (c == LocalDateDeserializer.class) {
      return LOCAL_DATE;
    }
    if (c == LocalDateTimeDeserializer.class) {
      return LOCAL_DATE_TIME;
    }
    if (c == LocalTimeDeserializer.class) {
      return LOCAL_TIME;
    }
    if (c == InstantDeserializer.class && t == OffsetDateTime.class) {
      return OFFSET_DATE_TIME;
    }
    if (c == UUIDDeserializer.class) {
      return UUID;
    }
    return null;
  }

  /** A UUID as Jackson reads it from text: 36 characters, hex digits and four dashes in place. */
  private static final Pattern CANONICAL_UUID =
      Pattern.compile(
          "\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12}");

  /** Texts each date-time deserializer is asked to read before its component is read directly. */
  private static final Map<ComponentConversion, List<String>> PROBES =
      Map.of(
          INSTANT,
          List.of("2024-02-29T11:45:30.123456Z", "1969-12-31T23:59:59Z"),
          LOCAL_DATE,
          List.of("2024-02-29", "0001-01-01"),
          LOCAL_DATE_TIME,
          List.of("2024-02-29T13:45:30.123456", "1969-12-31T23:59:59"),
          LOCAL_TIME,
          List.of("13:45:30.123456", "00:00:00"),
          OFFSET_DATE_TIME,
          List.of("2024-02-29T11:45:30.123456Z", "1969-12-31T23:59:59Z"),
          UUID,
          List.of("123e4567-e89b-12d3-a456-426614174000", "FFFFFFFF-0000-4000-8000-00000000000A"));

  /**
   * Whether the deserializer of {@code p} reads the probe texts of its conversion as the conversion
   * does: a date-time deserializer can be configured (a pattern, a zone, leniency) in ways its
   * class does not show.
   */
  boolean readsAsJacksonDoes(ObjectMapper mapper, SettableBeanProperty p) throws IOException {
    for (String probe : PROBES.getOrDefault(this, List.of())) {
      try (JsonParser parser = new TextNode(probe).traverse(mapper)) {
        parser.nextToken();
        DeserializationContext context =
            ((DefaultDeserializationContext) mapper.getDeserializationContext())
                .createInstance(mapper.getDeserializationConfig(), parser, null);
        Object jackson = p.getValueDeserializer().deserialize(parser, context);
        if (!convert(probe).equals(jackson)) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * {@code v}, a column's decoded value, as its component's argument; null when Jackson's to read.
   */
  Object convert(Object v) {
    return switch (this) {
      case LONG, LONG_OR_NULL ->
          v instanceof Integer i ? Long.valueOf(i.longValue()) : v instanceof Long ? v : null;
      case INT, INT_OR_NULL -> v instanceof Integer ? v : null;
      case DOUBLE, DOUBLE_OR_NULL -> v instanceof Double ? v : null;
      case BOOLEAN, BOOLEAN_OR_NULL -> v instanceof Boolean ? v : null;
      case STRING -> v instanceof String ? v : null;
      case DECIMAL ->
          v instanceof BigDecimal
              ? v
              : v instanceof String s && s.length() <= RowForm.MAX_DECIMAL_TEXT
                  ? new BigDecimal(s)
                  : null;
      case INSTANT -> v instanceof String s ? InstantText.parsePrinted(s) : null;
      case LOCAL_DATE -> v instanceof String s ? LocalDate.parse(s) : null;
      case LOCAL_DATE_TIME -> v instanceof String s ? LocalDateTime.parse(s) : null;
      case LOCAL_TIME -> v instanceof String s ? LocalTime.parse(s) : null;
      case OFFSET_DATE_TIME ->
          v instanceof String s && InstantText.parsePrinted(s) != null
              ? OffsetDateTime.ofInstant(InstantText.parsePrinted(s), ZoneOffset.UTC)
              : null;
      case UUID ->
          v instanceof String s && CANONICAL_UUID.matcher(s).matches()
              ? java.util.UUID.fromString(s)
              : null;
    };
  }
}

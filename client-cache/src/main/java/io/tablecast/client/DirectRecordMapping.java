package io.tablecast.client;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializer;
import com.fasterxml.jackson.databind.deser.CreatorProperty;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.deser.ValueInstantiator;
import com.fasterxml.jackson.databind.deser.std.NumberDeserializers;
import com.fasterxml.jackson.databind.deser.std.StdValueInstantiator;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.deser.std.UUIDDeserializer;
import com.fasterxml.jackson.databind.introspect.AnnotatedWithParams;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import com.fasterxml.jackson.datatype.jsr310.deser.LocalDateDeserializer;
import com.fasterxml.jackson.datatype.jsr310.deser.LocalDateTimeDeserializer;
import com.fasterxml.jackson.datatype.jsr310.deser.LocalTimeDeserializer;
import io.tablecast.protocol.ColumnInfo;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Typed rows of a record type mapped straight from the row form, without a JSON tree: each column's
 * value is decoded once and handed to the creator Jackson itself calls. Taken only where that gives
 * what Jackson gives: the record's deserializer, its creator and each component's deserializer are
 * the ones the mapper resolves, and a component is read directly only when that deserializer is one
 * of Jackson's standard ones (numbers, text, {@code BigDecimal}, booleans, {@code UUID}, the
 * JSR-310 {@code Instant}, {@code OffsetDateTime}, {@code LocalDate}, {@code LocalDateTime}, {@code
 * LocalTime}) and the column's value has the plain form it reads. Any other value (a NULL for a
 * primitive, a number out of an {@code int}'s range, a date BC, a text that does not parse) sends
 * that row to Jackson, which maps it or explains why not; any other record, mapper or layout sends
 * every row there. Jackson stays the reference: {@link TypedRowMapping} maps a sample of the rows
 * taken here through it as well and stops taking this path for good if one differs. Besides
 * records, a class whose only properties are those of its {@code @JsonCreator} constructor or
 * factory is mapped the same way, when it overrides {@code equals} (which that comparison needs).
 *
 * <p>Thread-safe: the layouts are immutable, and the last one used is kept in a volatile field.
 *
 * @param <V> the record type
 */
final class DirectRecordMapping<V> {
  /** A conversion of one column's decoded value to the argument its component takes. */
  private enum Conversion {
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

    Conversion(boolean reference) {
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
  }

  private final AnnotatedWithParams creator;
  private final int arguments;
  private final Map<String, Component> components;
  private final boolean unknownColumnsFail;
  private volatile Layout last;

  private record Component(int index, Conversion conversion, boolean nullIsNull) {}

  /** Per column of one row form: where its value goes, and how; all null when Jackson maps all. */
  private static final class Layout {
    final RowForm form;
    final int[] argument;
    final Conversion[] conversion;
    final boolean[] nullIsNull;
    final boolean[] wanted;
    final boolean[] decimals;

    Layout(
        RowForm form,
        int[] argument,
        Conversion[] conversion,
        boolean[] nullIsNull,
        boolean[] wanted,
        boolean[] decimals) {
      this.form = form;
      this.argument = argument;
      this.conversion = conversion;
      this.nullIsNull = nullIsNull;
      this.wanted = wanted;
      this.decimals = decimals;
    }

    static Layout byJackson(RowForm form) {
      return new Layout(form, null, null, null, null, null);
    }

    boolean taken() {
      return argument != null;
    }
  }

  private DirectRecordMapping(
      AnnotatedWithParams creator, Map<String, Component> components, boolean unknownColumnsFail) {
    this.creator = creator;
    this.arguments = components.size();
    this.components = components;
    this.unknownColumnsFail = unknownColumnsFail;
  }

  /** The direct mapping of {@code type} under {@code mapper}, or null when Jackson maps it all. */
  static <V> DirectRecordMapping<V> of(ObjectMapper mapper, Class<V> type) {
    if (!TypedRowMapping.overridesEquals(type)) {
      return null; // rows mapped here could not be compared with Jackson's
    }
    try {
      DeserializationConfig config = mapper.getDeserializationConfig();
      DefaultDeserializationContext context =
          ((DefaultDeserializationContext) mapper.getDeserializationContext())
              .createDummyInstance(config);
      JsonDeserializer<Object> deserializer =
          context.findRootValueDeserializer(mapper.constructType(type));
      if (deserializer.getClass() != BeanDeserializer.class) {
        return null; // a deserializer of the user's, a builder, a delegating creator...
      }
      BeanDeserializer bean = (BeanDeserializer) deserializer;
      ValueInstantiator instantiator = bean.getValueInstantiator();
      if (instantiator.getClass() != StdValueInstantiator.class
          || !instantiator.canCreateFromObjectWith()
          || instantiator.getWithArgsCreator() == null
          || bean.getObjectIdReader() != null
          || bean.hasViews()
          || bean.isCaseInsensitive()) {
        return null;
      }
      List<SettableBeanProperty> creatorProperties = new ArrayList<>();
      bean.creatorProperties().forEachRemaining(creatorProperties::add); // resolved, as used
      if (bean.getPropertyCount() != creatorProperties.size()
          || instantiator.getWithArgsCreator().getParameterCount() != creatorProperties.size()) {
        return null; // properties set after the creator, parameters ignored: Jackson's to fill
      }
      boolean nullsAreNulls =
          !config.isEnabled(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES)
              && config.getDefaultSetterInfo().nonDefaultValueNulls() == null;
      Map<String, Component> components = new HashMap<>();
      for (SettableBeanProperty p : creatorProperties) {
        Conversion conversion = conversionOf(p);
        if (!(p instanceof CreatorProperty c)
            || conversion == null
            || !readsAsConverted(mapper, p, conversion)
            || c.isIgnorable()
            || c.getInjectableValueId() != null
            || c.getValueTypeDeserializer() != null
            || c.getCreatorIndex() < 0
            || c.getCreatorIndex() >= creatorProperties.size()) {
          return null;
        }
        JsonSetter.Value typeNulls =
            config.getConfigOverride(c.getType().getRawClass()).getSetterInfo();
        boolean nullIsNull =
            conversion.reference
                && nullsAreNulls
                && c.getMetadata().getValueNulls() == null
                && (typeNulls == null || typeNulls.nonDefaultValueNulls() == null)
                && c.getNullValueProvider() == c.getValueDeserializer()
                && c.getValueDeserializer().getNullValue(context) == null;
        components.put(c.getName(), new Component(c.getCreatorIndex(), conversion, nullIsNull));
      }
      if (components.values().stream().map(Component::index).distinct().count()
          != creatorProperties.size()) {
        return null;
      }
      return new DirectRecordMapping<>(
          instantiator.getWithArgsCreator(),
          components,
          config.isEnabled(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES));
    } catch (Exception | LinkageError e) {
      return null; // Jackson cannot map the type: it says why on the first row
    }
  }

  /** How a component is read, from the deserializer Jackson resolved for it; null: by Jackson. */
  private static Conversion conversionOf(SettableBeanProperty p) {
    JsonDeserializer<?> d = p.getValueDeserializer();
    Class<?> t = p.getType().getRawClass();
    if (d == null) {
      return null;
    }
    Class<?> c = d.getClass();
    if (c == NumberDeserializers.LongDeserializer.class) {
      return t == long.class ? Conversion.LONG : Conversion.LONG_OR_NULL;
    }
    if (c == NumberDeserializers.IntegerDeserializer.class) {
      return t == int.class ? Conversion.INT : Conversion.INT_OR_NULL;
    }
    if (c == NumberDeserializers.DoubleDeserializer.class) {
      return t == double.class ? Conversion.DOUBLE : Conversion.DOUBLE_OR_NULL;
    }
    if (c == NumberDeserializers.BooleanDeserializer.class) {
      return t == boolean.class ? Conversion.BOOLEAN : Conversion.BOOLEAN_OR_NULL;
    }
    if (c == StringDeserializer.class && t == String.class) {
      return Conversion.STRING;
    }
    if (c == NumberDeserializers.BigDecimalDeserializer.class && t == BigDecimal.class) {
      return Conversion.DECIMAL;
    }
    if (c == InstantDeserializer.class && t == Instant.class) {
      return Conversion.INSTANT;
    }
    if (c == LocalDateDeserializer.class) {
      return Conversion.LOCAL_DATE;
    }
    if (c == LocalDateTimeDeserializer.class) {
      return Conversion.LOCAL_DATE_TIME;
    }
    if (c == LocalTimeDeserializer.class) {
      return Conversion.LOCAL_TIME;
    }
    if (c == InstantDeserializer.class && t == OffsetDateTime.class) {
      return Conversion.OFFSET_DATE_TIME;
    }
    if (c == UUIDDeserializer.class) {
      return Conversion.UUID;
    }
    return null;
  }

  /** A UUID as Jackson reads it from text: 36 characters, hex digits and four dashes in place. */
  private static final Pattern CANONICAL_UUID =
      Pattern.compile(
          "\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12}");

  /** Texts each date-time deserializer is asked to read before its component is read directly. */
  private static final Map<Conversion, List<String>> PROBES =
      Map.of(
          Conversion.INSTANT,
          List.of("2024-02-29T11:45:30.123456Z", "1969-12-31T23:59:59Z"),
          Conversion.LOCAL_DATE,
          List.of("2024-02-29", "0001-01-01"),
          Conversion.LOCAL_DATE_TIME,
          List.of("2024-02-29T13:45:30.123456", "1969-12-31T23:59:59"),
          Conversion.LOCAL_TIME,
          List.of("13:45:30.123456", "00:00:00"),
          Conversion.OFFSET_DATE_TIME,
          List.of("2024-02-29T11:45:30.123456Z", "1969-12-31T23:59:59Z"),
          Conversion.UUID,
          List.of("123e4567-e89b-12d3-a456-426614174000", "FFFFFFFF-0000-4000-8000-00000000000A"));

  /**
   * Whether the deserializer of {@code p} reads the probe texts of its conversion as the conversion
   * does: a date-time deserializer can be configured (a pattern, a zone, leniency) in ways its
   * class does not show.
   */
  private static boolean readsAsConverted(
      ObjectMapper mapper, SettableBeanProperty p, Conversion conversion) throws IOException {
    for (String probe : PROBES.getOrDefault(conversion, List.of())) {
      try (JsonParser parser = new TextNode(probe).traverse(mapper)) {
        parser.nextToken();
        DeserializationContext context =
            ((DefaultDeserializationContext) mapper.getDeserializationContext())
                .createInstance(mapper.getDeserializationConfig(), parser, null);
        Object jackson = p.getValueDeserializer().deserialize(parser, context);
        if (!convert(conversion, probe).equals(jackson)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether rows of {@code form} are mapped here (tests). */
  boolean takes(RowForm form) {
    return layoutOf(form).taken();
  }

  /**
   * The record of {@code row}, a row of {@code form}; null when Jackson has to map it (see the
   * class comment).
   */
  @SuppressWarnings("unchecked")
  V map(RowForm form, byte[] row) {
    Layout layout = layoutOf(form);
    if (!layout.taken()) {
      return null;
    }
    Object[] values = new Object[layout.argument.length];
    Object[] arguments = new Object[this.arguments];
    try {
      form.valuesToJava(row, layout.wanted, layout.decimals, values);
      for (int c = 0; c < values.length; c++) {
        int a = layout.argument[c];
        if (a < 0) {
          continue;
        }
        Object v = values[c];
        if (v == null && !layout.nullIsNull[c]) {
          return null;
        }
        Object argument = v == null ? null : convert(layout.conversion[c], v);
        if (argument == null && v != null) {
          return null;
        }
        arguments[a] = argument;
      }
      return (V) creator.call(arguments);
    } catch (Exception e) {
      return null; // malformed bytes, a text that does not parse, a constructor that refuses
    }
  }

  private static Object convert(Conversion conversion, Object v) {
    return switch (conversion) {
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

  private Layout layoutOf(RowForm form) {
    Layout l = last;
    if (l == null || l.form != form) {
      l = layout(form);
      last = l;
    }
    return l;
  }

  /** Every component has a column of a kind its conversion reads, and no column is refused. */
  private Layout layout(RowForm form) {
    List<ColumnInfo> columns = form.columns();
    int[] argument = new int[columns.size()];
    Conversion[] conversion = new Conversion[columns.size()];
    boolean[] nullIsNull = new boolean[columns.size()];
    boolean[] wanted = new boolean[columns.size()];
    boolean[] decimals = new boolean[columns.size()];
    int covered = 0;
    for (int c = 0; c < argument.length; c++) {
      Component component = components.get(columns.get(c).name());
      argument[c] = -1;
      if (component == null) {
        if (unknownColumnsFail) {
          return Layout.byJackson(form);
        }
        continue;
      }
      if (!component.conversion.reads(columns.get(c).kind())) {
        return Layout.byJackson(form);
      }
      argument[c] = component.index;
      wanted[c] = true;
      decimals[c] = component.conversion == Conversion.DECIMAL;
      conversion[c] = component.conversion;
      nullIsNull[c] = component.nullIsNull;
      covered++;
    }
    return covered == arguments
        ? new Layout(form, argument, conversion, nullIsNull, wanted, decimals)
        : Layout.byJackson(form);
  }
}

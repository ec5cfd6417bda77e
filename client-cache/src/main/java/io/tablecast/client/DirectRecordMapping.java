package io.tablecast.client;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializer;
import com.fasterxml.jackson.databind.deser.CreatorProperty;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.deser.ValueInstantiator;
import com.fasterxml.jackson.databind.deser.std.StdValueInstantiator;
import com.fasterxml.jackson.databind.introspect.AnnotatedWithParams;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.row.RowForm;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * <p>Thread-safe: the layouts are immutable, the last one used is kept in a volatile field, and
 * each thread maps its rows through arrays of its own.
 *
 * @param <V> the record type
 */
final class DirectRecordMapping<V> {

  private final AnnotatedWithParams creator;
  private final int arguments;
  private final Map<String, Component> components;
  private final boolean unknownColumnsFail;
  private volatile Layout last;

  /** Each thread's arrays for one row's values and arguments, reused from row to row. */
  private final ThreadLocal<Scratch> scratch;

  /**
   * A row's column values and the creator's arguments: the creator's parameters receive the
   * arguments' values (the array itself is not kept), so one pair serves every row of a thread.
   */
  private static final class Scratch {
    final Object[] arguments;
    Object[] values = new Object[0];

    Scratch(int arguments) {
      this.arguments = new Object[arguments];
    }

    Object[] values(int columns) {
      if (values.length != columns) {
        values = new Object[columns];
      }
      return values;
    }
  }

  private record Component(int index, ComponentConversion conversion, boolean nullIsNull) {}

  /**
   * Per column of one row form, the component its value goes to (null: none); null when Jackson
   * maps every row of the form. What the row walk is asked for is derived from it once.
   */
  private static final class Layout {
    final RowForm form;
    final Component[] component;
    final boolean[] wanted;
    final boolean[] decimals;

    Layout(RowForm form, Component[] component) {
      this.form = form;
      this.component = component;
      this.wanted = component == null ? null : new boolean[component.length];
      this.decimals = component == null ? null : new boolean[component.length];
      for (int c = 0; component != null && c < component.length; c++) {
        wanted[c] = component[c] != null;
        decimals[c] = wanted[c] && component[c].conversion == ComponentConversion.DECIMAL;
      }
    }

    static Layout byJackson(RowForm form) {
      return new Layout(form, null);
    }

    boolean taken() {
      return component != null;
    }
  }

  private DirectRecordMapping(
      AnnotatedWithParams creator, Map<String, Component> components, boolean unknownColumnsFail) {
    this.creator = creator;
    this.arguments = components.size();
    this.components = components;
    this.unknownColumnsFail = unknownColumnsFail;
    this.scratch = ThreadLocal.withInitial(() -> new Scratch(arguments));
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
        ComponentConversion conversion = ComponentConversion.of(p);
        if (!(p instanceof CreatorProperty c)
            || conversion == null
            || !conversion.readsAsJacksonDoes(mapper, p)
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
    Scratch scratch = this.scratch.get();
    Object[] values = scratch.values(layout.component.length);
    Object[] arguments = scratch.arguments;
    try {
      form.valuesToJava(row, layout.wanted, layout.decimals, values);
      for (int c = 0; c < values.length; c++) {
        Component component = layout.component[c];
        if (component == null) {
          continue;
        }
        Object v = values[c];
        if (v == null && !component.nullIsNull) {
          return null;
        }
        Object argument = v == null ? null : component.conversion.convert(v);
        if (argument == null && v != null) {
          return null;
        }
        arguments[component.index] = argument;
      }
      return (V) creator.call(arguments);
    } catch (Exception e) {
      return null; // malformed bytes, a text that does not parse, a constructor that refuses
    } finally {
      Arrays.fill(values, null); // nothing of the row kept past it
      Arrays.fill(arguments, null);
    }
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
    Component[] component = new Component[columns.size()];
    int covered = 0;
    for (int c = 0; c < component.length; c++) {
      Component to = components.get(columns.get(c).name());
      if (to == null) {
        if (unknownColumnsFail) {
          return Layout.byJackson(form);
        }
        continue;
      }
      if (!to.conversion.reads(columns.get(c).kind())) {
        return Layout.byJackson(form);
      }
      component[c] = to;
      covered++;
    }
    return covered == arguments ? new Layout(form, component) : Layout.byJackson(form);
  }
}

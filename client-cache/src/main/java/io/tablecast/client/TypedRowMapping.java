package io.tablecast.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.client.internal.RowKeys;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Typed rows: one object of the row type per row, mapped by Jackson (or, for a plain record, built
 * from the row form as Jackson would build it: {@link DirectRecordMapping}, checked against Jackson
 * on a sample of rows), and nothing beside it. A re-snapshot's row is unchanged when the object
 * mapped from it {@code equals} the one held, if the row type overrides {@code equals} (records
 * do); otherwise every row of a re-snapshot counts as updated. What is read back from a row (a new
 * primary key, an image to seed another mirror) is read from the object as the mapper writes it; a
 * column the row type has no property for cannot be, and the table's next snapshot has to give it
 * ({@link CannotRead}).
 *
 * @param <V> the row type
 */
final class TypedRowMapping<V> implements RowMapping<V> {
  private static final Logger LOG = LoggerFactory.getLogger(TypedRowMapping.class);

  /**
   * Rows mapped directly that Jackson maps too, to compare: the first ones, then one in so many.
   */
  static final int CHECKED_FIRST = 64;

  static final int CHECKED_EVERY = 1024;

  private final Class<V> type;
  private final ObjectMapper mapper;
  private final boolean comparable;

  /** Rows straight from the row form ({@link DirectRecordMapping}); null: Jackson maps them all. */
  private final DirectRecordMapping<V> direct;

  private final AtomicLong mappedDirectly = new AtomicLong();
  private volatile boolean directDiffers;

  TypedRowMapping(Class<V> type, ObjectMapper mapper) {
    this.type = type;
    this.mapper = mapper;
    this.comparable = overridesEquals(type);
    this.direct = DirectRecordMapping.of(mapper, type);
  }

  /**
   * Heap bytes of one object of the row type itself, on a 64-bit JVM with compressed references and
   * class pointers: a 12-byte header, then its fields (inherited ones too) packed by size (a
   * reference takes 4 bytes), 8-byte aligned; and, for a field of a boxed primitive type, its box.
   * The objects its other fields refer to (text, a decimal) are priced from the row's values.
   */
  static long objectBytes(Class<?> type) {
    long fields = 0;
    long boxes = 0;
    boolean fillsHeaderGap = false;
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers())) {
          continue;
        }
        Class<?> t = f.getType();
        int size = t == long.class || t == double.class ? 8 : fieldSize(t);
        fields += size;
        fillsHeaderGap |= size <= 4;
        boxes += !t.isPrimitive() && BOXES.contains(t) ? 16 : 0;
      }
    }
    long shell = 12 + fields + (fields > 0 && !fillsHeaderGap ? 4 : 0);
    return ((shell + 7) & ~7L) + boxes;
  }

  private static final Set<Class<?>> BOXES =
      Set.of(
          Long.class,
          Integer.class,
          Short.class,
          Byte.class,
          Double.class,
          Float.class,
          Character.class,
          Boolean.class);

  private static int fieldSize(Class<?> t) {
    if (t == int.class || t == float.class) {
      return 4;
    }
    if (t == short.class || t == char.class) {
      return 2;
    }
    if (t == byte.class || t == boolean.class) {
      return 1;
    }
    return 4; // a compressed reference
  }

  /** {@link #objectBytes(Class)} of the row type. */
  long objectBytes() {
    return objectBytes(type);
  }

  /** Whether {@code type} (or a superclass other than Object) declares {@code equals(Object)}. */
  static boolean overridesEquals(Class<?> type) {
    try {
      return type.getMethod("equals", Object.class).getDeclaringClass() != Object.class;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  @Override
  public V map(ObjectNode json) {
    if (!(json instanceof PackedRow packed && packed.form() != null && !packed.decoded())) {
      return byJackson(json);
    }
    return map(packed.form(), packed.bytes());
  }

  @Override
  public V map(RowForm form, byte[] bytes) {
    if (direct != null && !directDiffers) {
      V row = direct.map(form, bytes);
      if (row != null) {
        long n = mappedDirectly.getAndIncrement();
        return n < CHECKED_FIRST || n % CHECKED_EVERY == 0 ? checked(row, form, bytes) : row;
      }
    }
    // a row in the row form: a tree of its own, garbage once mapped, rather than the row's
    // cached one, which a snapshot's pending rows would keep alive until the last is mapped
    return byJackson(form.toNode(bytes));
  }

  /**
   * {@code row} as mapped directly, when Jackson maps the same row to an equal object; otherwise
   * Jackson's row (or its refusal), and Jackson maps every row from now on.
   */
  private V checked(V row, RowForm form, byte[] bytes) {
    V reference;
    try {
      reference = byJackson(form.toNode(bytes));
    } catch (IllegalArgumentException e) {
      differs("Jackson cannot map a row read directly");
      throw e;
    }
    if (!reference.equals(row)) {
      List<String> components = type.isRecord() ? differingComponents(row, reference) : List.of();
      differs(
          components.isEmpty()
              ? "the two objects are not equal"
              : "the components " + components + " differ");
    }
    return reference;
  }

  /**
   * Stops the direct path for good, logged once. Names the components that differ, never their
   * values, which the log is no place for.
   */
  private void differs(String how) {
    if (!directDiffers) {
      directDiffers = true;
      LOG.warn(
          "rows of {} are mapped by Jackson alone from now on: read directly from the row form and"
              + " by Jackson, {} (a difference Tablecast did not foresee: please report it with"
              + " the row type and the mapper's settings)",
          type.getName(),
          how);
    }
  }

  /** The names of the record components whose values differ between {@code a} and {@code b}. */
  private List<String> differingComponents(V a, V b) {
    List<String> names = new ArrayList<>();
    for (RecordComponent c : type.getRecordComponents()) {
      try {
        if (!Objects.deepEquals(c.getAccessor().invoke(a), c.getAccessor().invoke(b))) {
          names.add(c.getName());
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        names.add(c.getName() + " (unreadable)");
      }
    }
    return names;
  }

  /** Whether rows of {@code form} are mapped without Jackson (tests). */
  boolean mapsDirectly(RowForm form) {
    return direct != null && !directDiffers && direct.takes(form);
  }

  private V byJackson(ObjectNode tree) {
    try {
      return mapper.treeToValue(tree, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "cannot map row to " + type.getName() + ": " + e.getOriginalMessage(), e);
    }
  }

  /** The row as its type's JSON, written by the mapper without a tree (a mirror file's row). */
  byte[] toJson(V row) throws JsonProcessingException {
    return mapper.writeValueAsBytes(row);
  }

  /** A row from its type's JSON, as {@link #toJson} wrote it. */
  V fromJson(byte[] bytes, int offset, int length) throws java.io.IOException {
    return mapper.readValue(bytes, offset, length, type);
  }

  @Override
  public Boolean sameImage(V old, ObjectNode json) {
    return null;
  }

  @Override
  public boolean sameValue(V old, V mapped) {
    return comparable && old.equals(mapped);
  }

  @Override
  public Object keyOf(V row, List<String> primaryKey) {
    ObjectNode tree = tree(row);
    for (String c : primaryKey) {
      if (tree.get(c) == null) {
        throw new CannotRead(
            type.getSimpleName() + " has no property for the primary-key column " + c);
      }
    }
    return RowKeys.fromRowOrNull(tree, primaryKey);
  }

  @Override
  public ObjectNode image(V row, List<ColumnInfo> columns) {
    ObjectNode tree = tree(row);
    ObjectNode out = mapper.createObjectNode();
    for (ColumnInfo c : columns) {
      JsonNode v = tree.get(c.name());
      if (v == null) {
        throw new CannotRead(type.getSimpleName() + " has no property for the column " + c.name());
      }
      // a decimal's JSON form is its text, scale kept
      out.set(c.name(), v.isBigDecimal() ? out.textNode(v.decimalValue().toPlainString()) : v);
    }
    return out;
  }

  private ObjectNode tree(V row) {
    JsonNode tree = mapper.valueToTree(row);
    if (!(tree instanceof ObjectNode o)) {
      throw new CannotRead(type.getSimpleName() + " is not written as a JSON object");
    }
    return o;
  }
}

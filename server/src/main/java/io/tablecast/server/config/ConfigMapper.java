package io.tablecast.server.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * Binds configuration trees to settings records: snake_case keys, unknown keys refused, durations,
 * byte sizes ({@link ByteSize}), paths and booleans parsed once, and every failure turned into an
 * {@link IllegalArgumentException} that names the key and the bad value. A tree may carry Java
 * values ({@code POJONode}s: a {@link Duration}, a settings record) where YAML would have text.
 */
public final class ConfigMapper {

  private static final YAMLMapper MAPPER =
      YAMLMapper.builder()
          .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
          .defaultPropertyInclusion(
              JsonInclude.Value.construct(
                  JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
          .addModule(
              new SimpleModule("tablecast-config")
                  .addDeserializer(
                      Duration.class, new Scalar<>(Duration.class, Units::parseDuration, null))
                  .addDeserializer(
                      Path.class,
                      new Scalar<>(Path.class, s -> s.isBlank() ? null : Path.of(s), null))
                  .addDeserializer(
                      Boolean.class, new Scalar<>(Boolean.class, Units::parseBoolean, null))
                  .addDeserializer(
                      boolean.class, new Scalar<>(Boolean.class, Units::parseBoolean, false))
                  .addSerializer(Duration.class, ToStringSerializer.instance)
                  .addSerializer(Path.class, ToStringSerializer.instance))
          .build();

  private ConfigMapper() {}

  /** The mapping a YAML text holds; an empty text is an empty mapping. */
  public static ObjectNode readYaml(String yaml) {
    JsonNode root;
    try {
      root = MAPPER.readTree(yaml);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not valid YAML: " + e.getOriginalMessage(), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return JsonNodeFactory.instance.objectNode();
    }
    if (!root.isObject()) {
      throw new IllegalArgumentException(
          "the configuration must be a mapping of keys, was " + root);
    }
    return (ObjectNode) root;
  }

  /** {@code value} as a tree of its settings (nulls left out), in the form {@link #bind} reads. */
  public static ObjectNode toTree(Object value) {
    return MAPPER.valueToTree(value);
  }

  /** {@code values} as an array of its elements' trees, in the form {@link #bind} reads. */
  public static JsonNode toArray(java.util.Collection<?> values) {
    return MAPPER.valueToTree(values);
  }

  /**
   * Binds {@code tree} to {@code type}.
   *
   * @param keyName how a key path ({@code listen.port}) is named in an error
   * @throws IllegalArgumentException naming the unknown key, or the key and its bad value
   */
  public static <T> T bind(JsonNode tree, Class<T> type, UnaryOperator<String> keyName) {
    return bind(tree, type, keyName, List.of(), null);
  }

  /**
   * Binds {@code tree} to {@code type}, telling every problem at once: each unknown key (with the
   * key meant, when one is spelt alike), then {@code found} (what the caller found, such as a
   * required key missing), then each bad value. A value that cannot be bound is replaced by its
   * value in {@code fallback} (the defaults; or left out, for one it lacks) to go on to the next,
   * at most {@value #MOST_PROBLEMS} problems in all.
   *
   * @throws IllegalArgumentException naming the problem, or listing the problems, one per line
   */
  public static <T> T bind(
      JsonNode tree,
      Class<T> type,
      UnaryOperator<String> keyName,
      List<String> found,
      JsonNode fallback) {
    Bound<T> bound = bindAll(tree, type, keyName, found, fallback);
    if (!bound.problems().isEmpty()) {
      throw ConfigProblems.listing(bound.problems());
    }
    return bound.value();
  }

  /**
   * What {@link #bindAll} found: the value bound with the fallback's values in place of the bad
   * ones (null when even that could not be bound), the problems (none: the value is the tree's),
   * and the keys of the sections left out after a problem of their own (that the value then lacks
   * them is no news: "source must be set" after source's own problem).
   */
  public record Bound<T>(T value, List<String> problems, Set<String> leftOut) {

    /** Whether {@code problem} (which starts with its key) is about a section left out. */
    public boolean aboutLeftOut(String problem) {
      return leftOut.contains(problem.split(" ", 2)[0]);
    }
  }

  /** As {@link #bind(JsonNode, Class, UnaryOperator, List, JsonNode)}, without throwing. */
  public static <T> Bound<T> bindAll(
      JsonNode tree,
      Class<T> type,
      UnaryOperator<String> keyName,
      List<String> found,
      JsonNode fallback) {
    return bindAll(tree, type, keyName, found, fallback, Set.of());
  }

  /**
   * As {@link #bindAll(JsonNode, Class, UnaryOperator, List, JsonNode)}; {@code alsoAtTop} are keys
   * the file may have at its top that the caller moved elsewhere before binding, named among those
   * expected when a key there is unknown (and meant, when one is spelt alike).
   */
  public static <T> Bound<T> bindAll(
      JsonNode tree,
      Class<T> type,
      UnaryOperator<String> keyName,
      List<String> found,
      JsonNode fallback,
      Set<String> alsoAtTop) {
    List<String> problems = new ArrayList<>();
    JsonNode known = tree.deepCopy();
    checkKeys(known, MAPPER.constructType(type), "", keyName, problems, alsoAtTop);
    problems.addAll(found);
    Set<String> leftOut = new HashSet<>();
    while (problems.size() < MOST_PROBLEMS) {
      try {
        return new Bound<>(MAPPER.treeToValue(known, type), problems, leftOut);
      } catch (JsonMappingException e) {
        String problem = translate(e, keyName).getMessage();
        if (!leftOut.contains(problem.split(" ", 2)[0])) {
          ConfigProblems.addOncePerKey(problems, problem);
        }
        if (!e.getPath().isEmpty()) {
          leftOut.add(pathKey(e, keyName));
        }
        if (!ConfigProblems.replaced(known, e.getPath(), fallback)) {
          break;
        }
      } catch (JsonProcessingException e) {
        problems.add(e.getOriginalMessage());
        break;
      }
    }
    return new Bound<>(null, problems, leftOut);
  }

  /** The most problems one {@link #bindAll} tells. */
  static final int MOST_PROBLEMS = 20;

  /**
   * The settings of a record as this mapper binds them (its creator's properties), by key, in
   * declaration order; none for a value written as one scalar, like {@link Secret}.
   */
  public static Map<String, BeanPropertyDefinition> settings(Class<?> type) {
    Map<String, BeanPropertyDefinition> out = new LinkedHashMap<>();
    for (BeanPropertyDefinition p :
        MAPPER.getDeserializationConfig().introspect(MAPPER.constructType(type)).findProperties()) {
      if (p.hasConstructorParameter()) {
        out.put(p.getName(), p);
      }
    }
    return out;
  }

  /**
   * Names every unknown key, before any record is built (a record's checks would hide them), and
   * takes it out of {@code node}.
   */
  private static void checkKeys(
      JsonNode node,
      JavaType type,
      String path,
      UnaryOperator<String> keyName,
      List<String> problems,
      Set<String> alsoAtTop) {
    if (node.isArray() && type.isCollectionLikeType()) {
      for (int i = 0; i < node.size(); i++) {
        checkKeys(
            node.get(i), type.getContentType(), path + "[" + i + "]", keyName, problems, Set.of());
      }
    }
    if (!node.isObject() || !type.isRecordType()) {
      return;
    }
    Map<String, BeanPropertyDefinition> known = settings(type.getRawClass());
    List<String> unknown = new ArrayList<>();
    for (Map.Entry<String, JsonNode> field : node.properties()) {
      String key = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
      BeanPropertyDefinition setting = known.get(field.getKey());
      if (setting == null) {
        Set<String> expected = new HashSet<>(known.keySet());
        if (path.isEmpty()) {
          expected.addAll(alsoAtTop);
        }
        problems.add(ConfigProblems.unknownKey(path, field.getKey(), expected, keyName));
        unknown.add(field.getKey());
        continue;
      }
      checkKeys(field.getValue(), setting.getPrimaryType(), key, keyName, problems, Set.of());
    }
    ((ObjectNode) node).remove(unknown);
  }

  /** The key a mapping problem is at, as {@code keyName} names it ({@code listen.port}). */
  private static String pathKey(JsonMappingException e, UnaryOperator<String> keyName) {
    return keyName.apply(
        e.getPath().stream()
            .map(r -> r.getFieldName() != null ? "." + r.getFieldName() : "[" + r.getIndex() + "]")
            .collect(Collectors.joining())
            .replaceFirst("^\\.", ""));
  }

  private static IllegalArgumentException translate(
      JsonMappingException e, UnaryOperator<String> keyName) {
    String key = pathKey(e, keyName);
    for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
      if (t instanceof IllegalArgumentException iae && iae.getMessage() != null) {
        // a record's own check names its key; a parser's message starts with "must"
        String m = iae.getMessage();
        return new IllegalArgumentException(m.startsWith("must ") ? key + " " + m : m, iae);
      }
    }
    if (e instanceof UnrecognizedPropertyException u) {
      return new IllegalArgumentException(
          "unknown configuration key '"
              + key
              + "', expected one of "
              + new TreeSet<>(u.getKnownPropertyIds().stream().map(String::valueOf).toList()),
          e);
    }
    if (e instanceof InvalidFormatException f) {
      return new IllegalArgumentException(
          key + " must be " + expected(f.getTargetType()) + ", was '" + f.getValue() + "'", e);
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
      Class<?> t = m.getTargetType();
      String what =
          t.isRecord() || Map.class.isAssignableFrom(t)
              ? "a mapping of keys"
              : Collection.class.isAssignableFrom(t) || t.isArray() ? "a list" : expected(t);
      return new IllegalArgumentException(
          key + " must be " + what + " (" + e.getOriginalMessage() + ")", e);
    }
    return new IllegalArgumentException(key + ": " + e.getOriginalMessage(), e);
  }

  private static String expected(Class<?> type) {
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      return "an integer";
    }
    if (type.isEnum()) {
      String[] names =
          Arrays.stream(type.getEnumConstants())
              .map(c -> c.toString().toLowerCase(Locale.ROOT))
              .toArray(String[]::new);
      return String.join(", ", Arrays.copyOf(names, names.length - 1))
          + " or "
          + names[names.length - 1];
    }
    return "a single value";
  }

  /** Reads a value written as text (or already a Java value, from a builder) with a parser. */
  private static final class Scalar<T> extends JsonDeserializer<T> {
    private final Class<T> type;
    private final Function<String, T> parse;
    private final T absent;

    Scalar(Class<T> type, Function<String, T> parse, T absent) {
      this.type = type;
      this.parse = parse;
      this.absent = absent;
    }

    @Override
    public T getNullValue(DeserializationContext ctxt) {
      return absent;
    }

    @Override
    public T deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() == JsonToken.VALUE_EMBEDDED_OBJECT
          && type.isInstance(p.getEmbeddedObject())) {
        return type.cast(p.getEmbeddedObject());
      }
      if (!p.currentToken().isScalarValue()) {
        return type.cast(ctxt.handleUnexpectedToken(type, p));
      }
      return parse.apply(p.getText());
    }
  }

  /** Reads a {@link ByteSize} setting: a number of bytes, or a count with a binary unit. */
  public static final class ByteSizeDeserializer extends JsonDeserializer<Number>
      implements ContextualDeserializer {
    private final boolean toInt;

    /** For Jackson: a {@code long} setting until {@link #createContextual} says otherwise. */
    public ByteSizeDeserializer() {
      this(false);
    }

    private ByteSizeDeserializer(boolean toInt) {
      this.toInt = toInt;
    }

    @Override
    public JsonDeserializer<?> createContextual(
        DeserializationContext ctxt, BeanProperty property) {
      Class<?> raw = property == null ? long.class : property.getType().getRawClass();
      return new ByteSizeDeserializer(raw == int.class || raw == Integer.class);
    }

    @Override
    public Number getNullValue(DeserializationContext ctxt) {
      return toInt ? (Number) 0 : (Number) 0L;
    }

    @Override
    public Number deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (!p.currentToken().isScalarValue()) {
        return (Number) ctxt.handleUnexpectedToken(long.class, p);
      }
      long bytes =
          p.currentToken() == JsonToken.VALUE_NUMBER_INT
              ? p.getLongValue()
              : Units.parseSize(p.getText());
      if (!toInt) {
        return bytes;
      }
      if (bytes > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("must be a byte count below 2GiB, was " + bytes);
      }
      return (int) bytes;
    }
  }
}

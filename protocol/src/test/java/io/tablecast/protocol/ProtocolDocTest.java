package io.tablecast.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keeps docs/PROTOCOL.md in step with the code: every message type must have a table row starting
 * with its code and its JSON name that declares exactly the record's components with their types,
 * every nested object a bullet that does the same, every error code a table row starting with its
 * name, and every JSON example (the {@code C→S}/{@code S→C} lines and inline {@code {"type":...}}
 * snippets) must decode with {@link MessageCodec#decodeJson} and encode back to the same text. A
 * new type, field or code without documentation fails here, and so does a documented field the code
 * does not have.
 */
class ProtocolDocTest {

  private static final Path DOC = Path.of("docs", "PROTOCOL.md");

  /**
   * A field declaration in the Fields column: {@code `name` type}, the type one of the document's
   * type names (see {@link #docType}), optionally followed by {@code []} and {@code ?}.
   */
  private static final Pattern FIELD =
      Pattern.compile(
          "`(\\w+)` ((?:int|long|boolean|string|row|array|value|map|ColumnInfo|TableSchemaInfo|Change|Shape)(?:\\[\\])?\\??)(?![\\w\\[])");

  /** An example line of the JSON transport. */
  private static final Pattern EXAMPLE_LINE = Pattern.compile("^(?:C→S|S→C) (\\{.*)$");

  /** An inline JSON message, e.g. {@code `{"type":"ping","nonce":7}`}. */
  private static final Pattern INLINE_EXAMPLE = Pattern.compile("`(\\{\"type\":[^`]*})`");

  /** The cells of every Markdown table row of the document, trimmed. */
  private static List<List<String>> rows;

  private static List<String> lines;

  @BeforeAll
  static void readDocument() throws IOException {
    Path doc = findDocument();
    rows = new ArrayList<>();
    lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
    for (String line : lines) {
      String t = line.trim();
      if (!t.startsWith("|") || !t.endsWith("|") || t.length() < 2) {
        continue;
      }
      String inner = t.substring(1, t.length() - 1);
      rows.add(Arrays.stream(inner.split("\\|", -1)).map(String::trim).toList());
    }
    assertThat(rows).as("table rows in %s", doc).isNotEmpty();
  }

  /** Walks up from the working directory (surefire runs in protocol/) to the repository root. */
  private static Path findDocument() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve(DOC))) {
        return d.resolve(DOC);
      }
    }
    throw new AssertionError("no " + DOC + " in " + dir + " or any parent directory");
  }

  @ParameterizedTest
  @EnumSource(MessageType.class)
  void everyMessageTypeHasARowWithItsCodeAndJsonName(MessageType type) {
    String code = Integer.toString(type.code());
    String name = "`" + type.jsonName() + "`";
    assertThat(rows)
        .as("docs/PROTOCOL.md needs a message table row '| %s | %s | ...' for %s", code, name, type)
        .anySatisfy(
            cells ->
                assertThat(cells.subList(0, Math.min(2, cells.size())))
                    .containsExactly(code, name));
  }

  @ParameterizedTest
  @EnumSource(ErrorCode.class)
  void everyErrorCodeHasARow(ErrorCode code) {
    String name = "`" + code.name() + "`";
    assertThat(rows)
        .as("docs/PROTOCOL.md needs an error table row '| %s | ...'", name)
        .anySatisfy(cells -> assertThat(cells.get(0)).isEqualTo(name));
  }

  @ParameterizedTest
  @EnumSource(MessageType.class)
  void everyMessageRowDeclaresExactlyTheRecordComponentsWithTheirTypes(MessageType type) {
    String code = Integer.toString(type.code());
    String name = "`" + type.jsonName() + "`";
    List<String> row =
        rows.stream()
            .filter(c -> c.size() >= 4 && c.get(0).equals(code) && c.get(1).equals(name))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no message table row for " + type));
    assertDeclares(
        type + " (message table row, Fields column)",
        type.messageClass(),
        declarations(FIELD.matcher(String.join(" | ", row.subList(3, row.size())))));
  }

  static Stream<Class<? extends Record>> nestedObjects() {
    return Stream.of(
        ColumnInfo.class, Message.TableSchemaInfo.class, Message.Change.class, Message.Shape.class);
  }

  @ParameterizedTest
  @MethodSource("nestedObjects")
  void everyNestedObjectBulletDeclaresExactlyItsComponents(Class<? extends Record> record) {
    String prefix = "- **" + record.getSimpleName() + "** `{";
    String line =
        lines.stream()
            .filter(l -> l.startsWith(prefix))
            .findFirst()
            .orElseThrow(
                () ->
                    new AssertionError(
                        "docs/PROTOCOL.md needs a bullet starting " + prefix + "...}`"));
    String inside = line.substring(prefix.length(), line.indexOf("}`", prefix.length()));
    Map<String, String> declared = new LinkedHashMap<>();
    for (String decl : inside.split(",")) {
      String[] nameAndType = decl.trim().split(" ");
      assertThat(nameAndType).as("'name type' in %s", line).hasSize(2);
      declared.put(nameAndType[0], nameAndType[1]);
    }
    assertDeclares(record.getSimpleName() + " (nested objects)", record, declared);
  }

  /**
   * The document's title and its Versioning section name the version the code speaks (both said 1
   * under version 2).
   */
  @Test
  void theDocumentedProtocolVersionIsTheCodes() {
    String version = String.valueOf(Message.PROTOCOL_VERSION);
    assertThat(lines.get(0)).isEqualTo("# Tablecast wire protocol (version " + version + ")");
    StringBuilder served = new StringBuilder(version);
    for (int v = Message.PROTOCOL_VERSION - 1; v > Message.OLDEST_PROTOCOL_VERSION; v--) {
      served.append(", ").append(v);
    }
    served.append(" and ").append(Message.OLDEST_PROTOCOL_VERSION);
    assertThat(String.join("\n", lines))
        .contains("`Message.PROTOCOL_VERSION` = " + version + ",")
        .contains("the server serves versions " + served + "\n(`Message.OLDEST_PROTOCOL_VERSION`)");
  }

  @Test
  void theDocumentHasJsonExamples() {
    assertThat(jsonExamples()).as("JSON example lines and snippets").hasSizeGreaterThan(10);
  }

  static List<String> jsonExamples() {
    List<String> examples = new ArrayList<>();
    for (String line : lines) {
      Matcher m = EXAMPLE_LINE.matcher(line.trim());
      if (m.matches()) {
        examples.add(m.group(1));
      }
      Matcher inline = INLINE_EXAMPLE.matcher(line);
      while (inline.find()) {
        examples.add(inline.group(1));
      }
    }
    return examples;
  }

  @ParameterizedTest
  @MethodSource("jsonExamples")
  void everyJsonExampleDecodesAndEncodesBackToTheSameText(String example) {
    Message decoded;
    try {
      decoded = MessageCodec.decodeJson(example);
    } catch (ProtocolException e) {
      throw new AssertionError(
          "docs/PROTOCOL.md example does not decode (" + e.getMessage() + "): " + example, e);
    }
    assertThat(MessageCodec.encodeJson(decoded)).as("the example re-encoded").isEqualTo(example);
  }

  /** Field name → documented type, from every match of {@link #FIELD}. */
  private static Map<String, String> declarations(Matcher m) {
    Map<String, String> declared = new LinkedHashMap<>();
    while (m.find()) {
      declared.put(m.group(1), m.group(2));
    }
    return declared;
  }

  private static void assertDeclares(String where, Class<?> record, Map<String, String> declared) {
    Map<String, String> expected = new LinkedHashMap<>();
    for (RecordComponent c : record.getRecordComponents()) {
      expected.put(c.getName(), docType(c.getGenericType()));
    }
    Map<String, String> documented = new LinkedHashMap<>();
    declared.forEach((field, docType) -> documented.put(field, docType.replace("?", "")));
    assertThat(documented)
        .as("fields and types documented for %s, expected those of %s", where, record.getName())
        .containsExactlyInAnyOrderEntriesOf(expected);
    declared.forEach(
        (field, docType) ->
            assertThat(docType.endsWith("?") && expected.get(field).matches("int|long"))
                .as(
                    "%s: %s is a number and required, it cannot be marked optional (?)",
                    where, field)
                .isFalse());
  }

  /** How docs/PROTOCOL.md names a component's type. */
  private static String docType(Type t) {
    if (t == int.class) {
      return "int";
    }
    if (t == long.class) {
      return "long";
    }
    if (t == String.class || (t instanceof Class<?> c && c.isEnum())) {
      return "string";
    }
    if (t == ObjectNode.class) {
      return "row";
    }
    if (t == ArrayNode.class) {
      return "array";
    }
    if (t == com.fasterxml.jackson.databind.JsonNode.class) {
      return "value";
    }
    if (t instanceof ParameterizedType p && p.getRawType() == Map.class) {
      return "map";
    }
    if (t instanceof ParameterizedType p && p.getRawType() == List.class) {
      return docType(p.getActualTypeArguments()[0]) + "[]";
    }
    if (t instanceof Class<?> c) {
      return c.getSimpleName();
    }
    throw new AssertionError("no documented name for type " + t);
  }
}

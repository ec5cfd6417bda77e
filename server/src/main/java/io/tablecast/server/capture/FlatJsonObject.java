package io.tablecast.server.capture;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.MessageCodec;

/**
 * Reads a JSON object whose fields are all plain scalars, as the databases print a row image (
 * {@code {"id": 5, "name": "x", "price": 1.50}}), field by field, without a parser object: creating
 * a Jackson parser for each image cost the tail more than reading the image did (a parser, its
 * context and buffers per changed row; {@code ImageReadOnce} in the benchmark).
 *
 * <p>It reads only what it can read exactly as Jackson does and gives up on anything else: a string
 * or name with an escape or a control character, a nested object or array, a number that is not
 * plainly a JSON number or is longer than {@value #MAX_NUMBER_CHARS} characters, a token it does
 * not expect. Whoever gave up then reads the whole text with Jackson, which reads it or names its
 * error: values and errors stay Jackson's ({@code RowNormalizerStreamingTest} holds both paths to
 * the same bytes and messages). Not thread-safe; one per text.
 */
final class FlatJsonObject {
  /** {@link #next}: a field was read. */
  static final int FIELD = 1;

  /** {@link #next}: the object's closing brace was read; nothing after it is looked at. */
  static final int END = 0;

  /** {@link #next}: the text holds something this reader leaves to Jackson. */
  static final int GAVE_UP = -1;

  /** Longer numbers are left to Jackson, which applies its own limits to them. */
  static final int MAX_NUMBER_CHARS = 64;

  private static final JsonNodeFactory NODES = MessageCodec.jsonMapper().getNodeFactory();

  private final String text;
  private final char[] chars;
  private int pos;
  private int nameStart = -1;
  private int nameEnd;
  private String value;
  private JsonToken token;

  FlatJsonObject(String text) {
    this.text = text;
    this.chars = text.toCharArray();
  }

  /** Reads up to the opening brace: false when the text starts with anything else. */
  boolean open() {
    skipSpace();
    if (pos < chars.length && chars[pos] == '{') {
      pos++;
      return true;
    }
    return false;
  }

  /**
   * Reads the next field, or the closing brace: {@link #FIELD}, {@link #END} or {@link #GAVE_UP}.
   */
  int next() {
    skipSpace();
    if (pos >= chars.length) {
      return GAVE_UP;
    }
    char c = chars[pos];
    if (nameStart < 0 && c == '}') {
      return END; // {}
    }
    if (nameStart >= 0) { // after a field: a comma and the next one, or the end
      if (c == '}') {
        return END;
      }
      if (c != ',') {
        return GAVE_UP;
      }
      pos++;
      skipSpace();
    }
    nameStart = pos + 1;
    nameEnd = stringEnd();
    if (nameEnd < 0) {
      return GAVE_UP;
    }
    skipSpace();
    if (pos >= chars.length || chars[pos] != ':') {
      return GAVE_UP;
    }
    pos++;
    skipSpace();
    return value() ? FIELD : GAVE_UP;
  }

  /** The field's name. */
  String name() {
    return new String(chars, nameStart, nameEnd - nameStart);
  }

  /** Whether the field's name is {@code candidate}, without making a string of it. */
  boolean nameIs(String candidate) {
    int length = nameEnd - nameStart;
    if (candidate.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (candidate.charAt(i) != chars[nameStart + i]) {
        return false;
      }
    }
    return true;
  }

  /** The field's value as Jackson's {@code getText} gives it: a string unquoted, a number as is. */
  String text() {
    return value;
  }

  /**
   * The field's token: a string, an integer or float number, true, false or null; never a
   * structure.
   */
  JsonToken token() {
    return token;
  }

  /** The node Jackson reads for the field's value (numbers as the row mapper reads them). */
  JsonNode node() {
    switch (token) {
      case VALUE_STRING:
        return NODES.textNode(value);
      case VALUE_NUMBER_INT:
      case VALUE_NUMBER_FLOAT:
        return JsonNumbers.node(value);
      case VALUE_TRUE:
        return NODES.booleanNode(true);
      case VALUE_FALSE:
        return NODES.booleanNode(false);
      default:
        return NODES.nullNode();
    }
  }

  private boolean value() {
    if (pos >= chars.length) {
      return false;
    }
    char c = chars[pos];
    if (c == '"') {
      int start = pos + 1;
      int end = stringEnd();
      value = end < 0 ? null : new String(chars, start, end - start);
      token = JsonToken.VALUE_STRING;
      return value != null;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      return number();
    }
    return literal("true", JsonToken.VALUE_TRUE)
        || literal("false", JsonToken.VALUE_FALSE)
        || literal("null", JsonToken.VALUE_NULL);
  }

  /**
   * Reads a quoted string without escapes or control characters at {@link #pos}: the index of its
   * closing quote, or -1 for any other text.
   */
  private int stringEnd() {
    if (pos >= chars.length || chars[pos] != '"') {
      return -1;
    }
    for (int i = pos + 1; i < chars.length; i++) {
      char c = chars[i];
      if (c == '"') {
        pos = i + 1;
        return i;
      }
      if (c == '\\' || c < 0x20) {
        return -1;
      }
    }
    return -1; // not closed
  }

  /**
   * A JSON number at {@link #pos} ({@link JsonNumbers#numberEnd}); false for anything else, or a
   * longer one than {@value #MAX_NUMBER_CHARS}.
   */
  private boolean number() {
    int end = JsonNumbers.numberEnd(text, pos);
    if (end < 0 || end - pos > MAX_NUMBER_CHARS) {
      return false;
    }
    value = new String(chars, pos, end - pos);
    boolean integral = value.indexOf('.') < 0 && value.indexOf('e') < 0 && value.indexOf('E') < 0;
    token = integral ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
    pos = end;
    return true;
  }

  private boolean literal(String word, JsonToken literal) {
    if (!text.startsWith(word, pos)) {
      return false;
    }
    int end = pos + word.length();
    if (end < chars.length && Character.isLetterOrDigit(chars[end])) {
      return false; // trueX: Jackson names the token
    }
    pos = end;
    value = word;
    token = literal;
    return true;
  }

  private void skipSpace() {
    while (pos < chars.length) {
      char c = chars[pos];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }
}

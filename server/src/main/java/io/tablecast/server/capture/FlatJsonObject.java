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

  /**
   * Integers up to this many characters (sign included) are read into a long as they are passed: at
   * most 18 digits always fit, and {@link JsonNumbers#node} reads them so too.
   */
  private static final int MAX_LONG_CHARS = 18;

  /** Read in place (no copy of its characters: this runs for every image the tail reads). */
  private final String text;

  private final int length;
  private int pos;
  private int nameStart = -1;
  private int nameEnd;

  /** The value's text; for a number made only when asked ({@link #text}). */
  private String value;

  private int valueStart;
  private int valueEnd;

  /** The value of an integer of at most {@link #MAX_LONG_CHARS} characters, read as passed. */
  private long integer;

  private boolean readAsLong;
  private JsonToken token;

  FlatJsonObject(String text) {
    this.text = text;
    this.length = text.length();
  }

  /** Reads up to the opening brace: false when the text starts with anything else. */
  boolean open() {
    skipSpace();
    if (pos < length && text.charAt(pos) == '{') {
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
    if (pos >= length) {
      return GAVE_UP;
    }
    char c = text.charAt(pos);
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
    if (pos >= length || text.charAt(pos) != ':') {
      return GAVE_UP;
    }
    pos++;
    skipSpace();
    return value() ? FIELD : GAVE_UP;
  }

  /** The field's name. */
  String name() {
    return text.substring(nameStart, nameEnd);
  }

  /** Whether the field's name is {@code candidate}, without making a string of it. */
  boolean nameIs(String candidate) {
    int nameLength = nameEnd - nameStart;
    return candidate.length() == nameLength
        && text.regionMatches(nameStart, candidate, 0, nameLength);
  }

  /** The field's value as Jackson's {@code getText} gives it: a string unquoted, a number as is. */
  String text() {
    if (value == null && token != null && token.isNumeric()) {
      value = text.substring(valueStart, valueEnd);
    }
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
        if (readAsLong) { // as JsonNumbers.node reads it, without its text
          return integer == (int) integer
              ? NODES.numberNode((int) integer)
              : NODES.numberNode(integer);
        }
        return JsonNumbers.node(text());
      case VALUE_NUMBER_FLOAT:
        return JsonNumbers.node(text());
      case VALUE_TRUE:
        return NODES.booleanNode(true);
      case VALUE_FALSE:
        return NODES.booleanNode(false);
      default:
        return NODES.nullNode();
    }
  }

  private boolean value() {
    if (pos >= length) {
      return false;
    }
    char c = text.charAt(pos);
    if (c == '"') {
      int start = pos + 1;
      int end = stringEnd();
      value = end < 0 ? null : text.substring(start, end);
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
    if (pos >= length || text.charAt(pos) != '"') {
      return -1;
    }
    for (int i = pos + 1; i < length; i++) {
      char c = text.charAt(i);
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
    boolean negative = text.charAt(pos) == '-';
    long read = 0;
    boolean integral = true;
    for (int i = negative ? pos + 1 : pos; i < end && integral; i++) {
      char c = text.charAt(i);
      integral = c >= '0' && c <= '9';
      read = read * 10 + (c - '0'); // meaningless past MAX_LONG_CHARS, and then not used
    }
    value = null;
    valueStart = pos;
    valueEnd = end;
    readAsLong = integral && end - pos <= MAX_LONG_CHARS;
    integer = negative ? -read : read;
    token = integral ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
    pos = end;
    return true;
  }

  private boolean literal(String word, JsonToken literal) {
    if (!text.startsWith(word, pos)) {
      return false;
    }
    int end = pos + word.length();
    if (end < length && Character.isLetterOrDigit(text.charAt(end))) {
      return false; // trueX: Jackson names the token
    }
    pos = end;
    value = word;
    token = literal;
    return true;
  }

  private void skipSpace() {
    while (pos < length) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }
}

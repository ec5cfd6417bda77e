package io.tablecast.protocol.row;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnKind;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.Map;

/**
 * How one column kind's non-null values are written in the row form, read back as the JSON form of
 * {@code docs/TYPES.md}, and written as JSON text. One constant per {@link ColumnKind}.
 *
 * <p>Kinds whose JSON form is a text the database printed (DECIMAL, FLOAT's NaN, BINARY and the
 * temporal kinds) start with a varint header: low bit 1, a text of {@code header >>> 1} UTF-8 bytes
 * follows (a value kept as printed); low bit 0, the compact form follows, with {@code header >>> 1}
 * as its parameter (a decimal's zig-zag scale, a time's fraction digits, a float's width, a binary
 * value's length). A value takes the compact form only when it prints back to the very same text,
 * so the row form loses nothing.
 */
enum ValueForm {
  /** Zig-zag varint of any size. */
  INTEGER {
    @Override
    void encode(JsonNode v, RowSink out) {
      if (!v.isIntegralNumber()) {
        throw unexpected(v);
      }
      if (v.canConvertToLong()) {
        Varints.writeSigned(out, v.longValue());
      } else {
        Varints.writeSigned(out, v.bigIntegerValue());
      }
    }

    @Override
    void skip(RowSource in) {
      Varints.skip(in);
    }

    @Override
    JsonNode toNode(RowSource in) {
      Number n = Varints.readSignedAnySize(in);
      return n instanceof Long l
          ? NODES.numberNode(l.longValue())
          : NODES.numberNode((BigInteger) n);
    }

    @Override
    Object toJava(RowSource in) {
      if (!Varints.fitsLong(in)) {
        return Varints.readSignedAnySize(in); // a BigInteger
      }
      long v = Varints.readSigned(in);
      if (v == (int) v) {
        return Integer.valueOf((int) v);
      }
      return Long.valueOf(v);
    }

    @Override
    void write(RowSource in, JsonGenerator g) throws IOException {
      Number n = Varints.readSignedAnySize(in);
      if (n instanceof Long l) {
        g.writeNumber(l.longValue());
      } else {
        g.writeNumber((BigInteger) n);
      }
    }
  },

  /**
   * Unscaled value (zig-zag varint) with the scale in the header: {@code "12.3400"} is 123400,
   * scale 4.
   */
  DECIMAL {
    @Override
    void encode(JsonNode v, RowSink out) {
      String text = textOf(v);
      if (DecimalText.isCompactPlain(text)) { // nearly every value: no BigDecimal needed
        writeParameter(out, (long) DecimalText.scale(text) << 1);
        Varints.writeSigned(out, DecimalText.unscaled(text));
        return;
      }
      BigDecimal d = decimal(text);
      if (d == null) {
        writeText(out, text);
        return;
      }
      writeParameter(out, ((long) d.scale() << 1) ^ (d.scale() >> 31));
      Varints.writeSigned(out, d.unscaledValue());
    }

    @Override
    String compactText(long parameter, RowSource in) {
      long scale = decimalScale(parameter);
      if (scale < 0 || scale > MAX_DECIMAL_SCALE) {
        throw in.malformed("decimal scale " + scale);
      }
      if (Varints.fitsLong(in)) {
        return DecimalText.plain(Varints.readSigned(in), (int) scale);
      }
      BigInteger unscaled = (BigInteger) Varints.readSignedAnySize(in);
      return new BigDecimal(unscaled, (int) scale).toPlainString();
    }

    @Override
    void skipCompact(long parameter, RowSource in) {
      Varints.skip(in);
    }
  },

  /**
   * IEEE 754 big-endian: 8 bytes (parameter 0) or, for a single-precision value, 4 (parameter 1).
   */
  FLOAT {
    @Override
    void encode(JsonNode v, RowSink out) {
      if (v.isTextual()) { // NaN, Infinity, -Infinity
        writeText(out, v.textValue());
      } else if (v.isFloat()) {
        writeParameter(out, 1);
        out.writeFixed(Float.floatToRawIntBits(v.floatValue()) & 0xffffffffL, 4);
      } else if (v.isDouble()) {
        writeParameter(out, 0);
        out.writeFixed(Double.doubleToRawLongBits(v.doubleValue()), 8);
      } else {
        throw unexpected(v);
      }
    }

    @Override
    JsonNode compactNode(long parameter, RowSource in) {
      return parameter == 1
          ? NODES.numberNode(Float.intBitsToFloat((int) in.readFixed(4)))
          : NODES.numberNode(Double.longBitsToDouble(in.readFixed(8)));
    }

    @Override
    Object compactJava(long parameter, RowSource in) {
      return parameter == 1 // a float as Jackson's FloatNode.doubleValue() widens it
          ? Double.valueOf(Float.intBitsToFloat((int) in.readFixed(4)))
          : Double.valueOf(Double.longBitsToDouble(in.readFixed(8)));
    }

    @Override
    void writeCompact(long parameter, RowSource in, JsonGenerator g) throws IOException {
      if (parameter == 1) {
        g.writeNumber(Float.intBitsToFloat((int) in.readFixed(4)));
      } else {
        g.writeNumber(Double.longBitsToDouble(in.readFixed(8)));
      }
    }

    @Override
    void skipCompact(long parameter, RowSource in) {
      in.skip(parameter == 1 ? 4 : 8);
    }
  },

  /** One byte, 0 or 1. */
  BOOLEAN {
    @Override
    void encode(JsonNode v, RowSink out) {
      if (!v.isBoolean()) {
        throw unexpected(v);
      }
      out.write(v.booleanValue() ? 1 : 0);
    }

    @Override
    void skip(RowSource in) {
      in.skip(1);
    }

    @Override
    JsonNode toNode(RowSource in) {
      return NODES.booleanNode(readBoolean(in));
    }

    @Override
    Object toJava(RowSource in) {
      return Boolean.valueOf(readBoolean(in));
    }

    @Override
    void write(RowSource in, JsonGenerator g) throws IOException {
      g.writeBoolean(readBoolean(in));
    }

    private boolean readBoolean(RowSource in) {
      int b = in.read();
      if (b > 1) {
        throw in.malformed("boolean byte " + b);
      }
      return b == 1;
    }
  },

  /** Length (varint) and UTF-8 bytes. */
  STRING {
    @Override
    void encode(JsonNode v, RowSink out) {
      writeUtf8(out, textOf(v));
    }

    @Override
    void skip(RowSource in) {
      in.skip(Varints.readLength(in));
    }

    @Override
    JsonNode toNode(RowSource in) {
      return NODES.textNode(readUtf8(in));
    }

    @Override
    Object toJava(RowSource in) {
      return readUtf8(in);
    }

    @Override
    void write(RowSource in, JsonGenerator g) throws IOException {
      g.writeString(readUtf8(in));
    }
  },

  /** The bytes themselves (the JSON form's base64 decoded), their length in the header. */
  BINARY {
    @Override
    void encode(JsonNode v, RowSink out) {
      String text = textOf(v);
      byte[] bytes;
      try {
        bytes = Base64.getDecoder().decode(text);
      } catch (IllegalArgumentException notBase64) {
        bytes = null;
      }
      if (bytes == null || !Base64.getEncoder().encodeToString(bytes).equals(text)) {
        writeText(out, text);
        return;
      }
      writeParameter(out, bytes.length);
      out.write(bytes);
    }

    @Override
    String compactText(long parameter, RowSource in) {
      int start = in.skip(checkedLength(parameter, in));
      return Base64.getEncoder()
          .encodeToString(Arrays.copyOfRange(in.bytes(), start, in.position()));
    }

    @Override
    void skipCompact(long parameter, RowSource in) {
      in.skip(checkedLength(parameter, in));
    }
  },

  /** Epoch day (zig-zag varint). */
  DATE {
    @Override
    void encode(JsonNode v, RowSink out) {
      String text = textOf(v);
      Long day = TemporalText.parseDate(text);
      if (day == null) {
        writeText(out, text);
        return;
      }
      writeParameter(out, 0);
      Varints.writeSigned(out, day);
    }

    @Override
    String compactText(long parameter, RowSource in) {
      return TemporalText.printDate(Varints.readSigned(in));
    }
  },

  /** Signed count of 10^-digits seconds (zig-zag varint), the fraction digits in the header. */
  TIME {
    @Override
    void encode(JsonNode v, RowSink out) {
      String text = textOf(v);
      TemporalText.Parsed t = TemporalText.parseTime(text);
      if (t == null || !TemporalText.printTime(t.seconds(), t.digits()).equals(text)) {
        writeText(out, text);
        return;
      }
      writeParameter(out, t.digits());
      Varints.writeSigned(out, t.seconds());
    }

    @Override
    String compactText(long parameter, RowSource in) {
      return TemporalText.printTime(Varints.readSigned(in), checkedDigits(parameter, in));
    }
  },

  /**
   * Seconds since the epoch as if UTC (zig-zag varint), then the fraction (varint), its digits in
   * the header.
   */
  TIMESTAMP {
    @Override
    void encode(JsonNode v, RowSink out) {
      String text = textOf(v);
      TemporalText.Parsed t = TemporalText.parseTimestamp(text);
      if (t == null
          || !TemporalText.printTimestamp(t.seconds(), t.fraction(), t.digits()).equals(text)) {
        writeText(out, text);
        return;
      }
      writeParameter(out, t.digits());
      Varints.writeSigned(out, t.seconds());
      if (t.digits() > 0) {
        Varints.writeUnsigned(out, t.fraction());
      }
    }

    @Override
    String compactText(long parameter, RowSource in) {
      int digits = checkedDigits(parameter, in);
      long seconds = Varints.readSigned(in);
      long fraction = digits > 0 ? Varints.readUnsigned(in) : 0;
      if (fraction < 0 || fraction >= TemporalText.powerOfTen(digits)) {
        throw in.malformed("fraction " + fraction + " of " + digits + " digits");
      }
      return TemporalText.printTimestamp(seconds, fraction, digits);
    }

    @Override
    void skipCompact(long parameter, RowSource in) {
      Varints.skip(in);
      if (parameter > 0) {
        Varints.skip(in);
      }
    }
  },

  /**
   * Epoch seconds (zig-zag varint) and nanoseconds (varint): the instant's {@code
   * Instant.toString()}.
   */
  TIMESTAMP_TZ {
    @Override
    void encode(JsonNode v, RowSink out) {
      String text = textOf(v);
      Instant instant = InstantText.parsePrinted(text); // nearly every value
      if (instant == null) { // years BC or past 9999, infinity, any text not in this form
        try {
          instant = Instant.parse(text);
        } catch (DateTimeException notAnInstant) {
          instant = null;
        }
        if (instant == null || !instant.toString().equals(text)) {
          writeText(out, text);
          return;
        }
      }
      writeParameter(out, 0);
      Varints.writeSigned(out, instant.getEpochSecond());
      Varints.writeUnsigned(out, instant.getNano());
    }

    @Override
    String compactText(long parameter, RowSource in) {
      long seconds = Varints.readSigned(in);
      long nanos = Varints.readUnsigned(in);
      if (nanos > 999_999_999L) {
        throw in.malformed("nanoseconds " + nanos);
      }
      return InstantText.print(seconds, (int) nanos);
    }

    @Override
    void skipCompact(long parameter, RowSource in) {
      Varints.skip(in);
      Varints.skip(in);
    }
  },

  /** The value's compact JSON text (UTF-8), as Jackson writes the parsed value. */
  JSON {
    @Override
    void encode(JsonNode v, RowSink out) {
      try {
        byte[] text = JSON_TEXT.writeValueAsBytes(v);
        Varints.writeUnsigned(out, text.length);
        out.write(text);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot write a JSON value: " + e.getMessage(), e);
      }
    }

    @Override
    void skip(RowSource in) {
      in.skip(Varints.readLength(in));
    }

    @Override
    JsonNode toNode(RowSource in) {
      int length = Varints.readLength(in);
      int start = in.skip(length);
      try {
        return RowForm.JSON.readTree(in.bytes(), start, length);
      } catch (IOException e) {
        throw in.malformed("JSON value that does not parse: " + e.getMessage());
      }
    }

    @Override
    Object toJava(RowSource in) {
      return JavaValues.toJava(toNode(in));
    }

    @Override
    void write(RowSource in, JsonGenerator g) throws IOException {
      int length = Varints.readLength(in);
      int start = in.skip(length);
      g.writeRawValue(new String(in.bytes(), start, length, StandardCharsets.UTF_8));
    }
  };

  /**
   * Writes a JSON column's value as UTF-8 with characters outside the BMP as their four bytes (not
   * escaped surrogate pairs), so that the text written raw from the row form is the text Jackson
   * writes for the parsed value.
   */
  private static final com.fasterxml.jackson.databind.ObjectWriter JSON_TEXT =
      RowForm.JSON
          .writer()
          .with(
              com.fasterxml.jackson.core.json.JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8);

  static final JsonNodeFactory NODES =
      JsonNodeFactory.instance; // numberNode(BigDecimal) keeps the scale

  private static final Map<ColumnKind, ValueForm> BY_KIND = new EnumMap<>(ColumnKind.class);

  static {
    for (ColumnKind kind : ColumnKind.values()) {
      BY_KIND.put(kind, valueOf(kind.name())); // one form per kind, or the class fails to load
    }
  }

  static ValueForm of(ColumnKind kind) {
    return BY_KIND.get(kind);
  }

  /** Writes a non-null value given in its JSON form. */
  abstract void encode(JsonNode value, RowSink out);

  /**
   * Moves past one value of {@code form}, as {@code form.skip(in)} does, with one call site per
   * kind. A row's walk to the column it reads skips columns of several kinds from one place, where
   * {@code form.skip} would be a megamorphic call the JIT cannot inline; each site here sees one
   * kind only.
   */
  static void skipOne(ValueForm form, RowSource in) {
    switch (form) {
      case INTEGER -> INTEGER.skip(in);
      case DECIMAL -> DECIMAL.skip(in);
      case FLOAT -> FLOAT.skip(in);
      case BOOLEAN -> BOOLEAN.skip(in);
      case STRING -> STRING.skip(in);
      case BINARY -> BINARY.skip(in);
      case DATE -> DATE.skip(in);
      case TIME -> TIME.skip(in);
      case TIMESTAMP -> TIMESTAMP.skip(in);
      case TIMESTAMP_TZ -> TIMESTAMP_TZ.skip(in);
      case JSON -> JSON.skip(in);
      default -> form.skip(in); // a kind added later: correct, only not inlined
    }
  }

  /** Moves past one value. */
  void skip(RowSource in) {
    long header = Varints.readUnsigned(in);
    if ((header & 1) == 1) {
      in.skip(checkedLength(header >>> 1, in));
    } else {
      skipCompact(header >>> 1, in);
    }
  }

  /** Reads one value in its JSON form. */
  JsonNode toNode(RowSource in) {
    long header = Varints.readUnsigned(in);
    if ((header & 1) == 1) {
      return NODES.textNode(text(header, in));
    }
    return compactNode(header >>> 1, in);
  }

  /**
   * Reads one value as the Java value {@link JavaValues#toJava} makes of {@link #toNode}'s node,
   * without the node: a String for the kinds whose JSON form is text.
   */
  Object toJava(RowSource in) {
    long header = Varints.readUnsigned(in);
    if ((header & 1) == 1) {
      return text(header, in);
    }
    return compactJava(header >>> 1, in);
  }

  /** Writes one value as JSON, as Jackson writes the node {@link #toNode} returns. */
  void write(RowSource in, JsonGenerator g) throws IOException {
    long header = Varints.readUnsigned(in);
    if ((header & 1) == 1) {
      g.writeString(text(header, in));
    } else {
      writeCompact(header >>> 1, in, g);
    }
  }

  // ---- the compact forms of the kinds with a header (each overrides what differs)

  JsonNode compactNode(long parameter, RowSource in) {
    return NODES.textNode(checkedText(parameter, in));
  }

  Object compactJava(long parameter, RowSource in) {
    return checkedText(parameter, in);
  }

  void writeCompact(long parameter, RowSource in, JsonGenerator g) throws IOException {
    g.writeString(checkedText(parameter, in));
  }

  /** {@link #compactText}, with a number out of its type's range refused as malformed. */
  private String checkedText(long parameter, RowSource in) {
    try {
      return compactText(parameter, in);
    } catch (DateTimeException | ArithmeticException e) {
      throw in.malformed(name() + " value out of range: " + e.getMessage());
    }
  }

  String compactText(long parameter, RowSource in) {
    throw new UnsupportedOperationException(name() + " has no compact text form");
  }

  void skipCompact(long parameter, RowSource in) {
    Varints.skip(in);
  }

  // ---- shared helpers

  static void writeParameter(RowSink out, long parameter) {
    Varints.writeUnsigned(out, parameter << 1);
  }

  static void writeText(RowSink out, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    Varints.writeUnsigned(out, ((long) bytes.length << 1) | 1);
    out.write(bytes);
  }

  static void writeUtf8(RowSink out, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    Varints.writeUnsigned(out, bytes.length);
    out.write(bytes);
  }

  static String readUtf8(RowSource in) {
    int length = Varints.readLength(in);
    int start = in.skip(length);
    return new String(in.bytes(), start, length, StandardCharsets.UTF_8);
  }

  private static String text(long header, RowSource in) {
    int length = checkedLength(header >>> 1, in);
    int start = in.skip(length);
    return new String(in.bytes(), start, length, StandardCharsets.UTF_8);
  }

  static int checkedLength(long length, RowSource in) {
    if (length > Integer.MAX_VALUE) {
      throw in.malformed("length " + length + " out of range");
    }
    return (int) length;
  }

  static int checkedDigits(long digits, RowSource in) {
    if (digits > 9) {
      throw in.malformed("fraction of " + digits + " digits");
    }
    return (int) digits;
  }

  static String textOf(JsonNode v) {
    if (!v.isTextual()) {
      throw unexpected(v);
    }
    return v.textValue();
  }

  /**
   * Largest scale of a decimal kept compact: PostgreSQL's numeric shows at most 16,383 digits after
   * the point (MySQL 30). A plain text never has a negative scale. Bounds what a corrupt row can
   * make a reader print.
   */
  static final int MAX_DECIMAL_SCALE = 16_383;

  /** The scale of a compact DECIMAL, zig-zag coded in its header's parameter. */
  static long decimalScale(long parameter) {
    return (parameter >>> 1) ^ -(parameter & 1);
  }

  /** A plain decimal text as a BigDecimal that prints it back exactly; null for any other text. */
  static BigDecimal decimal(String text) {
    try {
      BigDecimal d = new BigDecimal(text);
      return d.scale() >= 0 && d.scale() <= MAX_DECIMAL_SCALE && d.toPlainString().equals(text)
          ? d
          : null;
    } catch (NumberFormatException notADecimal) { // NaN, Infinity
      return null;
    }
  }

  static IllegalArgumentException unexpected(JsonNode v) {
    return new IllegalArgumentException(
        "a " + v.getNodeType() + " value where the column's JSON form was expected");
  }
}

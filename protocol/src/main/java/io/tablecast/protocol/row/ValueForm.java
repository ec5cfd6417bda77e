package io.tablecast.protocol.row;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ColumnKind;
import java.io.IOException;
import java.time.DateTimeException;
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
      NumberForms.encodeInteger(v, out);
    }

    @Override
    void skip(RowSource in) {
      Varints.skip(in);
    }

    @Override
    JsonNode toNode(RowSource in) {
      return NumberForms.integerNode(in);
    }

    @Override
    Object toJava(RowSource in) {
      return NumberForms.integerJava(in);
    }

    @Override
    void write(RowSource in, JsonGenerator g) throws IOException {
      NumberForms.writeInteger(in, g);
    }
  },

  /**
   * Unscaled value (zig-zag varint) with the scale in the header: {@code "12.3400"} is 123400,
   * scale 4.
   */
  DECIMAL {
    @Override
    void encode(JsonNode v, RowSink out) {
      NumberForms.encodeDecimal(v, out);
    }

    @Override
    String compactText(long parameter, RowSource in) {
      return NumberForms.decimalText(parameter, in);
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
      NumberForms.encodeFloat(v, out);
    }

    @Override
    JsonNode compactNode(long parameter, RowSource in) {
      return NumberForms.floatNode(parameter, in);
    }

    @Override
    Object compactJava(long parameter, RowSource in) {
      return NumberForms.floatJava(parameter, in);
    }

    @Override
    void writeCompact(long parameter, RowSource in, JsonGenerator g) throws IOException {
      NumberForms.writeFloat(parameter, in, g);
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
        throw ValueBytes.unexpected(v);
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
      TextForms.writeUtf8(out, ValueBytes.textOf(v));
    }

    @Override
    void skip(RowSource in) {
      in.skip(Varints.readLength(in));
    }

    @Override
    JsonNode toNode(RowSource in) {
      return NODES.textNode(TextForms.readUtf8(in));
    }

    @Override
    Object toJava(RowSource in) {
      return TextForms.readUtf8(in);
    }

    @Override
    void write(RowSource in, JsonGenerator g) throws IOException {
      g.writeString(TextForms.readUtf8(in));
    }
  },

  /** The bytes themselves (the JSON form's base64 decoded), their length in the header. */
  BINARY {
    @Override
    void encode(JsonNode v, RowSink out) {
      TextForms.encodeBinary(v, out);
    }

    @Override
    String compactText(long parameter, RowSource in) {
      return TextForms.binaryText(parameter, in);
    }

    @Override
    void skipCompact(long parameter, RowSource in) {
      in.skip(ValueBytes.checkedLength(parameter, in));
    }
  },

  /** Epoch day (zig-zag varint). */
  DATE {
    @Override
    void encode(JsonNode v, RowSink out) {
      TemporalForms.encodeDate(v, out);
    }

    @Override
    String compactText(long parameter, RowSource in) {
      return TemporalForms.dateText(in);
    }
  },

  /** Signed count of 10^-digits seconds (zig-zag varint), the fraction digits in the header. */
  TIME {
    @Override
    void encode(JsonNode v, RowSink out) {
      TemporalForms.encodeTime(v, out);
    }

    @Override
    String compactText(long parameter, RowSource in) {
      return TemporalForms.timeText(parameter, in);
    }
  },

  /**
   * Seconds since the epoch as if UTC (zig-zag varint), then the fraction (varint), its digits in
   * the header.
   */
  TIMESTAMP {
    @Override
    void encode(JsonNode v, RowSink out) {
      TemporalForms.encodeTimestamp(v, out);
    }

    @Override
    String compactText(long parameter, RowSource in) {
      return TemporalForms.timestampText(parameter, in);
    }

    @Override
    void skipCompact(long parameter, RowSource in) {
      TemporalForms.skipTimestamp(parameter, in);
    }
  },

  /**
   * Epoch seconds (zig-zag varint) and nanoseconds (varint): the instant's {@code
   * Instant.toString()}.
   */
  TIMESTAMP_TZ {
    @Override
    void encode(JsonNode v, RowSink out) {
      TemporalForms.encodeInstant(v, out);
    }

    @Override
    String compactText(long parameter, RowSource in) {
      return TemporalForms.instantText(in);
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
      TextForms.encodeJson(v, out);
    }

    @Override
    void skip(RowSource in) {
      in.skip(Varints.readLength(in));
    }

    @Override
    JsonNode toNode(RowSource in) {
      return TextForms.jsonNode(in);
    }

    @Override
    Object toJava(RowSource in) {
      return JavaValues.toJava(toNode(in));
    }

    @Override
    void write(RowSource in, JsonGenerator g) throws IOException {
      TextForms.writeJson(in, g);
    }
  };

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
      in.skip(ValueBytes.checkedLength(header >>> 1, in));
    } else {
      skipCompact(header >>> 1, in);
    }
  }

  /** Reads one value in its JSON form. */
  JsonNode toNode(RowSource in) {
    long header = Varints.readUnsigned(in);
    if ((header & 1) == 1) {
      return NODES.textNode(ValueBytes.text(header, in));
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
      return ValueBytes.text(header, in);
    }
    return compactJava(header >>> 1, in);
  }

  /** Writes one value as JSON, as Jackson writes the node {@link #toNode} returns. */
  void write(RowSource in, JsonGenerator g) throws IOException {
    long header = Varints.readUnsigned(in);
    if ((header & 1) == 1) {
      g.writeString(ValueBytes.text(header, in));
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
}

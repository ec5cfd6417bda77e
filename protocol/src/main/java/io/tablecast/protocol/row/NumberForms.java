package io.tablecast.protocol.row;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The row forms of the number kinds, INTEGER, DECIMAL and FLOAT (each described at its {@link
 * ValueForm} constant): how a value is written and read back. Kept out of the enum so that it reads
 * as the list of kinds; its constants call these static methods, which adds no allocation and no
 * virtual call on a value's path.
 */
final class NumberForms {
  private NumberForms() {}

  /**
   * Largest scale of a decimal kept compact: PostgreSQL's numeric shows at most 16,383 digits after
   * the point (MySQL 30). A plain text never has a negative scale. Bounds what a corrupt row can
   * make a reader print.
   */
  static final int MAX_DECIMAL_SCALE = 16_383;

  // ---- INTEGER

  static void encodeInteger(JsonNode v, RowSink out) {
    if (!v.isIntegralNumber()) {
      throw ValueBytes.unexpected(v);
    }
    if (v.canConvertToLong()) {
      Varints.writeSigned(out, v.longValue());
    } else {
      Varints.writeSigned(out, v.bigIntegerValue());
    }
  }

  static JsonNode integerNode(RowSource in) {
    Number n = Varints.readSignedAnySize(in);
    return n instanceof Long l
        ? ValueForm.NODES.numberNode(l.longValue())
        : ValueForm.NODES.numberNode((BigInteger) n);
  }

  static Object integerJava(RowSource in) {
    if (!Varints.fitsLong(in)) {
      return Varints.readSignedAnySize(in); // a BigInteger
    }
    long v = Varints.readSigned(in);
    if (v == (int) v) {
      return Integer.valueOf((int) v);
    }
    return Long.valueOf(v);
  }

  static void writeInteger(RowSource in, JsonGenerator g) throws IOException {
    Number n = Varints.readSignedAnySize(in);
    if (n instanceof Long l) {
      g.writeNumber(l.longValue());
    } else {
      g.writeNumber((BigInteger) n);
    }
  }

  // ---- DECIMAL

  static void encodeDecimal(JsonNode v, RowSink out) {
    String text = ValueBytes.textOf(v);
    if (DecimalText.isCompactPlain(text)) { // nearly every value: no BigDecimal needed
      writeCompactDecimal(text, out);
      return;
    }
    BigDecimal d = decimal(text);
    if (d == null) {
      ValueBytes.writeText(out, text);
      return;
    }
    ValueBytes.writeParameter(out, ((long) d.scale() << 1) ^ (d.scale() >> 31));
    Varints.writeSigned(out, d.unscaledValue());
  }

  /** A decimal text that {@link DecimalText#isCompactPlain}, in the compact form. */
  static void writeCompactDecimal(String text, RowSink out) {
    ValueBytes.writeParameter(out, (long) DecimalText.scale(text) << 1);
    Varints.writeSigned(out, DecimalText.unscaled(text));
  }

  static String decimalText(long parameter, RowSource in) {
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

  // ---- FLOAT

  static void encodeFloat(JsonNode v, RowSink out) {
    if (v.isTextual()) { // NaN, Infinity, -Infinity
      ValueBytes.writeText(out, v.textValue());
    } else if (v.isFloat()) {
      ValueBytes.writeParameter(out, 1);
      out.writeFixed(Float.floatToRawIntBits(v.floatValue()) & 0xffffffffL, 4);
    } else if (v.isDouble()) {
      ValueBytes.writeParameter(out, 0);
      out.writeFixed(Double.doubleToRawLongBits(v.doubleValue()), 8);
    } else {
      throw ValueBytes.unexpected(v);
    }
  }

  static JsonNode floatNode(long parameter, RowSource in) {
    return parameter == 1
        ? ValueForm.NODES.numberNode(Float.intBitsToFloat((int) in.readFixed(4)))
        : ValueForm.NODES.numberNode(Double.longBitsToDouble(in.readFixed(8)));
  }

  static Object floatJava(long parameter, RowSource in) {
    return parameter == 1 // a float as Jackson's FloatNode.doubleValue() widens it
        ? Double.valueOf(Float.intBitsToFloat((int) in.readFixed(4)))
        : Double.valueOf(Double.longBitsToDouble(in.readFixed(8)));
  }

  static void writeFloat(long parameter, RowSource in, JsonGenerator g) throws IOException {
    if (parameter == 1) {
      g.writeNumber(Float.intBitsToFloat((int) in.readFixed(4)));
    } else {
      g.writeNumber(Double.longBitsToDouble(in.readFixed(8)));
    }
  }
}

package io.tablecast.protocol.row;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * The row forms of the kinds whose values are a run of bytes after their length: STRING's UTF-8,
 * BINARY's bytes (its JSON form's base64 decoded) and JSON's compact text (each described at its
 * {@link ValueForm} constant). Kept out of the enum so that it reads as the list of kinds; its
 * constants call these static methods, which adds no allocation and no virtual call on a value's
 * path.
 */
final class TextForms {
  private TextForms() {}

  /**
   * Writes a JSON column's value as UTF-8 with characters outside the BMP as their four bytes (not
   * escaped surrogate pairs), so that the text written raw from the row form is the text Jackson
   * writes for the parsed value.
   */
  private static final ObjectWriter JSON_TEXT =
      RowForm.JSON.writer().with(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8);

  // ---- STRING

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

  // ---- BINARY

  static void encodeBinary(JsonNode v, RowSink out) {
    String text = ValueBytes.textOf(v);
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException notBase64) {
      bytes = null;
    }
    if (bytes == null || !Base64.getEncoder().encodeToString(bytes).equals(text)) {
      ValueBytes.writeText(out, text);
      return;
    }
    ValueBytes.writeParameter(out, bytes.length);
    out.write(bytes);
  }

  static String binaryText(long parameter, RowSource in) {
    int start = in.skip(ValueBytes.checkedLength(parameter, in));
    return Base64.getEncoder().encodeToString(Arrays.copyOfRange(in.bytes(), start, in.position()));
  }

  // ---- JSON

  static void encodeJson(JsonNode v, RowSink out) {
    try {
      byte[] text = JSON_TEXT.writeValueAsBytes(v);
      Varints.writeUnsigned(out, text.length);
      out.write(text);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot write a JSON value: " + e.getMessage(), e);
    }
  }

  static JsonNode jsonNode(RowSource in) {
    int length = Varints.readLength(in);
    int start = in.skip(length);
    try {
      return RowForm.JSON.readTree(in.bytes(), start, length);
    } catch (IOException e) {
      throw in.malformed("JSON value that does not parse: " + e.getMessage());
    }
  }

  static void writeJson(RowSource in, JsonGenerator g) throws IOException {
    int length = Varints.readLength(in);
    int start = in.skip(length);
    g.writeRawValue(new String(in.bytes(), start, length, StandardCharsets.UTF_8));
  }
}

package io.tablecast.protocol.row;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.DateTimeException;
import java.time.Instant;

/**
 * The row forms of the temporal kinds, DATE, TIME, TIMESTAMP and TIMESTAMP_TZ (each described at
 * its {@link ValueForm} constant): a value whose text a number prints back exactly is written as
 * that number, any other as its text. {@link TemporalText} and {@link InstantText} do the parsing
 * and printing; this class only lays the numbers out. Kept out of the enum so that it reads as the
 * list of kinds; its constants call these static methods, which adds no allocation and no virtual
 * call on a value's path.
 */
final class TemporalForms {
  private TemporalForms() {}

  // ---- DATE

  static void encodeDate(JsonNode v, RowSink out) {
    String text = ValueBytes.textOf(v);
    Long day = TemporalText.parseDate(text);
    if (day == null) {
      ValueBytes.writeText(out, text);
      return;
    }
    ValueBytes.writeParameter(out, 0);
    Varints.writeSigned(out, day);
  }

  static String dateText(RowSource in) {
    return TemporalText.printDate(Varints.readSigned(in));
  }

  // ---- TIME

  static void encodeTime(JsonNode v, RowSink out) {
    String text = ValueBytes.textOf(v);
    TemporalText.Parsed t = TemporalText.parseTime(text);
    if (t == null || !TemporalText.printTime(t.seconds(), t.digits()).equals(text)) {
      ValueBytes.writeText(out, text);
      return;
    }
    ValueBytes.writeParameter(out, t.digits());
    Varints.writeSigned(out, t.seconds());
  }

  static String timeText(long parameter, RowSource in) {
    return TemporalText.printTime(Varints.readSigned(in), ValueBytes.checkedDigits(parameter, in));
  }

  // ---- TIMESTAMP

  static void encodeTimestamp(JsonNode v, RowSink out) {
    String text = ValueBytes.textOf(v);
    TemporalText.Parsed t = TemporalText.parseTimestamp(text);
    if (t == null
        || !TemporalText.printTimestamp(t.seconds(), t.fraction(), t.digits()).equals(text)) {
      ValueBytes.writeText(out, text);
      return;
    }
    ValueBytes.writeParameter(out, t.digits());
    Varints.writeSigned(out, t.seconds());
    if (t.digits() > 0) {
      Varints.writeUnsigned(out, t.fraction());
    }
  }

  static String timestampText(long parameter, RowSource in) {
    int digits = ValueBytes.checkedDigits(parameter, in);
    long seconds = Varints.readSigned(in);
    long fraction = digits > 0 ? Varints.readUnsigned(in) : 0;
    if (fraction < 0 || fraction >= TemporalText.powerOfTen(digits)) {
      throw in.malformed("fraction " + fraction + " of " + digits + " digits");
    }
    return TemporalText.printTimestamp(seconds, fraction, digits);
  }

  static void skipTimestamp(long parameter, RowSource in) {
    Varints.skip(in);
    if (parameter > 0) {
      Varints.skip(in);
    }
  }

  // ---- TIMESTAMP_TZ

  static void encodeInstant(JsonNode v, RowSink out) {
    String text = ValueBytes.textOf(v);
    Instant instant = InstantText.parsePrinted(text); // nearly every value
    if (instant == null) { // years BC or past 9999, infinity, any text not in this form
      try {
        instant = Instant.parse(text);
      } catch (DateTimeException notAnInstant) {
        instant = null;
      }
      if (instant == null || !instant.toString().equals(text)) {
        ValueBytes.writeText(out, text);
        return;
      }
    }
    ValueBytes.writeParameter(out, 0);
    Varints.writeSigned(out, instant.getEpochSecond());
    Varints.writeUnsigned(out, instant.getNano());
  }

  static String instantText(RowSource in) {
    long seconds = Varints.readSigned(in);
    long nanos = Varints.readUnsigned(in);
    if (nanos > 999_999_999L) {
      throw in.malformed("nanoseconds " + nanos);
    }
    return InstantText.print(seconds, (int) nanos);
  }
}

package io.tablecast.server.mysql;

import java.sql.SQLFeatureNotSupportedException;
import java.util.Calendar;
import org.mariadb.jdbc.client.ColumnDecoder;
import org.mariadb.jdbc.client.Context;
import org.mariadb.jdbc.client.DataType;
import org.mariadb.jdbc.client.ReadableByteBuf;
import org.mariadb.jdbc.client.socket.Writer;
import org.mariadb.jdbc.client.util.MutableInt;
import org.mariadb.jdbc.plugin.Codec;

/**
 * A codec of MariaDB Connector/J (a plugin the driver finds with {@code ServiceLoader}, listed in
 * {@code META-INF/services/org.mariadb.jdbc.plugin.Codec}) that decodes nothing: asked for a {@link
 * Packet} with {@code getObject(column, RowPacketCodec.Packet.class)}, it hands back the row as the
 * driver received it (a text-protocol row: each column's text after its length) and where the asked
 * column lies in it. {@link RowPackets} reads whole-table reads' rows so, without a {@code String}
 * per value. No other type is asked of it, and it writes no parameter.
 */
public final class RowPacketCodec implements Codec<RowPacketCodec.Packet> {

  /**
   * A row's bytes as the driver holds them, and the asked column's place in them: its text from
   * {@code fieldStart}, {@code fieldLength} bytes.
   */
  public static final class Packet {
    final byte[] bytes;
    final int fieldStart;
    final int fieldLength;

    Packet(byte[] bytes, int fieldStart, int fieldLength) {
      this.bytes = bytes;
      this.fieldStart = fieldStart;
      this.fieldLength = fieldLength;
    }
  }

  /** For {@code ServiceLoader}. */
  public RowPacketCodec() {}

  @Override
  public String className() {
    return Packet.class.getName();
  }

  @Override
  public boolean canDecode(ColumnDecoder column, Class<?> type) {
    return type == Packet.class;
  }

  @Override
  public boolean canEncode(Object value) {
    return false;
  }

  @Override
  public Packet decodeText(
      ReadableByteBuf buf, MutableInt length, ColumnDecoder column, Calendar cal, Context context) {
    int start = buf.pos();
    int n = length.get();
    buf.skip(n);
    return new Packet(buf.buf(), start, n);
  }

  /** Null: a binary-protocol row is not laid out as {@link RowPackets} reads rows. */
  @Override
  public Packet decodeBinary(
      ReadableByteBuf buf, MutableInt length, ColumnDecoder column, Calendar cal, Context context) {
    buf.skip(length.get());
    return null;
  }

  /** Never called: {@link #canEncode} is false for every value. */
  @Override
  public void encodeText(
      Writer encoder, Context context, Object value, Calendar cal, Long maxLength)
      throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException("RowPacketCodec writes no parameter");
  }

  /** Never called: {@link #canEncode} is false for every value. */
  @Override
  public void encodeBinary(
      Writer encoder, Context context, Object value, Calendar cal, Long maxLength)
      throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException("RowPacketCodec writes no parameter");
  }

  @Override
  public int getBinaryEncodeType() {
    return DataType.VARSTRING.get();
  }
}

package io.tablecast.client.internal;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A normalized primary key ({@link RowKeys}: {@code Long}, {@code BigInteger}, {@code String},
 * {@code Boolean}, or an unmodifiable list of them) as bytes and back, for mirror files whose rows
 * are stored as their row type's JSON beside their key. Internal.
 */
public final class KeyBytes {
  private static final int LONG = 1;
  private static final int TEXT = 2;
  private static final int BIG = 3;
  private static final int BOOLEAN = 4;
  private static final int LIST = 5;

  private KeyBytes() {}

  /**
   * Writes {@code key} to {@code out}.
   *
   * @throws IllegalArgumentException when it is not a normalized key
   */
  public static void write(Object key, ByteArrayOutputStream out) {
    if (key instanceof Long l) {
      out.write(LONG);
      long v = l;
      for (int shift = 56; shift >= 0; shift -= 8) {
        out.write((int) (v >>> shift));
      }
    } else if (key instanceof String s) {
      out.write(TEXT);
      bytes(s.getBytes(StandardCharsets.UTF_8), out);
    } else if (key instanceof BigInteger b) {
      out.write(BIG);
      bytes(b.toByteArray(), out);
    } else if (key instanceof Boolean b) {
      out.write(BOOLEAN);
      out.write(b ? 1 : 0);
    } else if (key instanceof List<?> parts) {
      if (parts.size() > 255) {
        throw new IllegalArgumentException("a key of " + parts.size() + " parts");
      }
      out.write(LIST);
      out.write(parts.size());
      for (Object part : parts) {
        write(part, out);
      }
    } else {
      throw new IllegalArgumentException("not a normalized key: " + key);
    }
  }

  private static void bytes(byte[] bytes, ByteArrayOutputStream out) {
    int n = bytes.length;
    out.write(n >>> 24);
    out.write(n >>> 16);
    out.write(n >>> 8);
    out.write(n);
    out.write(bytes, 0, n);
  }

  /**
   * Reads a key written by {@link #write} at the buffer's position, moving past it.
   *
   * @throws IllegalArgumentException when the bytes are not a key
   */
  public static Object read(ByteBuffer in) {
    int tag = in.get();
    switch (tag) {
      case LONG:
        return in.getLong();
      case TEXT:
        return new String(bytes(in), StandardCharsets.UTF_8);
      case BIG:
        return new BigInteger(bytes(in));
      case BOOLEAN:
        return in.get() != 0;
      case LIST:
        int n = in.get() & 0xFF;
        List<Object> parts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          parts.add(read(in));
        }
        return Collections.unmodifiableList(parts);
      default:
        throw new IllegalArgumentException("not a key: tag " + tag);
    }
  }

  private static byte[] bytes(ByteBuffer in) {
    int n = in.getInt();
    if (n < 0 || n > in.remaining()) {
      throw new IllegalArgumentException("not a key: a part of " + n + " bytes");
    }
    byte[] b = new byte[n];
    in.get(b);
    return b;
  }
}

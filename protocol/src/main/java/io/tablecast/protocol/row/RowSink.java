package io.tablecast.protocol.row;

import java.util.Arrays;

/**
 * A growable byte array that a row is written into; one per encoding, not shared between threads.
 */
final class RowSink {
  private byte[] bytes;
  private int size;

  RowSink(int initialCapacity) {
    bytes = new byte[Math.max(16, initialCapacity)];
  }

  void write(int b) {
    if (size == bytes.length) {
      grow(1);
    }
    bytes[size++] = (byte) b;
  }

  void write(byte[] src, int offset, int length) {
    if (size + length > bytes.length) {
      grow(length);
    }
    System.arraycopy(src, offset, bytes, size, length);
    size += length;
  }

  void write(byte[] src) {
    write(src, 0, src.length);
  }

  /** Writes {@code value} big-endian in {@code count} bytes. */
  void writeFixed(long value, int count) {
    for (int i = count - 1; i >= 0; i--) {
      write((int) (value >>> (8 * i)));
    }
  }

  /** Sets bit {@code bit} of the byte at {@code index} (written before). */
  void setBit(int index, int bit) {
    bytes[index] |= (byte) (1 << bit);
  }

  int size() {
    return size;
  }

  /** Sets the byte at {@code index} (written before) to {@code b}. */
  void set(int index, int b) {
    bytes[index] = (byte) b;
  }

  byte[] toByteArray() {
    return Arrays.copyOf(bytes, size);
  }

  private void grow(int atLeast) {
    long wanted = Math.max((long) bytes.length * 2, (long) size + atLeast);
    if (wanted > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a row larger than 2 GiB cannot be encoded");
    }
    bytes = Arrays.copyOf(bytes, (int) wanted);
  }
}

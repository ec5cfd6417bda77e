package io.tablecast.protocol.row;

import java.util.Arrays;

/**
 * A growable byte array that a row is written into; one per encoding, not shared between threads.
 * Each thread keeps one to write its rows in ({@link #borrow}, as Jackson's {@code BufferRecycler}
 * keeps its buffers), so that encoding a row allocates only its result ({@link #toByteArray}): a
 * server reading a million rows made a sink and its array for each (about 100 bytes a row).
 */
final class RowSink {
  /** A thread's sink grown past this is not kept (a 30 MB value is not held for good). */
  private static final int KEPT_BYTES = 64 << 10;

  private static final ThreadLocal<RowSink> KEPT = ThreadLocal.withInitial(() -> new RowSink(256));

  private byte[] bytes;
  private int size;
  private boolean borrowed;

  RowSink(int initialCapacity) {
    bytes = new byte[Math.max(16, initialCapacity)];
  }

  /**
   * This thread's sink, empty, until {@link #giveBack}; a new one when it is borrowed already (an
   * encoding within an encoding).
   */
  static RowSink borrow() {
    RowSink s = KEPT.get();
    if (s.borrowed) {
      return new RowSink(256);
    }
    s.borrowed = true;
    s.size = 0;
    return s;
  }

  /** Ends a {@link #borrow}: the sink may be borrowed again; its bytes must not be used. */
  void giveBack() {
    if (bytes.length > KEPT_BYTES) {
      bytes = new byte[256];
    }
    borrowed = false;
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

  /** The length of the array written into; for tests. */
  int capacity() {
    return bytes.length;
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

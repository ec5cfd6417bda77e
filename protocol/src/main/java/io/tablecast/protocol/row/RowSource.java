package io.tablecast.protocol.row;

/**
 * Reads a row's bytes from a position, with bounds checked: a truncated or corrupt row fails with
 * {@link MalformedRowException} naming the offset, never with an index error or a wrong value.
 */
final class RowSource {
  private final byte[] bytes;
  private final int end;
  private int position;

  RowSource(byte[] bytes, int position, int end) {
    this.bytes = bytes;
    this.position = position;
    this.end = end;
  }

  int position() {
    return position;
  }

  void position(int position) {
    this.position = position;
  }

  byte[] bytes() {
    return bytes;
  }

  int read() {
    if (position >= end) {
      throw malformed("row ends early");
    }
    return bytes[position++] & 0xff;
  }

  int byteAt(int index) {
    if (index >= end) {
      throw malformed("row ends early");
    }
    return bytes[index] & 0xff;
  }

  /** Reads {@code count} bytes big-endian. */
  long readFixed(int count) {
    long value = 0;
    for (int i = 0; i < count; i++) {
      value = (value << 8) | read();
    }
    return value;
  }

  /** Moves past {@code length} bytes and returns where they began. */
  int skip(int length) {
    if (length < 0 || length > end - position) {
      throw malformed("value of " + length + " bytes runs past the row's end");
    }
    int start = position;
    position += length;
    return start;
  }

  boolean atEnd() {
    return position == end;
  }

  MalformedRowException malformed(String what) {
    return new MalformedRowException(what + " (at byte " + position + ")");
  }
}

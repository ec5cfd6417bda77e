package io.tablecast.protocol.row;

/**
 * The hash of a primary key in the row form: what a {@link RowTable} (the server's image) and a
 * client's index of the same table place a key by, so that a snapshot sent in the image's slot
 * order fills the client's index slot after slot.
 */
public final class KeyHash {
  private KeyHash() {}

  /** {@link #of} the key of {@code row}, a row in the row form, read in place. */
  public static int ofRowKey(byte[] row) {
    int start = RowForm.keyStart(row);
    return of(row, start, start + RowForm.keyLength(row));
  }

  /**
   * The hash of a key's bytes: a key that is one varint of at most 64 bits (a primary key of one
   * INTEGER column, the common case) hashes as its value does ({@link #ofIntegerKey}), so that a
   * client's index of such keys, hashing the values, holds them in a {@link RowTable}'s slot order
   * and receives a snapshot, sent in that order, slot after slot; any other key by FNV-1a over its
   * bytes and murmur3's finalizer.
   */
  public static int of(byte[] bytes, int from, int to) {
    long zigzag = 0;
    for (int i = from, shift = 0; i < to && shift < 64; i++, shift += 7) {
      int b = bytes[i];
      zigzag |= (long) (b & 0x7f) << shift;
      if (b >= 0) { // the varint's last byte
        if (i == to - 1 && (shift < 63 || (b & 0x7e) == 0)) {
          return ofIntegerKey((zigzag >>> 1) ^ -(zigzag & 1));
        }
        break;
      }
    }
    int h = 0x811c9dc5;
    for (int i = from; i < to; i++) {
      h = (h ^ (bytes[i] & 0xff)) * 0x01000193;
    }
    return finish(h);
  }

  /**
   * {@link #of} of the key of a table whose primary key is one INTEGER column holding {@code
   * value}, computed from the value: murmur3's finalizer of its two halves.
   */
  public static int ofIntegerKey(long value) {
    return finish((int) (value ^ (value >>> 32)));
  }

  private static int finish(int hash) {
    int h = hash;
    h ^= h >>> 16; // murmur3's finalizer
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    return h ^ (h >>> 16);
  }
}

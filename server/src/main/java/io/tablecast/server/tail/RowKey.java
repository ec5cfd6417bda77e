package io.tablecast.server.tail;

import io.tablecast.protocol.row.KeyHash;
import io.tablecast.protocol.row.RowForm;
import java.util.Arrays;

/**
 * A primary key in the row form ({@link RowForm#encodeKey}), compared byte for byte: a map or set
 * key for the places that gather keys of one table version (the changed keys of a MySQL read).
 * Immutable.
 */
public final class RowKey {
  private final byte[] bytes;
  private final int hash;

  private RowKey(byte[] bytes) {
    this.bytes = bytes;
    this.hash = hash(bytes);
  }

  /** The key with these bytes (not copied: key bytes never change). */
  public static RowKey of(byte[] key) {
    return new RowKey(key);
  }

  /** The key of an encoded row. */
  public static RowKey ofRow(byte[] row) {
    int start = RowForm.keyStart(row);
    return new RowKey(Arrays.copyOfRange(row, start, start + RowForm.keyLength(row)));
  }

  /**
   * The hash of a key's bytes. A key of up to four bytes (an integer key up to about 134 million,
   * as a varint) hashes to its bytes read as a little-endian number: distinct keys get distinct
   * hashes, and close integers close ones, so that a map of many consecutive keys (the changed keys
   * of a large MySQL transaction) is filled in memory order rather than at random. Longer keys hash
   * as {@link KeyHash#of}. ({@code Arrays.hashCode}'s {@code 31 * h + b} gives the varints of
   * 1..1,000,000 only about 125,000 distinct values.)
   */
  static int hash(byte[] key) {
    if (key.length > 4) {
      return KeyHash.of(key, 0, key.length);
    }
    int h = 0;
    for (int i = key.length - 1; i >= 0; i--) {
      h = (h << 8) | (key[i] & 0xff);
    }
    return h;
  }

  /** The key's bytes (not a copy: do not change them). */
  public byte[] bytes() {
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowKey k && k.hash == hash && Arrays.equals(k.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "RowKey" + Arrays.toString(bytes);
  }
}

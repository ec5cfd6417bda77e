package io.tablecast.protocol.row;

import io.tablecast.protocol.ColumnInfo;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Where {@link RowForm}'s columns lie in a row: the key's columns first, in key order, then a null
 * bitmap and the other columns in table order. Finds one column's value by plain {@code int}
 * positions ({@link DirectRead}), a {@link RowSource} only for a value no fast path takes: this
 * walk is too large for the JIT to inline into every read, and a reader passed to a call that is
 * not inlined is a new object on every read. Immutable.
 */
final class RowLayout {
  final ValueForm[] forms;

  /** Per column: how the walk passes its value ({@link DirectRead#passOf}). */
  private final byte[] passes;

  /** Column names in table order, interned. */
  final String[] names;

  /** Column index of each key column, in key order. */
  final int[] keyColumns;

  /** Column index of each other column, in table order. */
  final int[] otherColumns;

  /** Per column: its place in the key, or -1. */
  final int[] keyPlace;

  final int bitmapBytes;

  /** Per column: its place among the other columns, or -1 for a key column. */
  private final int[] otherPlace;

  /** Other columns per stretch between two anchors ({@link #anchors}): the longest walk + 1. */
  private final int anchorStep;

  /**
   * @throws IllegalArgumentException when a key column is not a column, or is named twice
   */
  RowLayout(List<ColumnInfo> columns, List<String> primaryKey) {
    this.forms = new ValueForm[columns.size()];
    this.passes = new byte[columns.size()];
    this.names = new String[columns.size()];
    for (int i = 0; i < forms.length; i++) {
      forms[i] = ValueForm.of(columns.get(i).kind());
      passes[i] = DirectRead.passOf(forms[i]);
      names[i] = columns.get(i).name().intern(); // so that indexOf finds a literal by identity
    }
    this.keyColumns = new int[primaryKey.size()];
    this.keyPlace = new int[forms.length];
    Arrays.fill(keyPlace, -1);
    for (int k = 0; k < keyColumns.length; k++) {
      keyColumns[k] = indexOf(primaryKey.get(k));
      if (keyColumns[k] < 0 || keyPlace[keyColumns[k]] >= 0) {
        throw new IllegalArgumentException(
            "primary-key column "
                + primaryKey.get(k)
                + " is not a column of "
                + Objects.toString(List.of(names))
                + " (or named twice)");
      }
      keyPlace[keyColumns[k]] = k;
    }
    this.otherColumns = new int[forms.length - keyColumns.length];
    this.otherPlace = new int[forms.length];
    Arrays.fill(otherPlace, -1);
    for (int i = 0, j = 0; i < forms.length; i++) {
      if (keyPlace[i] < 0) {
        otherPlace[i] = j;
        otherColumns[j++] = i;
      }
    }
    this.bitmapBytes = (otherColumns.length + 7) / 8;
    this.anchorStep = Math.max(1, (otherColumns.length + ANCHORS) / (ANCHORS + 1));
  }

  /** The index of the column named {@code name}, or -1: by identity first, then by equals. */
  @SuppressWarnings("ReferenceEquality") // identity first on purpose; equals follows
  int indexOf(String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i] == name) {
        return i;
      }
    }
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** Anchors kept per row: positions the walk to a column may start from. */
  static final int ANCHORS = 3;

  private static final int ANCHOR_BITS = 10;
  private static final int ANCHOR_MASK = (1 << ANCHOR_BITS) - 1;

  /** An anchor too far from the first value to be kept: the walk starts before it. */
  private static final int NO_ANCHOR = ANCHOR_MASK;

  /**
   * Where the walk to a column of {@code row} may start without passing the values before it,
   * packed in an int for the row's holder to keep ({@link RowForm#anchors}): for the other columns
   * {@code anchorStep}, {@code 2 anchorStep} and {@code 3 anchorStep} (in table order, the key's
   * columns apart), the position where that column's value begins (or would, were it not NULL),
   * counted from the first of them in {@link #ANCHOR_BITS} bits each; farther than that, or after a
   * value that is not plainly well formed, it is not kept. Never 0: the top bit says it was
   * computed. Never throws: a read of a broken row meets its fault as it would without anchors.
   */
  int anchors(byte[] row) {
    int packed = Integer.MIN_VALUE;
    int slots = Math.min(ANCHORS, (otherColumns.length - 1) / anchorStep);
    for (int slot = 0; slot < ANCHORS; slot++) {
      packed |= NO_ANCHOR << (slot * ANCHOR_BITS);
    }
    if (slots <= 0) {
      return packed;
    }
    int bitmap = plainKeyEnd(row);
    if (bitmap < 0 || bitmapBytes > row.length - bitmap) {
      return packed; // malformed: reads walk from the start and name the fault
    }
    int first = bitmap + bitmapBytes;
    int at = first;
    for (int j = 0, slot = 0; slot < slots; j++) {
      if (j == (slot + 1) * anchorStep) {
        int offset = at - first;
        if (offset >= NO_ANCHOR) {
          break;
        }
        packed &= ~(NO_ANCHOR << (slot * ANCHOR_BITS));
        packed |= offset << (slot * ANCHOR_BITS);
        slot++;
      }
      if (!isNull(row, bitmap, j)) {
        at = DirectRead.end(passes[otherColumns[j]], row, at);
        if (at < 0) {
          break; // not plainly well formed: reads walk past it from an anchor before, as ever
        }
      }
    }
    return packed;
  }

  /** Whether a read of {@code column} would start from an anchor: it lies past the first. */
  boolean pastFirstAnchor(int column) {
    return otherPlace[column] >= anchorStep && otherColumns.length > 1;
  }

  /** The key's end from its length varint, or -1 when it is not plainly well formed. */
  private static int plainKeyEnd(byte[] row) {
    int lengthBytes = DirectRead.varintLength(row, 0);
    long keyLength = lengthBytes == 0 ? -1 : DirectRead.varint(row, 0, lengthBytes);
    return keyLength < 0 || keyLength > row.length - lengthBytes
        ? -1
        : lengthBytes + (int) keyLength;
  }

  /** Where a column's value begins in {@code row}, or -1 when it is NULL. */
  int valueStart(byte[] row, int column) {
    return valueStart(row, column, 0);
  }

  /**
   * Where a column's value begins in {@code row}, or -1 when it is NULL, the walk starting from the
   * nearest of the row's {@code anchors} ({@link #anchors}; 0: none) before it.
   */
  int valueStart(byte[] row, int column, int anchors) {
    Objects.checkIndex(column, forms.length);
    int keyEnd = plainKeyEnd(row);
    int keyStart;
    if (keyEnd < 0) {
      RowSource in = new RowSource(row, 0, row.length); // refuses what the fast read did not take
      keyEnd = keyEnd(in);
      keyStart = in.position();
    } else {
      keyStart = DirectRead.varintLength(row, 0);
    }
    int at = keyStart;
    if (keyPlace[column] >= 0) {
      for (int k = 0; k < keyPlace[column]; k++) {
        at = skip(keyColumns[k], row, at);
      }
      return at;
    }
    int bitmap = keyEnd;
    if (bitmapBytes > row.length - bitmap) {
      new RowSource(row, bitmap, row.length).skip(bitmapBytes); // names the fault
    }
    at = bitmap + bitmapBytes;
    int j = 0;
    if (anchors != 0) {
      for (int slot = Math.min(ANCHORS, otherPlace[column] / anchorStep) - 1; slot >= 0; slot--) {
        int offset = (anchors >>> (slot * ANCHOR_BITS)) & ANCHOR_MASK;
        if (offset != NO_ANCHOR) {
          j = (slot + 1) * anchorStep;
          at += offset;
          break;
        }
      }
    }
    for (; ; j++) {
      int other = otherColumns[j];
      boolean isNull = isNull(row, bitmap, j);
      if (other == column) {
        return isNull ? -1 : at;
      }
      if (!isNull) {
        at = skip(other, row, at);
      }
    }
  }

  /** The position after the value of {@code column} at {@code start}. */
  private int skip(int column, byte[] row, int start) {
    int end = DirectRead.end(passes[column], row, start);
    if (end >= 0) {
      return end;
    }
    RowSource in = new RowSource(row, start, row.length);
    ValueForm.skipOne(forms[column], in);
    return in.position();
  }

  /**
   * {@link RowForm#check}: the walk of {@link #valueStart} (no reader object per row), and the
   * reader's walk, which names the fault, when that one does not take the row's structure.
   */
  void check(byte[] row) {
    if (!walksWhole(row)) {
      checkWithReader(row);
    }
  }

  /**
   * Whether the row's key, bitmap and values end where they must, each value passed as {@link
   * #skip} does (a value it does not take fails there, as the reader would).
   */
  private boolean walksWhole(byte[] row) {
    int keyEnd = plainKeyEnd(row);
    if (keyEnd < 0) {
      return false;
    }
    int at = DirectRead.varintLength(row, 0);
    for (int column : keyColumns) {
      at = skip(column, row, at);
    }
    if (at != keyEnd || bitmapBytes > row.length - keyEnd) {
      return false;
    }
    at = keyEnd + bitmapBytes;
    for (int j = 0; j < otherColumns.length; j++) {
      if (!isNull(row, keyEnd, j)) {
        at = skip(otherColumns[j], row, at);
      }
    }
    return at == row.length;
  }

  private void checkWithReader(byte[] row) {
    RowSource in = new RowSource(row, 0, row.length);
    int keyEnd = keyEnd(in);
    skipKey(in);
    expect(in, keyEnd, "the key");
    int bitmap = in.skip(bitmapBytes);
    for (int j = 0; j < otherColumns.length; j++) {
      if (!isNull(row, bitmap, j)) {
        forms[otherColumns[j]].skip(in);
      }
    }
    end(in);
  }

  /** {@link RowForm#checkKey}. */
  void checkKey(byte[] key) {
    RowSource in = new RowSource(key, 0, key.length);
    skipKey(in);
    end(in);
  }

  private void skipKey(RowSource in) {
    for (int column : keyColumns) {
      forms[column].skip(in);
    }
  }

  /** Whether the {@code j}-th other column is NULL in the bitmap at {@code bitmap}. */
  static boolean isNull(byte[] row, int bitmap, int j) {
    return (row[bitmap + (j >>> 3)] & (1 << (j & 7))) != 0;
  }

  /** Reads the key's length; leaves {@code in} at the key's start, returns the key's end. */
  static int keyEnd(RowSource in) {
    int length = Varints.readLength(in);
    int start = in.position();
    in.skip(length);
    in.position(start);
    return start + length;
  }

  /** Fails naming {@code what} unless {@code in} is at {@code position}. */
  static void expect(RowSource in, int position, String what) {
    if (in.position() != position) {
      throw in.malformed(what + " should end at byte " + position);
    }
  }

  /** Fails unless {@code in} is at the end of its row. */
  static void end(RowSource in) {
    if (!in.atEnd()) {
      throw in.malformed("bytes left after the last column");
    }
  }
}

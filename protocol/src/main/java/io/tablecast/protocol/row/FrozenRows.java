package io.tablecast.protocol.row;

import java.util.AbstractList;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The rows of a {@link RowTable} as they were when {@link RowTable#rows()} was called: a view of
 * the table's slot array, which the table copies before its next write (copy on write) instead of
 * the caller copying the rows now. So taking the rows costs the table's owner (the server's hub
 * thread, once per snapshot a client asks for) nothing, however large the table, and one bulk copy
 * of the slot array at its next write for however many views were taken in between; building a list
 * of a million rows cost it 20-45 ms (docs/BENCHMARKS.md). Iteration walks the slots; {@link #get}
 * packs the rows into an array once, on the thread of its first caller. Immutable and thread-safe.
 */
final class FrozenRows extends AbstractList<byte[]> {
  /** The table's pages of slots (null where empty), never written again. */
  private final byte[][][] pages;

  private final int size;

  /** The rows in slot order, packed by the first {@link #get}; a race only packs them twice. */
  private volatile byte[][] packed;

  FrozenRows(byte[][][] pages, int size) {
    this.pages = pages;
    this.size = size;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public byte[] get(int index) {
    Objects.checkIndex(index, size);
    byte[][] rows = packed;
    if (rows == null) {
      byte[][] out = new byte[size][];
      forEach(
          new Consumer<byte[]>() {
            int i;

            @Override
            public void accept(byte[] row) {
              out[i++] = row;
            }
          });
      packed = rows = out;
    }
    return rows[index];
  }

  @Override
  public Iterator<byte[]> iterator() {
    return new Iterator<>() {
      private int page;
      private int slot = -1;

      {
        advance();
      }

      @Override
      public boolean hasNext() {
        return page < pages.length;
      }

      @Override
      public byte[] next() {
        if (page >= pages.length) {
          throw new NoSuchElementException();
        }
        byte[] row = pages[page][slot];
        advance();
        return row;
      }

      /** Moves to the next row's slot, or past the last page. */
      private void advance() {
        while (page < pages.length) {
          byte[][] slots = pages[page];
          while (++slot < slots.length) {
            if (slots[slot] != null) {
              return;
            }
          }
          page++;
          slot = -1;
        }
      }
    };
  }

  @Override
  public void forEach(Consumer<? super byte[]> action) {
    forEach(pages, action);
  }

  /** Every row of {@code pages}, in slot order. */
  static void forEach(byte[][][] pages, Consumer<? super byte[]> action) {
    for (byte[][] slots : pages) {
      for (byte[] row : slots) {
        if (row != null) {
          action.accept(row);
        }
      }
    }
  }
}

package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A batch's changes as the {@link ResumeBuffer} keeps them: the bytes of every key and row in one
 * array, beside the table names and layouts they belong to, instead of a change, a key node and two
 * row nodes (each with its own bytes) per change. The buffer keeps the last 100,000 batches, so
 * every change outlives the young collections of its first minutes: kept as objects, each one was
 * copied by the collector into the survivor spaces and then the old generation, which concurrent
 * marking had to free again (young pauses of up to 130-220 ms at 4,000 changes/s against 56-65 ms
 * packed; docs/BENCHMARKS.md). One array per batch is copied whole, without being traced.
 *
 * <p>{@link #changes} makes the changes anew at each call, with the same bytes, layouts and table
 * names: a resume replay filters and encodes them as the fan-out did. A change whose key or rows
 * are not in a row form is kept as it is. Immutable.
 */
final class PackedChanges {

  /** Fixed cost of a batch's arrays, counted against the buffer's byte bound. */
  private static final int OVERHEAD = 96;

  private static final Op[] OPS = Op.values();

  private final byte[] data;
  private final int count;
  private final String[] tables;
  private final RowForm[] forms;

  /** Changes kept as they are (not in a row form); null when none. */
  private final Message.Change[] kept;

  private PackedChanges(
      byte[] data, int count, String[] tables, RowForm[] forms, Message.Change[] kept) {
    this.data = data;
    this.count = count;
    this.tables = tables;
    this.forms = forms;
    this.kept = kept;
  }

  /**
   * {@code changes} packed; the table and layout arrays of {@code previous} (the batch packed
   * before, or null) are shared when this batch has the same ones, as nearly every batch does.
   */
  @SuppressWarnings("EnumOrdinal") // in this process's memory only, read back by Op.values()
  static PackedChanges of(List<Message.Change> changes, PackedChanges previous) {
    Writer out = new Writer(changes.size() * 64);
    List<String> tables = new ArrayList<>(2);
    List<RowForm> forms = new ArrayList<>(2);
    List<Message.Change> kept = null;
    for (Message.Change c : changes) {
      RowForm form = packedForm(c);
      if (form == null) {
        kept = kept == null ? new ArrayList<>() : kept;
        out.unsigned(0);
        out.unsigned(kept.size());
        kept.add(c);
        continue;
      }
      out.unsigned(slot(tables, forms, c.table(), form) + 1);
      out.unsigned(c.op().ordinal());
      out.bytes(((PackedKey) c.key()).bytes());
      out.nullable(c.before() == null ? null : ((PackedRow) c.before()).bytes());
      out.nullable(c.after() == null ? null : ((PackedRow) c.after()).bytes());
    }
    String[] t = tables.toArray(new String[0]);
    RowForm[] f = forms.toArray(new RowForm[0]);
    if (previous != null && Arrays.equals(previous.tables, t) && sameForms(previous.forms, f)) {
      t = previous.tables;
      f = previous.forms;
    }
    return new PackedChanges(
        out.toArray(),
        changes.size(),
        t,
        f,
        kept == null ? null : kept.toArray(new Message.Change[0]));
  }

  // layouts are compared by identity: a table version's RowForm is one object
  @SuppressWarnings("ReferenceEquality")
  private static boolean sameForms(RowForm[] a, RowForm[] b) {
    if (a.length != b.length) {
      return false;
    }
    for (int i = 0; i < a.length; i++) {
      if (a[i] != b[i]) {
        return false;
      }
    }
    return true;
  }

  /** The layout of a change whose key and rows are all bound to it, else null. */
  private static RowForm packedForm(Message.Change c) {
    if (!(c.key() instanceof PackedKey k) || k.form() == null) {
      return null;
    }
    RowForm form = k.form();
    boolean before = c.before() == null || (c.before() instanceof PackedRow p && p.form() == form);
    boolean after = c.after() == null || (c.after() instanceof PackedRow p && p.form() == form);
    return before && after ? form : null;
  }

  // layouts are compared by identity: a table version's RowForm is one object
  @SuppressWarnings("ReferenceEquality")
  private static int slot(List<String> tables, List<RowForm> forms, String table, RowForm form) {
    for (int i = 0; i < tables.size(); i++) {
      if (forms.get(i) == form && tables.get(i).equals(table)) {
        return i;
      }
    }
    tables.add(table);
    forms.add(form);
    return tables.size() - 1;
  }

  /** The changes, made anew from the bytes, in their order. */
  List<Message.Change> changes() {
    List<Message.Change> out = new ArrayList<>(count);
    Reader in = new Reader(data);
    for (int i = 0; i < count; i++) {
      int slot = in.unsigned();
      if (slot == 0) {
        out.add(kept[in.unsigned()]);
        continue;
      }
      RowForm form = forms[slot - 1];
      Op op = OPS[in.unsigned()];
      PackedKey key = PackedKey.of(form, in.bytes());
      byte[] before = in.nullable();
      byte[] after = in.nullable();
      out.add(
          new Message.Change(
              tables[slot - 1],
              op,
              key,
              before == null ? null : PackedRow.of(form, before),
              after == null ? null : PackedRow.of(form, after)));
    }
    return out;
  }

  int size() {
    return count;
  }

  /**
   * What the batch holds on to: its bytes and arrays (shared ones counted again), and for a change
   * kept as it is, its estimate ({@link BatchParts#approxBytes}).
   */
  long retainedBytes() {
    long n = OVERHEAD + data.length + 8L * (tables.length + forms.length);
    if (kept != null) {
      for (Message.Change c : kept) {
        n += BatchParts.approxBytes(c);
      }
    }
    return n;
  }

  /** Unsigned varints and length-prefixed byte strings into a growing array. */
  private static final class Writer {
    private byte[] buf;
    private int size;

    Writer(int capacity) {
      buf = new byte[Math.max(16, capacity)];
    }

    void unsigned(int value) {
      ensure(5);
      while ((value & ~0x7f) != 0) {
        buf[size++] = (byte) ((value & 0x7f) | 0x80);
        value >>>= 7;
      }
      buf[size++] = (byte) value;
    }

    void bytes(byte[] b) {
      unsigned(b.length);
      ensure(b.length);
      System.arraycopy(b, 0, buf, size, b.length);
      size += b.length;
    }

    /** Length + 1 and the bytes; 0 for null. */
    void nullable(byte[] b) {
      if (b == null) {
        unsigned(0);
        return;
      }
      unsigned(b.length + 1);
      ensure(b.length);
      System.arraycopy(b, 0, buf, size, b.length);
      size += b.length;
    }

    private void ensure(int more) {
      if (size + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
      }
    }

    byte[] toArray() {
      return Arrays.copyOf(buf, size);
    }
  }

  private static final class Reader {
    private final byte[] buf;
    private int at;

    Reader(byte[] buf) {
      this.buf = buf;
    }

    int unsigned() {
      int value = 0;
      for (int shift = 0; ; shift += 7) {
        byte b = buf[at++];
        value |= (b & 0x7f) << shift;
        if (b >= 0) {
          return value;
        }
      }
    }

    byte[] bytes() {
      int n = unsigned();
      byte[] b = Arrays.copyOfRange(buf, at, at + n);
      at += n;
      return b;
    }

    byte[] nullable() {
      int n = unsigned();
      if (n == 0) {
        return null;
      }
      byte[] b = Arrays.copyOfRange(buf, at, at + n - 1);
      at += n - 1;
      return b;
    }
  }
}

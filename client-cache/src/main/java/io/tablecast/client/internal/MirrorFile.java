package io.tablecast.client.internal;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.row.RowForm;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;

/**
 * A mirror saved to a local file, for a warm restart: which table and row type it holds, at which
 * position of which server epoch, the table's columns, and its rows in the row form of those
 * columns ({@code docs/PROTOCOL.md}), closed by a CRC-32C of everything before it. Written to a
 * temporary file in the same directory, forced to the disk and moved over the old one in one step,
 * so a crash leaves the old file or the new one, never half of one. Internal.
 *
 * <pre>
 * "TCMIRROR" u32 format(1)
 * (utf: u16 length, UTF-8 bytes)
 * utf table, utf rowType, utf epoch, i64 position, i64 savedAtMillis
 * u32 columns, (utf name, utf dbType, utf kind)*, u32 keyColumns, utf*, u8 encoding
 * u32 rows, (u32 length, bytes)*
 * u32 crc32c
 * </pre>
 */
public final class MirrorFile {
  private static final byte[] MAGIC = "TCMIRROR".getBytes(StandardCharsets.US_ASCII);
  private static final int FORMAT = 1;

  /** The largest file read: one array. */
  private static final long MAX_FILE_BYTES = Integer.MAX_VALUE - 64;

  private MirrorFile() {}

  /**
   * What a file says of its rows.
   *
   * @param table the qualified table name
   * @param rowType the mirror's row type ({@code java.util.Map} for generic rows)
   * @param epoch the server epoch {@code position} belongs to
   * @param position the stream position the rows are exactly the table at
   * @param savedAtMillis when it was written (epoch ms)
   * @param columns the table's columns, in table order: the layout of the rows
   * @param primaryKey the primary-key columns
   */
  public record Header(
      String table,
      String rowType,
      String epoch,
      long position,
      long savedAtMillis,
      List<ColumnInfo> columns,
      List<String> primaryKey) {
    public Header {
      columns = List.copyOf(columns);
      primaryKey = List.copyOf(primaryKey);
    }

    /** The layout of the rows. */
    public RowForm form() {
      return new RowForm(columns, primaryKey);
    }
  }

  /** How a file's rows are written. */
  public enum Encoding {
    /** Each row in the row form of the header's columns (generic rows: the bytes they hold). */
    ROW_FORM(0),
    /** Each row as its key ({@link KeyBytes}) followed by the row type's JSON (typed rows). */
    KEY_AND_JSON(1);

    /** Its byte in the file. */
    final int code;

    Encoding(int code) {
      this.code = code;
    }

    static Encoding of(int code) {
      for (Encoding e : values()) {
        if (e.code == code) {
          return e;
        }
      }
      return null;
    }
  }

  /** A file read and checked: its header, how its rows are written, and their bytes. */
  public record Contents(Header header, Encoding encoding, List<byte[]> rows) {}

  /** The rows to write: how many, and each one's bytes in the header's layout. */
  public interface Rows {
    int count();

    /** How {@link #row} writes them. */
    default Encoding encoding() {
      return Encoding.ROW_FORM;
    }

    /**
     * The bytes of row {@code i} in the layout {@code form}.
     *
     * @throws RuntimeException when the row cannot be written (the file is not written)
     */
    byte[] row(int i, RowForm form);
  }

  /** A mirror's rows taken on the event loop, to be written to {@code file} by another thread. */
  public record ToWrite(Path file, Header header, Rows rows) {}

  /** A file that is not a usable mirror file; its message says why, for the log and listeners. */
  public static final class Unusable extends Exception {
    private static final long serialVersionUID = 1L;

    Unusable(String message) {
      super(message, null, false, false);
    }
  }

  /** Writes {@code rows} with {@code header} to {@code file}, replacing it in one step. */
  public static void write(Path file, Header header, Rows rows) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path temp = Files.createTempFile(dir, file.getFileName().toString(), ".partial");
    try {
      RowForm form = header.form();
      CRC32C crc = new CRC32C();
      try (OutputStream raw = Files.newOutputStream(temp);
          DataOutputStream out =
              new DataOutputStream(
                  new BufferedOutputStream(new CheckedOutputStream(raw, crc), 1 << 16))) {
        out.write(MAGIC);
        out.writeInt(FORMAT);
        utf(out, header.table());
        utf(out, header.rowType());
        utf(out, header.epoch());
        out.writeLong(header.position());
        out.writeLong(header.savedAtMillis());
        out.writeInt(header.columns().size());
        for (ColumnInfo c : header.columns()) {
          utf(out, c.name());
          utf(out, c.dbType());
          utf(out, c.kind().name());
        }
        out.writeInt(header.primaryKey().size());
        for (String k : header.primaryKey()) {
          utf(out, k);
        }
        out.writeByte(rows.encoding().code);
        int n = rows.count();
        out.writeInt(n);
        for (int i = 0; i < n; i++) {
          byte[] row = rows.row(i, form);
          out.writeInt(row.length);
          out.write(row);
        }
        out.flush();
        int sum = (int) crc.getValue();
        raw.write(
            new byte[] {(byte) (sum >>> 24), (byte) (sum >>> 16), (byte) (sum >>> 8), (byte) sum});
      }
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private static void utf(DataOutputStream out, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 0xFFFF) {
      throw new IOException("a name of more than 65535 bytes: " + text.substring(0, 64) + "...");
    }
    out.writeShort(bytes.length);
    out.write(bytes);
  }

  /**
   * Why {@code file} cannot be read into {@code heap}, or null when it can: reading takes about
   * three times its size at its peak (the file read whole, each row's bytes, the rows and their
   * index kept), checked against the heap less {@code reservePercent} of it less what is live, as a
   * snapshot is ({@link SnapshotSizing}), so that a file too large is refused with the figures
   * instead of running out of memory.
   */
  public static String tooLargeFor(Path file, HeapRoom heap, int reservePercent)
      throws IOException {
    if (!Files.isRegularFile(file)) {
      return null;
    }
    long size = Files.size(file);
    long need = 3 * size;
    long limit = SnapshotSizing.limit(heap, reservePercent);
    long live = heap.used();
    if (live + need <= limit) {
      return null;
    }
    live = heap.usedAfterCollection();
    if (live + need <= limit) {
      return null;
    }
    return "reading it takes about "
        + SnapshotSizing.bytes(need)
        + " of heap (three times its "
        + SnapshotSizing.bytes(size)
        + "), the heap can give "
        + SnapshotSizing.bytes(Math.max(0, limit - live))
        + " (maximum heap "
        + SnapshotSizing.bytes(heap.max())
        + ", "
        + SnapshotSizing.bytes(live)
        + " in use, "
        + reservePercent
        + " % kept for the application: TablecastClient.Builder.heapReservePercent); give the"
        + " application more -Xmx";
  }

  /**
   * Reads {@code file} whole and checks it: its checksum, that it holds {@code table} in rows of
   * {@code rowType}, and every row against the header's columns.
   *
   * @throws Unusable naming what is wrong (corrupt, truncated, another table or row type, another
   *     format)
   * @throws IOException when it cannot be read
   */
  public static Contents read(Path file, String table, String rowType)
      throws IOException, Unusable {
    if (Files.isRegularFile(file) && Files.size(file) > MAX_FILE_BYTES) {
      throw new Unusable(
          "it is larger than " + (MAX_FILE_BYTES >> 20) + " MiB, which this client cannot read");
    }
    // read whole (a pipe too) and summed in one pass: per-row reads through a checked stream
    // cost a million rows about half a second
    byte[] all;
    try (InputStream in = Files.newInputStream(file)) {
      all = in.readAllBytes();
    }
    if (all.length < MAGIC.length || !Arrays.equals(all, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new Unusable("not a Tablecast mirror file (it does not begin with TCMIRROR)");
    }
    ByteBuffer buf = ByteBuffer.wrap(all);
    int body = all.length - 4;
    CRC32C crc = new CRC32C();
    crc.update(all, 0, Math.max(0, body));
    if (body < MAGIC.length + 4 || buf.getInt(body) != (int) crc.getValue()) {
      throw new Unusable(
          "corrupt or truncated: its checksum does not match its contents ("
              + all.length
              + " bytes)");
    }
    try {
      return parse(buf.limit(body).position(MAGIC.length), table, rowType);
    } catch (BufferUnderflowException e) {
      throw new Unusable("corrupt: it ends inside a row, its checksum matching");
    }
  }

  private static Contents parse(ByteBuffer buf, String table, String rowType) throws Unusable {
    int format = buf.getInt();
    if (format != FORMAT) {
      throw new Unusable(
          "written in mirror file format " + format + "; this client reads format " + FORMAT);
    }
    Header header = readHeader(buf);
    int encodingCode = buf.get();
    if (encodingCode < 0 || encodingCode >= Encoding.values().length) {
      throw new Unusable(
          "its rows are written in a way this client does not know: " + encodingCode);
    }
    Encoding encoding = Encoding.values()[encodingCode];
    if (!header.table().equals(table) || !header.rowType().equals(rowType)) {
      throw new Unusable(
          "it holds rows of "
              + header.table()
              + " as "
              + header.rowType()
              + ", not of "
              + table
              + " as "
              + rowType);
    }
    RowForm form;
    try {
      form = header.form();
    } catch (RuntimeException e) {
      throw new Unusable("its columns are not a table layout: " + e.getMessage());
    }
    int n = buf.getInt();
    if (n < 0 || n > buf.remaining() / 4) {
      throw new Unusable("corrupt: it announces " + n + " rows in " + buf.remaining() + " bytes");
    }
    List<byte[]> rows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int length = buf.getInt();
      if (length < 0 || length > buf.remaining()) {
        throw new Unusable("corrupt: row " + i + " has a length of " + length + " bytes");
      }
      byte[] row = new byte[length];
      buf.get(row);
      if (encoding == Encoding.ROW_FORM) {
        try {
          form.check(row);
        } catch (RuntimeException e) {
          throw new Unusable("row " + i + " does not fit the columns it names: " + e.getMessage());
        }
      }
      rows.add(row);
    }
    if (buf.hasRemaining()) {
      throw new Unusable("corrupt: " + buf.remaining() + " bytes after its last row");
    }
    return new Contents(header, encoding, rows);
  }

  private static String utf(ByteBuffer buf) {
    int length = buf.getShort() & 0xFFFF;
    byte[] bytes = new byte[length];
    buf.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static Header readHeader(ByteBuffer in) throws Unusable {
    String table = utf(in);
    String rowType = utf(in);
    String epoch = utf(in);
    long position = in.getLong();
    long savedAt = in.getLong();
    int columnCount = in.getInt();
    if (columnCount < 0 || columnCount > 65_535) {
      throw new Unusable("corrupt: it announces " + columnCount + " columns");
    }
    List<ColumnInfo> columns = new ArrayList<>(columnCount);
    for (int i = 0; i < columnCount; i++) {
      String name = utf(in);
      String dbType = utf(in);
      String kind = utf(in);
      try {
        columns.add(new ColumnInfo(name, dbType, ColumnKind.valueOf(kind)));
      } catch (IllegalArgumentException e) {
        throw new Unusable("column " + name + " has a kind this client does not know: " + kind);
      }
    }
    int keyCount = in.getInt();
    if (keyCount < 0 || keyCount > columnCount) {
      throw new Unusable("corrupt: it announces " + keyCount + " key columns");
    }
    List<String> key = new ArrayList<>(keyCount);
    for (int i = 0; i < keyCount; i++) {
      key.add(utf(in));
    }
    return new Header(table, rowType, epoch, position, savedAt, columns, key);
  }
}

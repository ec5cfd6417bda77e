package io.tablecast.server.stream;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bytes of one {@link CommittedBatch} in a stream message group: its events, table reads and
 * staleness changes with the rows in their row form ({@link io.tablecast.protocol.row.RowForm}),
 * and each table version the rows are in described once. What capture read is what every server
 * applies, byte for byte: rows are not converted on the way.
 *
 * <p>Layout (big-endian, {@link DataOutputStream}): {@code u8 version}, {@code i64 captureMillis},
 * the table versions ({@code i32 count}, each: schema, name, columns as (name, database type, kind
 * name), primary key), the events ({@code i32 count}, each {@code u8 U|D|T} and its fields, a row
 * as {@code i32 length} and bytes, -1 for none), the table reads and the staleness changes.
 */
final class BatchCodec {

  /** The layout's version, first byte of every group; a server refuses another. */
  static final int VERSION = 1;

  private BatchCodec() {}

  static byte[] encode(CommittedBatch batch) {
    Map<TableSchema, Integer> schemas = new LinkedHashMap<>();
    for (RowEvent e : batch.events()) {
      if (e instanceof RowEvent.Upsert u) {
        schemas.putIfAbsent(u.schema(), schemas.size());
      } else if (e instanceof RowEvent.Delete d) {
        schemas.putIfAbsent(d.schema(), schemas.size());
      }
    }
    for (CommittedBatch.TableRead r : batch.tableReads()) {
      schemas.putIfAbsent(r.schema(), schemas.size());
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeLong(batch.captureMillis());
      out.writeInt(schemas.size());
      for (TableSchema s : schemas.keySet()) {
        writeSchema(out, s);
      }
      out.writeInt(batch.events().size());
      for (RowEvent e : batch.events()) {
        writeEvent(out, e, schemas);
      }
      out.writeInt(batch.tableReads().size());
      for (CommittedBatch.TableRead r : batch.tableReads()) {
        out.writeInt(schemas.get(r.schema()));
        out.writeUTF(r.purpose().name());
        out.writeByte(
            r.chunk() == null ? 0 : 1 | (r.chunk().first() ? 2 : 0) | (r.chunk().last() ? 4 : 0));
        out.writeInt(r.rows().size());
        for (byte[] row : r.rows()) {
          writeBytes(out, row);
        }
      }
      out.writeInt(batch.staleness().size());
      for (CommittedBatch.Staleness st : batch.staleness()) {
        out.writeUTF(st.table());
        writeText(out, st.cause());
        writeText(out, st.reason());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  private static void writeSchema(DataOutputStream out, TableSchema s) throws IOException {
    out.writeUTF(s.id().schema());
    out.writeUTF(s.id().name());
    out.writeInt(s.columns().size());
    for (ColumnInfo c : s.columns()) {
      out.writeUTF(c.name());
      out.writeUTF(c.dbType());
      out.writeUTF(c.kind().name());
    }
    out.writeInt(s.primaryKey().size());
    for (String k : s.primaryKey()) {
      out.writeUTF(k);
    }
  }

  private static void writeEvent(DataOutputStream out, RowEvent e, Map<TableSchema, Integer> ids)
      throws IOException {
    if (e instanceof RowEvent.Upsert u) {
      out.writeByte('U');
      out.writeInt(ids.get(u.schema()));
      writeBytes(out, u.key());
      writeBytes(out, u.row());
      writeBytes(out, u.before());
    } else if (e instanceof RowEvent.Delete d) {
      out.writeByte('D');
      out.writeInt(ids.get(d.schema()));
      writeBytes(out, d.key());
      writeBytes(out, d.before());
    } else {
      out.writeByte('T');
      out.writeUTF(e.table());
    }
  }

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    if (b == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(b.length);
      out.write(b);
    }
  }

  private static void writeText(DataOutputStream out, String s) throws IOException {
    out.writeBoolean(s != null);
    if (s != null) {
      writeBytes(out, s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  /**
   * The batch in {@code bytes}.
   *
   * @throws IllegalArgumentException when they are not a batch of this layout's version
   */
  static CommittedBatch decode(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new IllegalArgumentException(
            "a stream message in layout version "
                + version
                + ", this server reads version "
                + VERSION
                + ": run servers as new as the capture");
      }
      long captureMillis = in.readLong();
      List<TableSchema> schemas = new ArrayList<>();
      for (int i = in.readInt(); i > 0; i--) {
        schemas.add(readSchema(in));
      }
      List<RowEvent> events = new ArrayList<>();
      for (int i = in.readInt(); i > 0; i--) {
        events.add(readEvent(in, schemas));
      }
      List<CommittedBatch.TableRead> reads = new ArrayList<>();
      for (int i = in.readInt(); i > 0; i--) {
        TableSchema schema = schemas.get(in.readInt());
        CommittedBatch.Purpose purpose = CommittedBatch.Purpose.valueOf(in.readUTF());
        int chunk = in.readUnsignedByte();
        List<byte[]> rows = new ArrayList<>();
        for (int n = in.readInt(); n > 0; n--) {
          rows.add(readBytes(in));
        }
        reads.add(
            new CommittedBatch.TableRead(
                schema,
                rows,
                purpose,
                chunk == 0 ? null : new CommittedBatch.Chunk((chunk & 2) != 0, (chunk & 4) != 0)));
      }
      List<CommittedBatch.Staleness> staleness = new ArrayList<>();
      for (int i = in.readInt(); i > 0; i--) {
        staleness.add(new CommittedBatch.Staleness(in.readUTF(), readText(in), readText(in)));
      }
      if (in.available() > 0) {
        throw new IllegalArgumentException(in.available() + " bytes after the batch");
      }
      return new CommittedBatch(events, captureMillis, reads, staleness);
    } catch (IOException e) {
      throw new IllegalArgumentException("a stream message that is not a whole batch: " + e, e);
    }
  }

  private static TableSchema readSchema(DataInputStream in) throws IOException {
    TableId id = new TableId(in.readUTF(), in.readUTF());
    List<ColumnInfo> columns = new ArrayList<>();
    for (int i = in.readInt(); i > 0; i--) {
      columns.add(new ColumnInfo(in.readUTF(), in.readUTF(), ColumnKind.valueOf(in.readUTF())));
    }
    List<String> key = new ArrayList<>();
    for (int i = in.readInt(); i > 0; i--) {
      key.add(in.readUTF());
    }
    return new TableSchema(id, columns, key);
  }

  private static RowEvent readEvent(DataInputStream in, List<TableSchema> schemas)
      throws IOException {
    int kind = in.readUnsignedByte();
    switch (kind) {
      case 'U':
        {
          TableSchema s = schemas.get(in.readInt());
          return new RowEvent.Upsert(
              s.id().qualified(), s, readBytes(in), readBytes(in), readBytes(in));
        }
      case 'D':
        {
          TableSchema s = schemas.get(in.readInt());
          return new RowEvent.Delete(s.id().qualified(), s, readBytes(in), readBytes(in));
        }
      case 'T':
        return new RowEvent.Truncate(in.readUTF());
      default:
        throw new IOException("unknown event kind " + kind);
    }
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    byte[] b = new byte[n];
    in.readFully(b);
    return b;
  }

  private static String readText(DataInputStream in) throws IOException {
    return in.readBoolean()
        ? new String(readBytes(in), java.nio.charset.StandardCharsets.UTF_8)
        : null;
  }
}

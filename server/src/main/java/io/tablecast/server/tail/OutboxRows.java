package io.tablecast.server.tail;

import com.fasterxml.jackson.databind.JsonNode;
import io.tablecast.protocol.row.TextSlices;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.RowTextsFetch;
import io.tablecast.server.capture.SnapshotRead;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;

/** Reading helpers shared by every database's change source. */
public final class OutboxRows {
  private OutboxRows() {}

  /**
   * One outbox row of {@code table} with whole row images (PostgreSQL) as an event: {@code code}
   * its op code, {@code after} and {@code before} its parsed row images (null when absent), each
   * normalized and written in the row form of {@code n}'s table version once. The key is the after
   * image's (the before image's for a delete), taken from the encoded row.
   *
   * @throws IllegalStateException when a value does not convert, or the op lacks the image it needs
   */
  public static RowEvent event(
      String table, String code, RowNormalizer n, JsonNode after, JsonNode before) {
    if (code.equals(RowEvent.TRUNCATE_CODE)) {
      return new RowEvent.Truncate(table);
    }
    return event(table, code, n, n.encode(after), n.encode(before));
  }

  /**
   * An outbox row's event from its images already in the row form ({@code row} the new one, null
   * for a delete; {@code old} the old one, if recorded).
   */
  public static RowEvent event(String table, String code, RowNormalizer n, byte[] row, byte[] old) {
    if (code.equals(RowEvent.TRUNCATE_CODE)) {
      return new RowEvent.Truncate(table);
    }
    byte[] image = row != null ? row : old;
    if (image == null) {
      throw new IllegalStateException(
          "outbox row of " + table + " with op " + code + " has no row image");
    }
    byte[] key = n.form().keyOf(image);
    return row != null
        ? new RowEvent.Upsert(table, n.table(), key, row, old)
        : new RowEvent.Delete(table, n.table(), key, old);
  }

  /**
   * Streams every row of {@code tables} (of {@code plan}) in the connection's current transaction;
   * returns row counts. First tells the sink each table's size ({@link
   * ChangeSource.SnapshotSink#sizes}): the catalog's row estimate and the first {@link
   * TableSize#FIRST_ROWS} rows, read in the same transaction.
   */
  public static long readTables(
      CapturePlan plan,
      List<TableSchema> tables,
      Connection c,
      ChangeSource.SnapshotSink sink,
      Map<String, Long> counts)
      throws SQLException {
    sink.sizes(sizes(plan, tables, c));
    long total = 0;
    for (TableSchema t : tables) {
      sink.reading(t);
      long rows = eachRow(plan, c, t, row -> sink.row(t, row));
      counts.put(t.id().qualified(), rows);
      total += rows;
    }
    return total;
  }

  /** Each table's catalog row estimate and first rows, in the connection's transaction. */
  static List<TableSize> sizes(CapturePlan plan, List<TableSchema> tables, Connection c)
      throws SQLException {
    List<TableSize> out = new ArrayList<>();
    for (TableSchema t : tables) {
      RowNormalizer n = plan.normalizer(t.id().qualified());
      SnapshotRead read = plan.snapshotRead(t);
      int columns = read.shape().columns(t);
      List<byte[]> first = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(read.sql() + " LIMIT " + TableSize.FIRST_ROWS)) {
        while (rs.next()) {
          first.add(row(read.shape(), n, RowTextsFetch.texts(rs, columns)));
        }
      }
      out.add(new TableSize(t, plan.dialect().estimatedRows(c, t.id()), first));
    }
    return out;
  }

  /**
   * A whole row read as JSON, in the row form; a row that reads as NULL is refused loudly, never
   * taken for a missing row: MySQL and MariaDB's {@code JSON_OBJECT} returns NULL (with a warning)
   * when the row's JSON form is larger than {@code max_allowed_packet}.
   */
  public static byte[] present(RowNormalizer n, String json) {
    if (json == null) {
      throw new IllegalStateException(tooLarge(n.table().id().qualified(), null));
    }
    return n.encode(json);
  }

  /**
   * A row of a whole-table or range read in the row form: {@code texts} its texts in {@code shape}
   * (its JSON text alone, or one text per column).
   */
  public static byte[] row(SnapshotRead.Shape shape, RowNormalizer n, String[] texts) {
    return shape == SnapshotRead.Shape.JSON_TEXT
        ? present(n, texts[0])
        : n.encodeColumnTexts(texts);
  }

  /** Why a row of {@code table} (with {@code key}, when known) cannot be read, and the way out. */
  public static String tooLarge(String table, Object key) {
    return "a row of "
        + table
        + (key == null ? "" : " with key " + key)
        + " cannot be read: its JSON form is "
        + "larger than the database's max_allowed_packet (MySQL/MariaDB's JSON_OBJECT returns NULL then); raise "
        + "max_allowed_packet (SET GLOBAL max_allowed_packet, up to 1 GB) to cache it";
  }

  /**
   * Every row of one table in the connection's current transaction, in the row form like the
   * snapshot: a table re-read while serving, one of {@code reads} (its progress shown as a
   * snapshot's is, since the read holds the tail, and so every table's changes, for as long as the
   * table is large).
   */
  public static List<byte[]> readTable(
      CapturePlan plan, Connection c, TableSchema t, WholeReads reads) throws SQLException {
    List<byte[]> rows = new ArrayList<>();
    try (WholeReads.Read read = reads.start("re-read " + t.id().qualified())) {
      eachRow(
          plan,
          c,
          t,
          row -> {
            rows.add(row);
            read.row();
          });
    }
    return rows;
  }

  /**
   * Reads every row of {@code t} in the connection's transaction, each in the row form; the rows
   * are fetched and encoded on a reader thread while this one stores the rows encoded before
   * ({@link ReadAhead}).
   */
  private static long eachRow(CapturePlan plan, Connection c, TableSchema t, Consumer<byte[]> each)
      throws SQLException {
    RowNormalizer n = plan.normalizer(t.id().qualified());
    SnapshotRead read = plan.snapshotRead(t);
    try {
      return ReadAhead.forEach(
          c,
          plan.dialect().rowTextsFetch(),
          read.sql(),
          read.shape().columns(t),
          new ReadAhead.RowEncoder<byte[]>() {
            @Override
            public byte[] encode(String[] texts) {
              return row(read.shape(), n, texts);
            }

            @Override
            public byte[] encode(TextSlices row) {
              return read.shape() == SnapshotRead.Shape.JSON_TEXT
                  ? present(n, row.text(0))
                  : n.encodeColumnTexts(row);
            }
          },
          each::accept);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("reading " + t.id().qualified() + " was interrupted", e);
    }
  }

  public static void logSnapshot(
      Logger log, Map<String, Long> counts, long total, long startNanos, String position) {
    log.info(
        "Snapshot of {} rows in {} ms ({}), position {}",
        total,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos),
        counts,
        position);
  }

  public static CommittedBatch batch(List<RowEvent> events, long captureMillis) {
    return batch(events, captureMillis, List.of());
  }

  public static CommittedBatch batch(
      List<RowEvent> events, long captureMillis, List<CommittedBatch.TableRead> reads) {
    return batch(events, captureMillis, reads, List.of());
  }

  public static CommittedBatch batch(
      List<RowEvent> events,
      long captureMillis,
      List<CommittedBatch.TableRead> reads,
      List<CommittedBatch.Staleness> staleness) {
    return events.isEmpty() && reads.isEmpty() && staleness.isEmpty()
        ? CommittedBatch.EMPTY
        : new CommittedBatch(events, captureMillis, reads, staleness);
  }
}

package io.tablecast.server.tail;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.ChunkQuery;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.RowTextsFetch;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One key range of a reconciliation pass as {@link DriftCheck} hands it out: which table, where in
 * the pass, with which plan. Immutable, and {@link #read} touches no state of the tail, so it runs
 * on the tail thread or on the reconciliation thread alike ({@link DriftCheck#readOffPath}).
 */
final class RangeRead {
  /** What a read found. */
  sealed interface Outcome permits Rows, Altered, Failed {}

  /**
   * The range's rows in the row form of the range's table version, and the key the next range
   * resumes after (null: this range reached the table's end).
   */
  record Rows(List<byte[]> rows, List<String> lastKey) implements Outcome {}

  /** The catalog describes the table otherwise than the range was read with. */
  record Altered() implements Outcome {}

  /** The read failed (a database error, a row that cannot be encoded). */
  record Failed(String message) implements Outcome {}

  private final TableSchema table;
  private final CapturePlan plan;
  private final RowNormalizer normalizer;
  private final boolean first;
  private final List<String> after;
  private final int chunkRows;

  RangeRead(
      TableSchema table,
      CapturePlan plan,
      RowNormalizer normalizer,
      boolean first,
      List<String> after,
      int chunkRows) {
    this.table = table;
    this.plan = plan;
    this.normalizer = normalizer;
    this.first = first;
    this.after = after;
    this.chunkRows = chunkRows;
  }

  TableSchema table() {
    return table;
  }

  /** The range starts at the table's lowest key (a new pass). */
  boolean first() {
    return first;
  }

  /** Reads the range in {@code c}'s transaction (the snapshot of an outbox read). */
  Outcome read(Connection c) {
    List<byte[]> rows = new ArrayList<>();
    List<String> lastKey = null;
    long chars = 0;
    int keyColumns = table.primaryKey().size();
    ChunkQuery query = plan.chunkQuery(table, !first, chunkRows);
    int rowColumns = query.rowShape().columns(table);
    try (PreparedStatement ps = plan.prepareRead(c, query.sql())) {
      int[] parameters = query.parameterKeyColumns();
      for (int i = 0; i < parameters.length; i++) {
        ps.setObject(i + 1, after.get(parameters[i]), query.parameterSqlType());
      }
      ps.setFetchSize(1000);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String[] texts = RowTextsFetch.texts(rs, rowColumns);
          for (String text : texts) {
            chars += text == null ? 0 : text.length();
          }
          rows.add(OutboxRows.row(query.rowShape(), normalizer, texts));
          if (rows.size() == chunkRows
              || chars >= DriftCheck.CHUNK_CHARS) { // more may follow: the next range starts here
            lastKey = new ArrayList<>(keyColumns);
            for (int i = 0; i < keyColumns; i++) {
              lastKey.add(rs.getString(rowColumns + i + 1));
            }
            break;
          }
        }
      }
      // The range was read with the plan's columns and key: compared with an image of another
      // layout it would count the change as drift (a new key's duplicates of the old one as
      // repairs). The catalog is read after the range, in its transaction: the range's read holds
      // the table's metadata lock (MySQL/MariaDB) or AccessShareLock (PostgreSQL) until the end,
      // so no ALTER TABLE can come between what the range saw and this description.
      if (!plan.describeLayout(c, table.id()).equals(table)) {
        return new Altered();
      }
    } catch (SQLException | RuntimeException e) {
      return new Failed(e.getMessage());
    }
    return new Rows(rows, lastKey);
  }
}

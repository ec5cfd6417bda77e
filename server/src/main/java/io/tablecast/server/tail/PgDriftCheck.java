package io.tablecast.server.tail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL drift detection: every {@code reconcile_interval} one key range of one cached table
 * (at most {@link #CHUNK_ROWS} rows or about {@link #CHUNK_CHARS} characters of JSON, in
 * primary-key order) is read in the snapshot of an outbox
 * read, and the hub compares it with its image (see {@link CommittedBatch.Chunk}). Pass after
 * pass, table after table: a table of {@code n} rows is compared whole every
 * {@code ceil(n / CHUNK_ROWS)} intervals, and no interval reads more than one chunk, whatever
 * the tables' sizes. Each read is one index range scan (keyset pagination), never a full scan.
 *
 * <p>Triggers fire for every way a PostgreSQL row changes that the capture knows of; this check
 * finds what they did not see anyway (a trigger disabled and re-enabled between two capture
 * checks, a bug), names the keys, and repairs them. Confined to the tail thread.
 */
final class PgDriftCheck {
  private static final Logger LOG = LoggerFactory.getLogger(PgDriftCheck.class);

  /** Rows read per interval at most. */
  static final int CHUNK_ROWS = 10_000;

  /**
   * A chunk also ends once its rows' JSON reaches this many characters (16 Mi), so that a table
   * of large rows is checked in smaller ranges instead of holding 10,000 of them at once.
   */
  static final int CHUNK_CHARS = 16 * 1024 * 1024;

  private final CapturePlan plan;
  private final Duration interval;
  private final int chunkRows;
  private long lastRead = System.nanoTime();
  private int tableIndex;
  /** The key (as text) the next chunk starts after; null: the start of a pass. */
  private List<String> after;
  /** Where the cursor moves once the batch of the chunk just read is published ({@link #published}). */
  private int nextTableIndex;
  private List<String> nextAfter;

  PgDriftCheck(CapturePlan plan, Duration interval) {
    this(plan, interval, CHUNK_ROWS);
  }

  PgDriftCheck(CapturePlan plan, Duration interval, int chunkRows) {
    if (chunkRows < 1) {
      throw new IllegalArgumentException("chunk rows must be positive, was " + chunkRows);
    }
    this.plan = plan;
    this.interval = interval;
    this.chunkRows = chunkRows;
  }

  /** True when the next outbox read should read a chunk too. */
  boolean due() {
    return !interval.isZero() && !plan.tables().isEmpty() && System.nanoTime() - lastRead >= interval.toNanos();
  }

  /**
   * The snapshot just read every table: the next chunk is an interval away, and a pass under way
   * starts over (the hub forgot it with its images).
   */
  void snapshotTaken() {
    lastRead = System.nanoTime();
    after = null;
  }

  /**
   * The batch holding the chunk last {@link #read} was read in full and handed on: the next chunk
   * follows it. Until then a failed outbox read reads the same chunk again, so that no key range
   * of a pass goes missing (the hub would take its rows for deleted).
   */
  void published() {
    tableIndex = nextTableIndex;
    after = nextAfter;
  }

  /**
   * Reads the next chunk in {@code c}'s transaction (the outbox read's snapshot); {@link
   * #published} moves the cursor past it. Returns null when the table cannot be read now (altered
   * meanwhile: logged; the next pass starts at the next table).
   */
  CommittedBatch.TableRead read(Connection c) {
    lastRead = System.nanoTime();
    List<TableSchema> tables = plan.tables();
    TableSchema table = tables.get(Math.floorMod(tableIndex, tables.size()));
    RowNormalizer normalizer = plan.normalizer(table.id().qualified());
    boolean first = after == null;
    List<ObjectNode> rows = new ArrayList<>();
    List<String> lastKey = null;
    long chars = 0;
    int keyColumns = table.primaryKey().size();
    try (PreparedStatement ps = c.prepareStatement(plan.chunkQuery(table, !first, chunkRows))) {
      if (!first) {
        for (int i = 0; i < keyColumns; i++) {
          ps.setObject(i + 1, after.get(i), Types.OTHER); // unspecified: the server takes the column's type
        }
      }
      ps.setFetchSize(1000);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String json = rs.getString(1);
          chars += json.length();
          rows.add(normalizer.normalize(json));
          if (rows.size() == chunkRows || chars >= CHUNK_CHARS) { // more may follow: the next chunk starts here
            lastKey = new ArrayList<>(keyColumns);
            for (int i = 0; i < keyColumns; i++) {
              lastKey.add(rs.getString(i + 2));
            }
            break;
          }
        }
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Drift check of {} skipped, the next table follows: {}", table.id().qualified(), e.getMessage());
      nextTable();
      return null;
    }
    boolean last = lastKey == null;
    if (last) {
      nextTable();
    } else {
      nextTableIndex = tableIndex;
      nextAfter = lastKey;
    }
    return new CommittedBatch.TableRead(table, rows, CommittedBatch.Purpose.RECONCILE,
        new CommittedBatch.Chunk(first, last));
  }

  private void nextTable() {
    nextTableIndex = tableIndex + 1;
    nextAfter = null;
  }
}

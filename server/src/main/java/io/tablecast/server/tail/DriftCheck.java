package io.tablecast.server.tail;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.ChunkQuery;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * Reconciliation, both databases: {@link #RANGES_PER_INTERVAL} times every {@code
 * reconcile_interval}, evenly spaced, one key range of one cached table (at most {@link
 * #CHUNK_ROWS} rows or about {@link #CHUNK_CHARS} characters of JSON, in primary-key order) is read
 * in the snapshot of an outbox read, and the hub compares it with its image (see {@link
 * CommittedBatch.Chunk}). Use: {@link #prepare()} before the outbox read's transaction, {@link
 * #read} inside it, {@link #published()} after. Pass after pass, table after table: at most 10,000
 * rows an interval, so a table of {@code n} rows is compared whole about every {@code n / 10,000}
 * intervals; ranges that small hold the tail (and every change behind it) a few milliseconds each
 * rather than one range of 10,000 rows for tens of them (docs/BENCHMARKS.md). Each read is one
 * index range scan (keyset pagination), never a full scan, and never a whole table in memory.
 *
 * <p>It finds what the triggers did not see (MySQL/MariaDB TRUNCATE; a PostgreSQL trigger disabled
 * and enabled again inside one transaction; a bug), names the keys, and repairs them. Before a pass
 * over a table begins, {@link PassStart} may look at the table's catalog (MySQL/MariaDB follows an
 * ALTER TABLE there). Confined to the tail thread.
 */
public final class DriftCheck {
  private static final Logger LOG = RecentEvents.logger(DriftCheck.class);

  /** Ranges read per {@code reconcile_interval}, evenly spaced. */
  static final int RANGES_PER_INTERVAL = 10;

  /** Rows read per range at most. */
  static final int CHUNK_ROWS = 1_000;

  /**
   * A chunk also ends once its rows' JSON reaches this many characters (1.6 Mi), so that a table of
   * large rows is checked in smaller ranges instead of holding 1,000 of them at once.
   */
  static final int CHUNK_CHARS = 16 * 1024 * 1024 / RANGES_PER_INTERVAL;

  /** How the change source follows an ALTER TABLE that reconciliation comes across. */
  public interface PassStart {
    /**
     * Before a pass over a table begins: the description of {@code known} to read the pass with (a
     * new one after an ALTER TABLE, with the plan refreshed), or null to skip the table this time.
     */
    TableSchema begin(TableSchema known) throws SQLException;

    /**
     * A range of {@code known} was read in a snapshot where the catalog describes the table
     * otherwise (an ALTER TABLE committed before the snapshot, which nothing else has noticed yet):
     * the range is dropped, and the source follows the change at its next read.
     */
    void alteredDuringPass(TableSchema known);
  }

  private final Supplier<CapturePlan> plan;
  private final Duration interval;
  private final PassStart passStart;
  private final int chunkRows;
  private long lastRead = System.nanoTime();
  private int tableIndex;

  /**
   * The table of the pass under way (null: the next read starts a pass), and the key it resumes
   * after.
   */
  private TableSchema passTable;

  private List<String> after;

  /**
   * Where the cursor moves once the batch of the chunk just read is published ({@link #published}).
   */
  private int nextTableIndex;

  private TableSchema nextPassTable;
  private List<String> nextAfter;

  public DriftCheck(Supplier<CapturePlan> plan, Duration interval, PassStart passStart) {
    this(plan, interval, passStart, CHUNK_ROWS);
  }

  DriftCheck(Supplier<CapturePlan> plan, Duration interval, PassStart passStart, int chunkRows) {
    if (chunkRows < 1) {
      throw new IllegalArgumentException("chunk rows must be positive, was " + chunkRows);
    }
    this.plan = plan;
    this.interval = interval;
    this.passStart = passStart;
    this.chunkRows = chunkRows;
  }

  /** The table of a pass about to begin, readied by {@link #prepare()}. */
  private TableSchema starting;

  /**
   * True when the next outbox read should read a chunk too. Called before that read's transaction
   * begins: a pass about to begin runs its {@link PassStart} here, outside any snapshot, since it
   * may reinstall triggers (DDL that would wait for a transaction that has read the table).
   */
  public boolean prepare() throws SQLException {
    if (interval.isZero()
        || plan.get().tables().isEmpty()
        || System.nanoTime() - lastRead < interval.toNanos() / RANGES_PER_INTERVAL) {
      return false;
    }
    if (passTable == null && starting == null) {
      List<TableSchema> tables = plan.get().tables();
      starting = passStart.begin(tables.get(Math.floorMod(tableIndex, tables.size())));
      if (starting == null) {
        lastRead = System.nanoTime();
        tableIndex++;
        return false;
      }
    }
    return true;
  }

  /**
   * The snapshot just read every table: the next chunk is an interval away, and a pass under way
   * starts over (the hub forgot it with its images).
   */
  public void snapshotTaken() {
    lastRead = System.nanoTime();
    passTable = null;
    after = null;
    starting = null;
  }

  /**
   * The batch holding the chunk last {@link #read} was read in full and handed on: the next chunk
   * follows it. Until then a failed outbox read reads the same chunk again, so that no key range of
   * a pass goes missing (the hub would take its rows for deleted).
   */
  public void published() {
    tableIndex = nextTableIndex;
    passTable = nextPassTable;
    after = nextAfter;
    starting = null;
  }

  /** The table the next {@link #read} reads from, after {@link #prepare()} returned true. */
  public TableSchema table() {
    TableSchema table = passTable != null ? passTable : starting;
    if (table == null) {
      throw new IllegalStateException("no table before a successful prepare()");
    }
    return table;
  }

  /**
   * Reads the next chunk, after {@link #prepare()} returned true, in {@code c}'s transaction (the
   * outbox read's snapshot); {@link #published} moves the cursor past it. Returns null when the
   * table cannot be read now (altered meanwhile: logged; the next pass starts at the next table).
   */
  public CommittedBatch.TableRead read(Connection c) {
    lastRead = System.nanoTime();
    nextTableIndex = tableIndex;
    nextPassTable = passTable;
    nextAfter = after;
    TableSchema table = table();
    CapturePlan current = plan.get();
    RowNormalizer normalizer = current.normalizer(table.id().qualified());
    if (normalizer == null || !normalizer.table().equals(table)) {
      // its columns changed since the pass began (the table is queued for a resync with the new
      // ones): a range read with the old ones would hand the hub the old column list
      LOG.debug("Reconciliation of {} starts over: its columns changed", table.id().qualified());
      nextTable();
      return null;
    }
    boolean first = passTable == null;
    List<byte[]> rows = new ArrayList<>();
    List<String> lastKey = null;
    long chars = 0;
    int keyColumns = table.primaryKey().size();
    ChunkQuery query = current.chunkQuery(table, !first, chunkRows);
    int rowColumns = query.rowShape().columns(table);
    try (PreparedStatement ps = current.prepareRead(c, query.sql())) {
      int[] parameters = query.parameterKeyColumns();
      for (int i = 0; i < parameters.length; i++) {
        ps.setObject(i + 1, after.get(parameters[i]), query.parameterSqlType());
      }
      ps.setFetchSize(1000);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String[] texts = OutboxRows.texts(rs, rowColumns);
          for (String text : texts) {
            chars += text == null ? 0 : text.length();
          }
          rows.add(OutboxRows.row(query.rowShape(), normalizer, texts));
          if (rows.size() == chunkRows
              || chars >= CHUNK_CHARS) { // more may follow: the next chunk starts here
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
      if (!current.describeLayout(c, table.id()).equals(table)) {
        LOG.debug(
            "Reconciliation of {} starts over: the table was altered", table.id().qualified());
        passStart.alteredDuringPass(table);
        nextTable();
        return null;
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "Reconciliation of {} skipped, the next table follows: {}",
          table.id().qualified(),
          e.getMessage());
      nextTable();
      return null;
    }
    boolean last = lastKey == null;
    if (last) {
      nextTable();
    } else {
      nextPassTable = table;
      nextAfter = lastKey;
    }
    return new CommittedBatch.TableRead(
        table, rows, CommittedBatch.Purpose.RECONCILE, new CommittedBatch.Chunk(first, last));
  }

  private void nextTable() {
    nextTableIndex = tableIndex + 1;
    nextPassTable = null;
    nextAfter = null;
  }
}

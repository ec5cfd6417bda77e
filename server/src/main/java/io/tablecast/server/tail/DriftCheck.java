package io.tablecast.server.tail;

import io.tablecast.server.capture.BoundedAnswers;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;

/**
 * Reconciliation, both databases: {@link #RANGES_PER_INTERVAL} times every {@code
 * reconcile_interval}, evenly spaced, one key range of one cached table (at most {@link
 * #CHUNK_ROWS} rows or about {@link #CHUNK_CHARS} characters of JSON, in primary-key order) is read
 * in the snapshot of an outbox read, and the hub compares it with its image (see {@link
 * CommittedBatch.Chunk}). Use: {@link #prepare()} before each outbox read's transaction, {@link
 * #readOffPath} inside it when that returned true, and {@link #completed} on the batch of each read
 * that succeeded (or, the range on the path, {@link #read} and {@link #published()}). Pass after
 * pass, table after table: at most 10,000 rows an interval, so a table of {@code n} rows is
 * compared whole about every {@code n / 10,000} intervals; ranges that small cost the database, and
 * the hub that compares them, a few milliseconds each rather than tens for one range of 10,000 rows
 * (docs/BENCHMARKS.md). Each read is one index range scan (keyset pagination), never a full scan,
 * and never a whole table in memory.
 *
 * <p>It finds what the triggers did not see (MySQL/MariaDB TRUNCATE; a PostgreSQL trigger disabled
 * and enabled again inside one transaction; a bug), names the keys, and repairs them. Before a pass
 * over a table begins, {@link PassStart} may look at the table's catalog (MySQL/MariaDB follows an
 * ALTER TABLE there). Confined to the tail thread, but for the read of a range {@link
 * #readOffPath}.
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

  /**
   * How long a range read off the tail's path, and the end of its transaction, may wait for an
   * answer ({@code answer_timeout}): a range is short by nature (an index range of at most {@link
   * #CHUNK_ROWS} rows), and one given up is read in a later pass. Without a bound a connection gone
   * silent under it (a host gone without a word, a NAT that forgot the connection) kept the range
   * in flight for ever: no range was read again, and reconciliation stopped without a word.
   */
  private final Duration rangeAnswerWithin;

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

  /** The reconciliation thread, started by the first {@link #readOffPath}. */
  private ExecutorService reader;

  /** The range read off the tail's path, until a batch takes it ({@link #follow}), or null. */
  private RangeInFlight inFlight;

  /** The outbox read under way began with a range in flight: its batch follows that range. */
  private boolean readFollowsRange;

  /** The outbox read under way began a range (read, read off the path, or found unreadable). */
  private boolean readBeganRange;

  /**
   * A pass over one table every {@code interval}, its ranges read off the tail's path given up
   * after {@code rangeAnswerWithin} without an answer.
   */
  public DriftCheck(
      Supplier<CapturePlan> plan,
      Duration interval,
      Duration rangeAnswerWithin,
      PassStart passStart) {
    this(plan, interval, rangeAnswerWithin, passStart, CHUNK_ROWS);
  }

  /** Tests: ranges of {@code chunkRows}. */
  DriftCheck(
      Supplier<CapturePlan> plan,
      Duration interval,
      Duration rangeAnswerWithin,
      PassStart passStart,
      int chunkRows) {
    if (chunkRows < 1) {
      throw new IllegalArgumentException("chunk rows must be positive, was " + chunkRows);
    }
    this.plan = plan;
    this.interval = interval;
    this.passStart = passStart;
    this.chunkRows = chunkRows;
    this.rangeAnswerWithin = rangeAnswerWithin;
  }

  /** The table of a pass about to begin, readied by {@link #prepare()}. */
  private TableSchema starting;

  /**
   * True when the next outbox read should read a chunk too. Called before that read's transaction
   * begins: a pass about to begin runs its {@link PassStart} here, outside any snapshot, since it
   * may reinstall triggers (DDL that would wait for a transaction that has read the table).
   */
  public boolean prepare() throws SQLException {
    readFollowsRange = inFlight != null;
    readBeganRange = false;
    if (inFlight != null
        || interval.isZero()
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
    inFlight = null; // its read ends on its own; the hub forgot the pass with its images
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
    RangeRead range = begin();
    return range == null ? null : finish(range, range.read(c), UnaryOperator.identity());
  }

  /**
   * Like {@link #read}, but on the reconciliation thread: the outbox read that took {@code c}'s
   * snapshot hands its batch on at once instead of waiting for the range (tens of milliseconds on
   * PostgreSQL, and every change committed meanwhile waited with it). That thread reads the range
   * in {@code c}'s transaction, ends it with {@code end} and closes {@code c}; the range comes with
   * a later batch, brought forward to it ({@link #follow}). Returns false, {@code c} left to the
   * caller, when there is nothing to read (as {@link #read} returning null; call {@link #published}
   * after the batch as then).
   */
  public boolean readOffPath(Connection c, TransactionEnd end, AbandonedSessions abandoned) {
    RangeRead range = begin();
    if (range == null) {
      return false;
    }
    if (reader == null) {
      reader =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, "tablecast-reconcile");
                t.setDaemon(true);
                return t;
              });
    }
    inFlight = new RangeInFlight(range, reader.submit(() -> readAndEnd(range, c, end, abandoned)));
    return true;
  }

  /** Ends the transaction of an off-path range read: commits or rolls back. */
  @FunctionalInterface
  public interface TransactionEnd {
    void end(Connection c) throws SQLException;
  }

  private RangeRead.Outcome readAndEnd(
      RangeRead range, Connection c, TransactionEnd end, AbandonedSessions abandoned) {
    RangeRead.Outcome outcome = null;
    try {
      BoundedAnswers.bound(c, rangeAnswerWithin); // the question of abandoned.of too
      Runnable endSession = abandoned.of(c);
      long began = System.nanoTime();
      outcome = range.read(c);
      if (outcome instanceof RangeRead.Failed failed
          && System.nanoTime() - began >= rangeAnswerWithin.toNanos()) {
        endSession.run(); // its transaction, and the table's lock, would stay open there
        outcome =
            new RangeRead.Failed(
                "no answer within "
                    + rangeAnswerWithin.toSeconds()
                    + " s ("
                    + failed.message()
                    + ")");
      }
      end.end(c); // a transaction begun by a statement: the pool would not end it
      return outcome;
    } catch (SQLException | RuntimeException e) {
      // ending a read-only transaction: the rows read are the snapshot's all the same, but a
      // range that failed is dropped either way, and a failed end is rare enough to drop it too
      return outcome instanceof RangeRead.Failed ? outcome : new RangeRead.Failed(e.getMessage());
    } finally {
      try {
        c.close();
      } catch (SQLException e) { // the pool evicts it
        LOG.debug("Closing a reconciliation range's connection failed: {}", e.toString());
      }
    }
  }

  /**
   * The outbox read that began with the last {@link #prepare()} succeeded: returns its batch as it
   * is to be handed on. A range in flight since an earlier read is brought forward to it ({@link
   * #follow}; the batch of the read whose snapshot the range is read in needs no following), and a
   * range read on the path, or found unreadable, moves the cursor ({@link #published}). A read that
   * failed calls nothing: the next one reads the same range again, or follows the one in flight.
   */
  public CommittedBatch completed(CommittedBatch batch) {
    if (readFollowsRange) {
      readFollowsRange = false;
      return follow(batch);
    }
    if (readBeganRange && inFlight == null) {
      published();
    }
    readBeganRange = false;
    return batch;
  }

  /** True while a range is read off the tail's path ({@link #prepare()} then reads none). */
  public boolean inFlight() {
    return inFlight != null;
  }

  /**
   * {@code batch}, read after the snapshot of the range in flight, is about to be handed on:
   * returns it, with the range once read, brought forward to it, and moves the cursor past the
   * range.
   */
  public CommittedBatch follow(CommittedBatch batch) {
    RangeInFlight range = inFlight;
    if (range == null) {
      return batch;
    }
    range.follow(batch);
    if (!range.isDone()) {
      return batch;
    }
    inFlight = null;
    CommittedBatch.TableRead read;
    if (range.dropped() != null) {
      LOG.debug(
          "Reconciliation of {} starts over: its range was {} while it was read",
          range.range().table().id().qualified(),
          range.dropped());
      nextTable();
      read = null;
    } else {
      read = finish(range.range(), range.outcome(), range::broughtForward);
    }
    published();
    return read == null ? batch : batch.withTableRead(read);
  }

  /**
   * Where a pass is, as the tail thread left it, and the range that follows: null when the table
   * cannot be read now (its columns changed since the pass began).
   */
  private RangeRead begin() {
    readBeganRange = true;
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
    return new RangeRead(table, current, normalizer, passTable == null, after, chunkRows);
  }

  /** What the hub is handed for a range read, and where the pass goes next. */
  private CommittedBatch.TableRead finish(
      RangeRead range, RangeRead.Outcome outcome, UnaryOperator<List<byte[]>> rows) {
    TableSchema table = range.table();
    if (outcome instanceof RangeRead.Altered) {
      LOG.debug("Reconciliation of {} starts over: the table was altered", table.id().qualified());
      passStart.alteredDuringPass(table);
      nextTable();
      return null;
    }
    if (outcome instanceof RangeRead.Failed failed) {
      LOG.warn(
          "Reconciliation of {} skipped, the next table follows: {}",
          table.id().qualified(),
          failed.message());
      nextTable();
      return null;
    }
    RangeRead.Rows read = (RangeRead.Rows) outcome;
    boolean last = read.lastKey() == null;
    if (last) {
      nextTable();
    } else {
      nextPassTable = table;
      nextAfter = read.lastKey();
    }
    return new CommittedBatch.TableRead(
        table,
        rows.apply(read.rows()),
        CommittedBatch.Purpose.RECONCILE,
        new CommittedBatch.Chunk(range.first(), last));
  }

  /** Stops the reconciliation thread (a read under way ends with its connection's pool). */
  public void close() {
    if (reader != null) {
      reader.shutdownNow();
    }
  }

  private void nextTable() {
    nextTableIndex = tableIndex + 1;
    nextPassTable = null;
    nextAfter = null;
  }
}

package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** An in-memory change source (a test double of the database side): rows and queued batches. */
public final class FakeChangeSource implements ChangeSource {

  public static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final Map<TableSchema, List<ObjectNode>> initial = new LinkedHashMap<>();
  private final LinkedBlockingQueue<Object> pending = new LinkedBlockingQueue<>();
  public final AtomicBoolean closed = new AtomicBoolean();

  private String holdAfter;
  private CountDownLatch gate;

  /** Tables the server asked to have re-read ({@link #resync}) and not yet re-read, in order. */
  public final List<String> resyncs = new CopyOnWriteArrayList<>();

  /** What a re-read returns per table, when it differs from the snapshot's rows. */
  private final Map<String, List<ObjectNode>> rowsNow = new ConcurrentHashMap<>();

  public final AtomicInteger polls = new AtomicInteger();

  /** A table {@code public.<name>} with columns id (bigint, key) and name (text). */
  public static TableSchema table(String name) {
    return new TableSchema(
        new TableId("public", name),
        List.of(
            new ColumnInfo("id", "int8", ColumnKind.INTEGER),
            new ColumnInfo("name", "text", ColumnKind.STRING)),
        List.of("id"));
  }

  public static ObjectNode row(long id, String name) {
    ObjectNode row = NODES.objectNode();
    row.put("id", id);
    row.put("name", name);
    return row;
  }

  /** The table {@link #table} describes under its qualified name {@code public.<name>}. */
  public static TableSchema schemaOf(String qualified) {
    return table(qualified.substring(qualified.indexOf('.') + 1));
  }

  /** {@link #row} in the row form of {@link #table}. */
  public static byte[] bytes(long id, String name) {
    return Rows.bytes(table("any"), row(id, name));
  }

  /** The key of row {@code id} in the row form of {@link #table}. */
  public static byte[] key(long id) {
    return Rows.form(table("any")).encodeKey(NODES.objectNode().put("id", id));
  }

  public static RowEvent insert(String table, long id, String name) {
    return new RowEvent.Upsert(table, schemaOf(table), key(id), bytes(id, name), null);
  }

  public static RowEvent update(String table, long id, String oldName, String name) {
    return new RowEvent.Upsert(
        table, schemaOf(table), key(id), bytes(id, name), bytes(id, oldName));
  }

  public static RowEvent delete(String table, long id, String oldName) {
    return new RowEvent.Delete(table, schemaOf(table), key(id), bytes(id, oldName));
  }

  /**
   * A table {@code public.<name>} with columns id (bigint, key), name (text) and note (text,
   * nullable).
   */
  public static TableSchema tableWithNote(String name) {
    return new TableSchema(
        new TableId("public", name),
        List.of(
            new ColumnInfo("id", "int8", ColumnKind.INTEGER),
            new ColumnInfo("name", "text", ColumnKind.STRING),
            new ColumnInfo("note", "text", ColumnKind.STRING)),
        List.of("id"));
  }

  /**
   * An upsert of {@code after} (an UPDATE from {@code before} when not null) in a table of any
   * layout.
   */
  public static RowEvent upsert(TableSchema table, ObjectNode before, ObjectNode after) {
    byte[] row = Rows.bytes(table, after);
    return new RowEvent.Upsert(
        table.id().qualified(),
        table,
        Rows.form(table).keyOf(row),
        row,
        before == null ? null : Rows.bytes(table, before));
  }

  /** A delete of {@code before} in a table of any layout. */
  public static RowEvent delete(TableSchema table, ObjectNode before) {
    byte[] row = Rows.bytes(table, before);
    return new RowEvent.Delete(table.id().qualified(), table, Rows.form(table).keyOf(row), row);
  }

  /** Rows in the JSON form, in the row form of {@code schema}. */
  public static List<byte[]> bytes(TableSchema schema, List<ObjectNode> rows) {
    return rows.stream().map(r -> Rows.bytes(schema, r)).toList();
  }

  public FakeChangeSource withTable(TableSchema schema, int rows) {
    return withTable(schema, rows, i -> "row" + i);
  }

  /**
   * A table with rows 1..rows whose names {@code name} gives (e.g. long ones, for big snapshots).
   */
  public FakeChangeSource withTable(
      TableSchema schema, int rows, java.util.function.LongFunction<String> name) {
    List<ObjectNode> list = new ArrayList<>();
    for (int i = 1; i <= rows; i++) {
      list.add(row(i, name.apply(i)));
    }
    initial.put(schema, list);
    return this;
  }

  /** Queues a committed transaction for the next poll. */
  public void commit(RowEvent... events) {
    pending.add(new CommittedBatch(List.of(events), System.currentTimeMillis()));
  }

  /** From now on a re-read of {@code table} returns {@code rows} (the table changed meanwhile). */
  public void tableHolds(TableSchema table, List<ObjectNode> rows) {
    rowsNow.put(table.id().qualified(), List.copyOf(rows));
  }

  /**
   * Delivers the re-reads asked for so far: one batch with a {@link CommittedBatch.Purpose#RESYNC}
   * read of each table, as a later poll of a database source would.
   */
  public void completeResyncs() {
    List<CommittedBatch.TableRead> reads = new ArrayList<>();
    for (String table : resyncs) {
      initial.forEach(
          (schema, rows) -> {
            if (schema.id().qualified().equals(table)) {
              reads.add(
                  new CommittedBatch.TableRead(
                      schema,
                      bytes(schema, rowsNow.getOrDefault(table, rows)),
                      CommittedBatch.Purpose.RESYNC));
            }
          });
    }
    resyncs.clear();
    pending.add(new CommittedBatch(List.of(), System.currentTimeMillis(), reads));
  }

  /** Makes the next poll fail as if the database were down. */
  public void failNextPoll(String message) {
    pending.add(new SQLException(message));
  }

  /** Makes the next poll fail with an exception that is not a database error (a bug, bad data). */
  public void failNextPollUnexpectedly(RuntimeException e) {
    pending.add(e);
  }

  public boolean drained() {
    return pending.isEmpty();
  }

  @Override
  public List<TableSchema> tables() {
    return new ArrayList<>(initial.keySet());
  }

  @Override
  public void snapshot(SnapshotSink sink) {
    initial.forEach(
        (t, rows) -> {
          rows.forEach(r -> sink.row(t, Rows.bytes(t, r)));
          holdAfter(t);
        });
  }

  /** The snapshot read stops after the rows of {@code table} until {@code gate} opens. */
  public FakeChangeSource holdSnapshotAfter(String table, CountDownLatch gate) {
    this.holdAfter = table;
    this.gate = gate;
    return this;
  }

  private void holdAfter(TableSchema t) {
    if (gate != null && t.id().qualified().equals(holdAfter)) {
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the snapshot was held", e);
      }
    }
  }

  /** Records the request; {@link #completeResyncs()} delivers the re-read. */
  @Override
  public void resync(String table) {
    resyncs.add(table);
  }

  @Override
  public CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException {
    polls.incrementAndGet();
    Object next = pending.poll(maxWait.toMillis(), TimeUnit.MILLISECONDS);
    if (next instanceof SQLException) {
      throw (SQLException) next;
    }
    if (next instanceof RuntimeException) {
      throw (RuntimeException) next;
    }
    return next == null ? CommittedBatch.EMPTY : (CommittedBatch) next;
  }

  @Override
  public void close() {
    closed.set(true);
  }
}

package io.tablecast.server.hub;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
  public final AtomicInteger polls = new AtomicInteger();

  /** A table {@code public.<name>} with columns id (bigint, key) and name (text). */
  public static TableSchema table(String name) {
    return new TableSchema(new TableId("public", name), List.of(new ColumnInfo("id", "int8", ColumnKind.INTEGER),
        new ColumnInfo("name", "text", ColumnKind.STRING)), List.of("id"));
  }

  public static ObjectNode row(long id, String name) {
    ObjectNode row = NODES.objectNode();
    row.put("id", id);
    row.put("name", name);
    return row;
  }

  public static RowEvent insert(String table, long id, String name) {
    return new RowEvent(table, Op.INSERT, null, row(id, name));
  }

  public static RowEvent update(String table, long id, String oldName, String name) {
    return new RowEvent(table, Op.UPDATE, row(id, oldName), row(id, name));
  }

  public static RowEvent delete(String table, long id, String oldName) {
    return new RowEvent(table, Op.DELETE, row(id, oldName), null);
  }

  public FakeChangeSource withTable(TableSchema schema, int rows) {
    return withTable(schema, rows, i -> "row" + i);
  }

  /** A table with rows 1..rows whose names {@code name} gives (e.g. long ones, for big snapshots). */
  public FakeChangeSource withTable(TableSchema schema, int rows, java.util.function.LongFunction<String> name) {
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
    initial.forEach((t, rows) -> rows.forEach(r -> sink.row(t, r)));
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

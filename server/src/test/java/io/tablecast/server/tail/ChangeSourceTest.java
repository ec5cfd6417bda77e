package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The tailing guarantees of DESIGN.md "Tailing without loss", against real databases. */
class ChangeSourceTest {
  private static final Map<Kind, TestDatabases.Isolated> DBS = new EnumMap<>(Kind.class);

  private static synchronized TestDatabases.Isolated db(Kind kind) {
    return DBS.computeIfAbsent(kind, k -> k.isolated("tail"));
  }

  private static ChangeSource open(TestDatabases.Isolated db, String table) throws Exception {
    db.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, v INT NOT NULL, note VARCHAR(40))");
    ChangeSource source =
        ChangeSources.open(
            new SourceConfig(db.jdbcUrl(), null, null, List.of(table), true, null, null));
    return source;
  }

  /** Polls until {@code until} holds for the collected events. */
  private static List<RowEvent> collect(
      ChangeSource source,
      List<RowEvent> events,
      java.util.function.Predicate<List<RowEvent>> until) {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              events.addAll(source.poll(Duration.ofMillis(50)).events());
              return until.test(events);
            });
    return events;
  }

  private static int id(ObjectNode row) {
    return row.get("id").asInt();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void insertUpdateDeleteAreDelivered(Kind kind) throws Exception {
    TestDatabases.Isolated db = db(kind);
    try (ChangeSource source = open(db, "basic")) {
      source.snapshot((t, row) -> {});
      List<RowEvent> events = new ArrayList<>();
      db.execute("INSERT INTO basic VALUES (1, 10, 'one')");
      collect(source, events, e -> e.size() >= 1);
      db.execute("UPDATE basic SET v = 11 WHERE id = 1");
      collect(source, events, e -> e.size() >= 2);
      db.execute("DELETE FROM basic WHERE id = 1");
      collect(source, events, e -> e.size() >= 3);
      assertThat(events).extracting(RowEvent::table).containsOnly(db.table("basic"));
      assertThat(Rows.after(events.get(0)).get("v").asInt()).isEqualTo(10);
      assertThat(Rows.after(events.get(1)).get("v").asInt()).isEqualTo(11);
      assertThat(Rows.after(events.get(2))).isNull();
      assertThat(id(Rows.before(events.get(2)))).isEqualTo(1);
      if (kind
          == Kind
              .POSTGRESQL) { // whole images; MySQL reports each row's state (the hub has the rest)
        assertThat(events)
            .extracting(RowEvent::op)
            .containsExactly(Op.INSERT, Op.UPDATE, Op.DELETE);
        assertThat(Rows.before(events.get(1)).get("v").asInt()).isEqualTo(10);
        assertThat(Rows.before(events.get(2)).get("v").asInt()).isEqualTo(11);
      } else {
        assertThat(events)
            .extracting(RowEvent::op)
            .containsExactly(Op.INSERT, Op.INSERT, Op.DELETE);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void severalChangesOfOneRowInOneReadArriveAsItsLatestState(Kind kind) throws Exception {
    TestDatabases.Isolated db = db(kind);
    try (ChangeSource source = open(db, "net")) {
      source.snapshot((t, row) -> {});
      db.execute("INSERT INTO net VALUES (1, 1, 'a'), (2, 1, 'b')");
      collect(source, new ArrayList<>(), e -> e.size() >= 2);
      try (Connection c = db.connect();
          Statement s = c.createStatement()) { // one transaction, one read
        c.setAutoCommit(false);
        s.execute("UPDATE net SET v = 2 WHERE id = 1");
        s.execute("UPDATE net SET v = 3 WHERE id = 1");
        s.execute("DELETE FROM net WHERE id = 2");
        s.execute("INSERT INTO net VALUES (3, 1, 'c')");
        s.execute("DELETE FROM net WHERE id = 3");
        c.commit();
      }
      List<RowEvent> events = collect(source, new ArrayList<>(), e -> !e.isEmpty());
      Map<Integer, ObjectNode> image = new HashMap<>(Map.of(1, row(1, 1, "a"), 2, row(2, 1, "b")));
      List<String> violations = new ArrayList<>();
      for (RowEvent e : events) {
        apply(kind, image, e, violations);
      }
      assertThat(violations).isEmpty();
      assertThat(image).containsOnlyKeys(1);
      assertThat(image.get(1).get("v").asInt()).isEqualTo(3);
      if (kind == Kind.MYSQL) {
        assertThat(events).as("one event per changed row").hasSize(3);
      }
    }
  }

  /**
   * A pool whose connection close fails once when asked, after the real close: a killed session.
   */
  private static final class FailingClosePool extends com.zaxxer.hikari.HikariDataSource {
    final AtomicBoolean failNextClose = new AtomicBoolean();

    FailingClosePool(com.zaxxer.hikari.HikariConfig config) {
      super(config);
    }

    @Override
    public Connection getConnection() throws java.sql.SQLException {
      Connection real = super.getConnection();
      return (Connection)
          java.lang.reflect.Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (proxy, method, args) -> {
                try {
                  Object result = method.invoke(real, args);
                  if (method.getName().equals("close")
                      // only the poll's: the source's own threads (pruner, capture watch,
                      // reconciliation) use the same pool and would otherwise take the failure
                      && !Thread.currentThread().getName().startsWith("tablecast-")
                      && failNextClose.getAndSet(false)) {
                    throw new java.sql.SQLException(
                        "closing the connection failed (injected)", "08006");
                  }
                  return result;
                } catch (java.lang.reflect.InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aReadWhoseConnectionFailsToCloseLosesNothing(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("tail_close");
    db.execute("CREATE TABLE closing (id INT PRIMARY KEY, v INT NOT NULL, note VARCHAR(40))");
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("closing"), true, null, null);
    FailingClosePool[] pool = new FailingClosePool[1];
    try (ChangeSource source =
        ChangeSources.open(
            config,
            io.tablecast.server.metrics.MicrometerServerMetrics.inMemory(),
            ChangeSources.Tuning.DEFAULT.withPools(hc -> pool[0] = new FailingClosePool(hc)))) {
      source.snapshot((t, row) -> {});
      db.execute("INSERT INTO closing VALUES (1, 1, 'x')");
      List<RowEvent> events = new ArrayList<>();
      AtomicInteger failures = new AtomicInteger();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                pool[0].failNextClose.set(
                    failures.get() == 0); // the read that finds the row fails to close
                try {
                  events.addAll(source.poll(Duration.ofMillis(50)).events());
                } catch (java.sql.SQLException e) {
                  failures.incrementAndGet();
                }
                return !events.isEmpty();
              });
      if (kind == Kind.MYSQL) {
        // The read that found the row keeps its snapshot open for the next read (ReadSnapshots):
        // its connection is closed after the batch left, by a later read, which a failure then
        // fails, neither delivering the row again nor losing the next one
        assertThat(failures.get()).as("the batch left before its connection was closed").isZero();
        pool[0].failNextClose.set(true);
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> {
                  try {
                    assertThat(source.poll(Duration.ofMillis(50)).events()).isEmpty();
                  } catch (java.sql.SQLException e) {
                    failures.incrementAndGet();
                  }
                  return !pool[0].failNextClose.get();
                });
        assertThat(failures.get()).as("the held read's close failed").isPositive();
        db.execute("INSERT INTO closing VALUES (2, 2, 'y')");
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> {
                  events.addAll(source.poll(Duration.ofMillis(50)).events());
                  return events.size() > 1;
                });
        assertThat(events).extracting(e -> id(Rows.after(e))).containsExactly(1, 2);
      } else {
        assertThat(failures.get()).as("a read failed on close").isPositive();
        assertThat(events).extracting(e -> id(Rows.after(e))).containsExactly(1);
      }
    }
  }

  private static ObjectNode row(int id, int v, String note) {
    ObjectNode row = io.tablecast.protocol.MessageCodec.jsonMapper().createObjectNode();
    row.put("id", (long) id);
    row.put("v", (long) v);
    row.put("note", note);
    return row;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void rolledBackTransactionIsNeverDeliveredAndItsHoleDoesNotBlockLaterEvents(Kind kind)
      throws Exception {
    TestDatabases.Isolated db = db(kind);
    try (ChangeSource source = open(db, "rollback");
        Connection writer = db.connect()) {
      source.snapshot((t, row) -> {});
      writer.setAutoCommit(false);
      try (Statement s = writer.createStatement()) {
        s.execute("INSERT INTO rollback VALUES (1, 1, 'rolled back')");
        s.execute("INSERT INTO rollback VALUES (2, 1, 'rolled back')");
      }
      List<RowEvent> events = new ArrayList<>();
      events.addAll(
          source.poll(Duration.ofMillis(50)).events()); // the poller sees the hole while it is open
      writer.rollback();
      for (int i = 3; i <= 5; i++) {
        db.execute("INSERT INTO rollback VALUES (" + i + ", 1, 'committed')");
      }
      collect(source, events, e -> e.size() >= 3);
      for (int i = 0; i < 5; i++) {
        events.addAll(source.poll(Duration.ofMillis(20)).events());
      }
      assertThat(events).extracting(e -> id(Rows.after(e))).containsExactly(3, 4, 5);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void transactionWithLowerIdCommittingLateIsStillDelivered(Kind kind) throws Exception {
    TestDatabases.Isolated db = db(kind);
    try (ChangeSource source = open(db, "late");
        Connection slow = db.connect()) {
      source.snapshot((t, row) -> {});
      slow.setAutoCommit(false);
      try (Statement s = slow.createStatement()) {
        s.execute("INSERT INTO late VALUES (1, 1, 'slow')"); // takes the lower outbox id
      }
      db.execute("INSERT INTO late VALUES (2, 1, 'fast')");
      List<RowEvent> events = collect(source, new ArrayList<>(), e -> !e.isEmpty());
      assertThat(events).extracting(e -> id(Rows.after(e))).containsExactly(2);
      long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      while (System.nanoTime() < until) { // keep polling while the slow transaction stays open
        events.addAll(source.poll(Duration.ofMillis(100)).events());
      }
      assertThat(events).hasSize(1);
      slow.commit();
      collect(source, events, e -> e.size() >= 2);
      db.execute("UPDATE late SET v = 2 WHERE id = 1");
      collect(source, events, e -> e.size() >= 3);
      assertThat(events).extracting(e -> id(Rows.after(e))).containsExactly(2, 1, 1);
      assertThat(Rows.after(events.get(2)).get("v").asInt()).isEqualTo(2);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void transactionOpenDuringSnapshotWithTheLowestIdIsDeliveredOnceAfterIt(Kind kind)
      throws Exception {
    TestDatabases.Isolated db = kind.isolated("tail_open"); // own outbox: the open row takes id 1
    db.execute("CREATE TABLE opened (id INT PRIMARY KEY, v INT NOT NULL, note VARCHAR(40))");
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("opened"), true, null, null);
    try (ChangeSource source = ChangeSources.open(config);
        Connection slow = db.connect()) {
      slow.setAutoCommit(false);
      try (Statement s = slow.createStatement()) {
        s.execute("INSERT INTO opened VALUES (1, 1, 'open during snapshot')");
      }
      db.execute("INSERT INTO opened VALUES (2, 1, 'before snapshot')");
      Map<Integer, ObjectNode> image = new HashMap<>();
      source.snapshot((t, row) -> image.put(id(Rows.json(t, row)), Rows.json(t, row)));
      assertThat(image).containsOnlyKeys(2);
      slow.commit();
      db.execute("INSERT INTO opened VALUES (3, 1, 'after')");
      List<RowEvent> events = collect(source, new ArrayList<>(), e -> e.size() >= 2);
      for (int i = 0; i < 5; i++) {
        events.addAll(source.poll(Duration.ofMillis(20)).events());
      }
      assertThat(events).extracting(e -> id(Rows.after(e))).containsExactlyInAnyOrder(1, 3);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void snapshotAndStreamMeetWithoutGapOrDuplicateUnderConcurrentWrites(Kind kind) throws Exception {
    TestDatabases.Isolated db = db(kind);
    ExecutorService writers = Executors.newFixedThreadPool(3);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger nextId = new AtomicInteger(1);
    try (ChangeSource source = open(db, "seam")) {
      List<Future<?>> running = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        running.add(
            writers.submit(
                () -> {
                  try (Connection c = db.connect();
                      Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    while (!stop.get()) {
                      int id = nextId.getAndIncrement();
                      try {
                        s.execute("INSERT INTO seam VALUES (" + id + ", 0, 'new')");
                        s.execute("UPDATE seam SET v = v + 1 WHERE id = " + Math.max(1, id - 7));
                        if (id % 5 == 0) {
                          s.execute("DELETE FROM seam WHERE id = " + (id - 3));
                        }
                      } catch (java.sql.SQLTransactionRollbackException deadlock) {
                        // the writers touch each other's rows: InnoDB may pick one as a deadlock
                        // victim
                        c.rollback();
                        continue;
                      }
                      if (id % 11 == 0) {
                        c.rollback();
                      } else {
                        c.commit();
                      }
                    }
                  }
                  return null;
                }));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> nextId.get() > 300);
      Map<Integer, ObjectNode> image = new HashMap<>();
      source.snapshot((t, row) -> image.put(id(Rows.json(t, row)), Rows.json(t, row)));
      await().atMost(Duration.ofSeconds(10)).until(() -> nextId.get() > 600);
      stop.set(true);
      for (Future<?> f : running) {
        f.get();
      }
      List<String> violations = new ArrayList<>();
      Map<Integer, ObjectNode> expected = selectAll(db);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                for (RowEvent e : source.poll(Duration.ofMillis(50)).events()) {
                  apply(kind, image, e, violations);
                }
                return image.equals(expected) || !violations.isEmpty();
              });
      assertThat(violations).isEmpty();
      assertThat(image).isEqualTo(expected);
    } finally {
      stop.set(true);
      writers.shutdownNow();
    }
  }

  /**
   * Applies an event, recording anything that shows a lost or duplicated change. PostgreSQL events
   * carry whole images, so each must match the row it replaces. MySQL events are row states
   * (present or gone), so the check is that every state is the one the table ends with or a later
   * read replaces: the final comparison with the table.
   */
  private static void apply(
      Kind kind, Map<Integer, ObjectNode> image, RowEvent e, List<String> violations) {
    int id = id(e.op() == Op.DELETE ? Rows.before(e) : Rows.after(e));
    ObjectNode current = image.get(id);
    if (kind == Kind.MYSQL) {
      if (e.op() == Op.DELETE) {
        image.remove(id);
      } else {
        image.put(id, Rows.after(e));
      }
      return;
    }
    switch (e.op()) {
      case INSERT:
        if (current != null) {
          violations.add("duplicate insert of " + id);
        }
        image.put(id, Rows.after(e));
        break;
      case UPDATE:
        if (!Rows.before(e).equals(current)) {
          violations.add(
              "update of " + id + " from " + Rows.before(e) + " but image holds " + current);
        }
        image.put(id, Rows.after(e));
        break;
      default:
        if (!Rows.before(e).equals(current)) {
          violations.add(
              "delete of " + id + " from " + Rows.before(e) + " but image holds " + current);
        }
        image.remove(id);
    }
  }

  private static Map<Integer, ObjectNode> selectAll(TestDatabases.Isolated db) throws Exception {
    Map<Integer, ObjectNode> rows = new HashMap<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, v, note FROM seam")) {
      while (rs.next()) {
        ObjectNode row = io.tablecast.protocol.MessageCodec.jsonMapper().createObjectNode();
        row.put("id", rs.getLong(1));
        row.put("v", rs.getLong(2));
        row.put("note", rs.getString(3));
        rows.put(rs.getInt(1), row);
      }
    }
    return rows;
  }
}

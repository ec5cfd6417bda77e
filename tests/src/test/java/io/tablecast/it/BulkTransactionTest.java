package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transaction of a quarter million rows (an {@code UPDATE} of every row, as a price change or a
 * backfill is; a million with {@code -Dtablecast.bulk.rows=1000000}), many times the slow-consumer
 * limit, reaches every mirror whole, while another table's changes keep coming and its mirror keeps
 * being read. It used to cut every client off as a slow consumer, which resumed before the batch
 * and was cut off again, for ever.
 */
class BulkTransactionTest {

  private static final Logger LOG = LoggerFactory.getLogger(BulkTransactionTest.class);

  /**
   * Rows of the table, all changed by one UPDATE. The suite's 250,000 make a batch about eighteen
   * times {@link #MAX_PENDING}, as the million rows of docs/BENCHMARKS.md (run with {@code
   * -Dtablecast.bulk.rows=1000000}) are about twice the default 64 MiB.
   */
  private static final int ROWS = Integer.getInteger("tablecast.bulk.rows", 250_000);

  /**
   * The slow-consumer limit: a batch over it used to cut every client off, for ever; the suite
   * takes it low so that a quarter of the rows shows it. The default with {@code
   * -Dtablecast.bulk.rows}.
   */
  private static final String MAX_PENDING =
      Integer.getInteger("tablecast.bulk.rows") == null ? "2MiB" : "64MiB";

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTransactionManyTimesTheSlowConsumerLimitReachesEveryMirrorWhileAnotherTableKeepsChanging(
      Kind kind) throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE items (id int PRIMARY KEY, price bigint NOT NULL)",
            "CREATE TABLE notes (id int PRIMARY KEY, v int NOT NULL)");
    try (Pipeline p = Pipeline.create(kind, "bulk_txn", ddl, "items", "notes")) {
      p.sql(
          kind == Kind.POSTGRESQL
              ? "INSERT INTO items SELECT g, g FROM generate_series(1, " + ROWS + ") g"
              : "INSERT INTO items SELECT seq, seq FROM seq_1_to_"
                  + ROWS, // MariaDB's Sequence engine
          "INSERT INTO notes VALUES (1, 0)");
      p.startServer(b -> b.set("slow_consumer.max_pending_bytes", MAX_PENDING));
      TablecastClient both = p.client("both");
      TableMirror<Map<String, Object>> items = p.readyMirror(both, "items", Duration.ofMinutes(3));
      TableMirror<Map<String, Object>> notes = p.readyMirror(both, "notes");
      TableMirror<Map<String, Object>> notesOnly = p.readyMirror(p.client("notes-only"), "notes");

      // while the bulk update commits and travels: a writer of the other table, and a reader of it
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger written = new AtomicInteger();
      AtomicLong reads = new AtomicLong();
      Thread writer =
          new Thread(
              () -> {
                try (Connection c = p.db.connect();
                    PreparedStatement s =
                        c.prepareStatement(
                            "UPDATE " + p.db.table("notes") + " SET v = ? WHERE id = 1")) {
                  while (!stop.get()) {
                    s.setInt(1, written.get() + 1);
                    s.executeUpdate();
                    written.incrementAndGet();
                    Thread.sleep(20);
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              },
              "notes-writer");
      Thread reader =
          new Thread(
              () -> {
                while (!stop.get()) {
                  if (notesOnly.get(1) != null) {
                    reads.incrementAndGet();
                  }
                  // a service reading often, not a spinning core: the machine has two
                  java.util.concurrent.locks.LockSupport.parkNanos(50_000);
                }
              },
              "notes-reader");
      writer.start();
      reader.start();

      double snapshots = snapshotsServed(p);
      HeapPeaks heap = new HeapPeaks();
      long start = System.nanoTime();
      p.sql(
          "UPDATE "
              + p.db.table("items")
              + " SET price = price + 1"); // one statement, one transaction
      long committed = System.nanoTime();
      long readsAtCommit = reads.get();
      await()
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> price(items, 1) == 2 && price(items, ROWS) == ROWS + 1);
      long arrived = System.nanoTime();
      stop.set(true);
      writer.join();
      reader.join();
      heap.finish();
      // reported in docs/BENCHMARKS.md (server and both clients share this JVM)
      LOG.info(
          "{}: UPDATE of {} rows committed in {} ms, reached the mirror {} ms later; the other table's "
              + "mirror was read {} times meanwhile; table in the database {} MiB; heap after a full GC before the "
              + "update {} MiB; after any GC until it arrived at most {} MiB; in use at most {} MiB",
          kind,
          ROWS,
          (committed - start) / 1_000_000,
          (arrived - committed) / 1_000_000,
          reads.get() - readsAtCommit,
          tableBytes(p, kind) >> 20,
          heap.liveBefore >> 20,
          heap.afterGcPeak >> 20,
          heap.usedPeak >> 20);

      // whole: no reader saw a part of it, and every row is there once with its new price
      assertThat(items.size()).isEqualTo(ROWS);
      for (long id = 1; id <= ROWS; id++) {
        if (price(items, id) != id + 1) {
          throw new AssertionError(
              "row " + id + " of the mirror has price " + price(items, id) + ", not " + (id + 1));
        }
      }
      // the other table's changes made during the bulk update reached both mirrors
      int last = written.get();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> value(notes) == last && value(notesOnly) == last);
      assertThat(reads.get()).isGreaterThan(readsAtCommit);
      // nobody was cut off as a slow consumer, so nobody resumed or took a snapshot again
      assertThat(p.server().metrics().registry().find("tablecast.slow.consumers").counter().count())
          .isZero();
      assertThat(p.server().metrics().registry().find("tablecast.resumes").counter().count())
          .isZero();
      assertThat(snapshotsServed(p)).isEqualTo(snapshots);
    }
  }

  private static long tableBytes(Pipeline p, Kind kind) throws Exception {
    String sql =
        kind == Kind.POSTGRESQL
            ? "SELECT pg_total_relation_size('" + p.db.table("items") + "')"
            : "SELECT data_length + index_length FROM information_schema.tables WHERE table_schema = '"
                + p.db.schema()
                + "' AND table_name = 'items'";
    try (Connection c = p.db.connect();
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * The heap while the transaction travels, from the JVM's own GC notifications: the heap in use
   * after each collection (a young collection leaves old garbage in place, so this bounds the live
   * set from above), its value after a full collection before the update, and its peak.
   */
  private static final class HeapPeaks implements javax.management.NotificationListener {
    final long liveBefore;
    volatile long afterGcPeak;
    volatile long usedPeak;
    private final List<javax.management.NotificationEmitter> emitters = new java.util.ArrayList<>();

    HeapPeaks() {
      System.gc();
      liveBefore = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      for (java.lang.management.GarbageCollectorMXBean gc :
          ManagementFactory.getGarbageCollectorMXBeans()) {
        if (gc instanceof javax.management.NotificationEmitter e) {
          e.addNotificationListener(this, null, null);
          emitters.add(e);
        }
      }
    }

    @Override
    public void handleNotification(javax.management.Notification n, Object handback) {
      if (!n.getType()
          .equals(
              com.sun.management.GarbageCollectionNotificationInfo
                  .GARBAGE_COLLECTION_NOTIFICATION)) {
        return;
      }
      com.sun.management.GarbageCollectionNotificationInfo info =
          com.sun.management.GarbageCollectionNotificationInfo.from(
              (javax.management.openmbean.CompositeData) n.getUserData());
      long before = 0;
      long after = 0;
      for (java.lang.management.MemoryUsage u :
          info.getGcInfo().getMemoryUsageBeforeGc().values()) {
        before += u.getUsed();
      }
      for (java.lang.management.MemoryUsage u : info.getGcInfo().getMemoryUsageAfterGc().values()) {
        after += u.getUsed();
      }
      synchronized (this) {
        afterGcPeak = Math.max(afterGcPeak, after);
        usedPeak = Math.max(usedPeak, before);
      }
    }

    void finish() throws Exception {
      for (javax.management.NotificationEmitter e : emitters) {
        e.removeNotificationListener(this);
      }
    }
  }

  private static double snapshotsServed(Pipeline p) {
    return p.server().metrics().registry().find("tablecast.snapshots.served").counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  private static long price(TableMirror<Map<String, Object>> items, long id) {
    Map<String, Object> row = items.get(id);
    return row == null ? -1 : ((Number) row.get("price")).longValue();
  }

  private static int value(TableMirror<Map<String, Object>> notes) {
    return ((Number) notes.get(1).get("v")).intValue();
  }
}

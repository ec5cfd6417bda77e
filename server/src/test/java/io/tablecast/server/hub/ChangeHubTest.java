package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.delete;
import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static io.tablecast.server.hub.FakeChangeSource.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageType;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ChangeHubTest {

  private static final TableSchema A = table("a");
  private static final TableSchema B = table("b");
  private static final Duration NO_HEARTBEAT = Duration.ofHours(1);

  private HubHarness h;

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  private static CommittedBatch batch(RowEvent... events) {
    return new CommittedBatch(List.of(events), 1234);
  }

  /** Applies snapshot and batches like a client mirror, checking the protocol order. */
  private static final class Mirror {
    final Map<String, Map<Long, String>> tables = new HashMap<>();
    final List<Long> batchPositions = new ArrayList<>();
    long snapshotPosition = -1;

    void apply(Message m) {
      if (m instanceof Message.SnapshotBegin) {
        snapshotPosition = ((Message.SnapshotBegin) m).position();
        tables.put(((Message.SnapshotBegin) m).table(), new HashMap<>());
      } else if (m instanceof Message.SnapshotRows) {
        for (ObjectNode row : ((Message.SnapshotRows) m).rows()) {
          tables
              .get(((Message.SnapshotRows) m).table())
              .put(row.get("id").longValue(), row.get("name").textValue());
        }
      } else if (m instanceof Message.ChangeBatch) {
        Message.ChangeBatch b = (Message.ChangeBatch) m;
        if (!b.changes().isEmpty()) {
          batchPositions.add(b.position());
        }
        for (Message.Change c : b.changes()) {
          Map<Long, String> t = tables.get(c.table());
          assertThat(t).as("changes of %s arrive only after its snapshot", c.table()).isNotNull();
          if (c.op() == Op.DELETE) {
            t.remove(c.key().get(0).longValue());
          } else {
            t.put(c.key().get(0).longValue(), c.after().get("name").textValue());
          }
        }
      }
    }
  }

  @Test
  void snapshotThenLiveHasNoGapOrDuplicateUnderConcurrentBatches() throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100_000, A);
    h.load(3000, A);
    Map<Long, String> expected = new ConcurrentHashMap<>();
    for (long i = 1; i <= 3000; i++) {
      expected.put(i, "row" + i);
    }
    int batches = 400;
    Thread publisher =
        new Thread(
            () -> {
              for (int i = 1; i <= batches; i++) {
                long id = i % 3000 + 1;
                String old = expected.get(id);
                RowEvent up = update("public.a", id, old, "v" + i);
                RowEvent ins = insert("public.a", 10_000 + i, "new" + i);
                expected.put(id, "v" + i);
                expected.put(10_000L + i, "new" + i);
                if (i > 1) {
                  RowEvent del = delete("public.a", 10_000 + i - 1, "new" + (i - 1));
                  expected.remove(10_000L + i - 1);
                  h.hub.publish(batch(up, ins, del));
                } else {
                  h.hub.publish(batch(up, ins));
                }
              }
            });
    publisher.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> h.hub.position() >= 20);
    HubHarness.Session s = h.connect("c1");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    publisher.join();

    Mirror mirror = new Mirror();
    long last = h.hub.position();
    while (mirror.batchPositions.isEmpty()
        || mirror.batchPositions.get(mirror.batchPositions.size() - 1) < last) {
      Message m = s.client().next();
      mirror.apply(m);
      if (mirror.snapshotPosition == last && m instanceof Message.SnapshotEnd) {
        break;
      }
    }
    assertThat(mirror.snapshotPosition).isBetween(20L, last);
    List<Long> expectedPositions = new ArrayList<>();
    for (long p = mirror.snapshotPosition + 1; p <= last; p++) {
      expectedPositions.add(p);
    }
    assertThat(mirror.batchPositions)
        .as("every batch after the snapshot, once, in order")
        .isEqualTo(expectedPositions);
    assertThat(mirror.tables.get("public.a")).isEqualTo(expected);
  }

  @Test
  void snapshotIsChunkedAtOneThousandRowsAndCarriesSchema() throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100, A);
    h.load(2500, A);
    HubHarness.Session s = h.connect("c1");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    Message.SnapshotBegin begin = s.client().next(Message.SnapshotBegin.class);
    assertThat(begin.rowCount()).isEqualTo(2500);
    assertThat(begin.primaryKey()).containsExactly("id");
    assertThat(begin.columns()).extracting(c -> c.name()).containsExactly("id", "name");
    assertThat(s.client().next(Message.SnapshotRows.class).rows()).hasSize(1000);
    assertThat(s.client().next(Message.SnapshotRows.class).rows()).hasSize(1000);
    assertThat(s.client().next(Message.SnapshotRows.class).rows()).hasSize(500);
    assertThat(s.client().next(Message.SnapshotEnd.class).position()).isEqualTo(begin.position());
  }

  @Test
  void snapshotChunksOfLargeRowsEndAfterAbout256KiB() throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100, A);
    TableImage image = new TableImage(A);
    String tenKilobytes = "k".repeat(10_000);
    for (int i = 1; i <= 100; i++) {
      image.put(Rows.bytes(A, FakeChangeSource.row(i, tenKilobytes)));
    }
    h.hub.install(List.of(image), java.util.Map.of());
    HubHarness.Session s = h.connect("c1");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    s.client().next(Message.SnapshotBegin.class);
    List<Integer> chunks = new ArrayList<>();
    Message m;
    while ((m = s.client().next()) instanceof Message.SnapshotRows) {
      chunks.add(((Message.SnapshotRows) m).rows().size());
    }
    assertThat(m).isInstanceOf(Message.SnapshotEnd.class);
    assertThat(chunks.stream().mapToInt(Integer::intValue).sum()).isEqualTo(100);
    // rows of about 10 KB each: the 27th crosses 256 KiB and ends the chunk
    assertThat(chunks).containsExactly(27, 27, 27, 19);
  }

  @Test
  void resumeFromRetainedPositionSendsRetainedBatchesAndNoSnapshot() throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100, A, B);
    h.load(3, A, B);
    h.hub.publish(batch(insert("public.a", 10, "x")));
    long resumeAt = h.hub.position();
    h.hub.publish(batch(insert("public.b", 11, "only b")));
    h.hub.publish(batch(update("public.a", 10, "x", "y"), insert("public.b", 12, "z")));

    HubHarness.Session s = h.connect("resumer");
    h.hub.subscribe(
        s.subscriber(), new Message.Subscribe(List.of("public.a"), h.hub.epoch(), resumeAt));
    Message.Resumed resumed = s.client().next(Message.Resumed.class);
    assertThat(resumed.position()).isEqualTo(resumeAt);
    assertThat(resumed.tables()).containsExactly("public.a");
    assertThat(resumed.schemas().get(0).primaryKey()).containsExactly("id");
    Message.ChangeBatch b = s.client().next(Message.ChangeBatch.class);
    assertThat(b.position()).isEqualTo(resumeAt + 2);
    assertThat(b.changes()).extracting(Message.Change::table).containsExactly("public.a");
    assertThat(b.changes().get(0).after().get("name").textValue()).isEqualTo("y");

    h.hub.publish(batch(delete("public.a", 10, "y")));
    Message.ChangeBatch live = s.client().next(Message.ChangeBatch.class);
    assertThat(live.position()).isEqualTo(resumeAt + 3);
    assertThat(live.changes().get(0).op()).isEqualTo(Op.DELETE);
  }

  @Test
  void resumeWithUnknownEpochGetsSnapshot() throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100, A);
    h.load(3, A);
    h.hub.publish(batch(insert("public.a", 10, "x")));
    HubHarness.Session s = h.connect("c");
    h.hub.subscribe(
        s.subscriber(), new Message.Subscribe(List.of("public.a"), "some-other-run", 1));
    Message.SnapshotBegin begin = s.client().next(Message.SnapshotBegin.class);
    assertThat(begin.position()).isEqualTo(1);
    assertThat(begin.rowCount()).isEqualTo(4);
  }

  @Test
  void resumeFromEvictedPositionGetsSnapshot() throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 2, A);
    h.load(3, A);
    for (int i = 0; i < 5; i++) {
      h.hub.publish(batch(insert("public.a", 100 + i, "x")));
    }
    HubHarness.Session s = h.connect("c");
    h.hub.subscribe(s.subscriber(), new Message.Subscribe(List.of("public.a"), h.hub.epoch(), 1));
    assertThat(s.client().next()).isInstanceOf(Message.SnapshotBegin.class);

    HubHarness.Session s2 = h.connect("c2");
    h.hub.subscribe(s2.subscriber(), new Message.Subscribe(List.of("public.a"), h.hub.epoch(), 3));
    assertThat(s2.client().next()).isInstanceOf(Message.Resumed.class);
    assertThat(s2.client().next(Message.ChangeBatch.class).position()).isEqualTo(4);
    assertThat(s2.client().next(Message.ChangeBatch.class).position()).isEqualTo(5);
  }

  @Test
  void sessionReceivesOnlyChangesOfItsTablesAndNoEmptyBatches() throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100, A, B);
    h.load(0, A, B);
    HubHarness.Session s = h.connect("c");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    s.client().next(Message.SnapshotBegin.class);
    s.client().next(Message.SnapshotEnd.class);
    h.hub.publish(batch(insert("public.b", 1, "b only")));
    h.hub.publish(batch(insert("public.b", 2, "b"), insert("public.a", 3, "a")));
    Message.ChangeBatch b = s.client().next(Message.ChangeBatch.class);
    assertThat(b.position()).isEqualTo(2);
    assertThat(b.changes()).extracting(Message.Change::table).containsExactly("public.a");
    assertThat(b.captureMillis()).isEqualTo(1234);
  }

  @Test
  void unknownTableGetsErrorAndTheOtherTablesAreServed() throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100, A);
    h.load(2, A);
    HubHarness.Session s = h.connect("c");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.nope", "public.a")));
    Message.Error e = s.client().next(Message.Error.class);
    assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_TABLE);
    assertThat(e.table()).isEqualTo("public.nope");
    assertThat(e.message()).contains("public.nope").contains("public.a");
    assertThat(s.client().next(Message.SnapshotBegin.class).table()).isEqualTo("public.a");
    assertThat(s.client().channel.isActive()).isTrue();
  }

  @Test
  void batchIsEncodedOnceForSessionsWithTheSameTables() throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100, A, B);
    h.load(0, A, B);
    HubHarness.Session s1 = h.connect("c1");
    HubHarness.Session s2 = h.connect("c2");
    HubHarness.Session s3 = h.connect("c3");
    h.hub.subscribe(s1.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    h.hub.subscribe(s2.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    h.hub.subscribe(s3.subscriber(), Message.Subscribe.fresh(List.of("public.a", "public.b")));
    for (HubHarness.Session s : List.of(s1, s2, s3, s3)) {
      while (!(s.client().next() instanceof Message.SnapshotEnd)) {
        // skip the snapshot (s3 has two tables, so two snapshots)
      }
    }
    // the hub ends a catch-up after its last frame is written: a batch published before that is
    // held for the session and encoded for it alone
    await().until(() -> h.hub.sessionStates().stream().noneMatch(v -> v.catchingUp()));
    h.hub.publish(batch(insert("public.a", 1, "a"), insert("public.b", 2, "b")));
    for (HubHarness.Session s : List.of(s1, s2, s3)) {
      s.client().next(Message.ChangeBatch.class);
    }
    List<HubHarness.Written> batches;
    synchronized (h.written) {
      batches =
          h.written.stream().filter(w -> w.typeCode() == MessageType.CHANGE_BATCH.code()).toList();
    }
    assertThat(batches).hasSize(3);
    HubHarness.Written w1 = find(batches, s1);
    HubHarness.Written w2 = find(batches, s2);
    HubHarness.Written w3 = find(batches, s3);
    assertThat(w1.sharedBuffer())
        .as("one encoded buffer for both sessions")
        .isSameAs(w2.sharedBuffer());
    assertThat(w1.bytes()).isEqualTo(w2.bytes());
    assertThat(w3.sharedBuffer()).isNotSameAs(w1.sharedBuffer());
  }

  private static HubHarness.Written find(List<HubHarness.Written> batches, HubHarness.Session s) {
    return batches.stream().filter(w -> w.channel() == s.serverSide()).findFirst().orElseThrow();
  }

  @Test
  void idleSessionGetsHeartbeatAtCurrentPosition() throws Exception {
    h = new HubHarness(Duration.ofMillis(50), 100, A);
    h.load(1, A);
    h.hub.publish(batch(insert("public.a", 5, "x")));
    HubHarness.Session s = h.connect("c");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    Message first;
    do {
      first = s.client().next();
    } while (first instanceof Message.ChangeBatch || first instanceof Message.Ping);
    assertThat(first).isInstanceOf(Message.SnapshotBegin.class);
    s.client().next(Message.SnapshotRows.class);
    s.client().next(Message.SnapshotEnd.class);
    Message next;
    do {
      next = s.client().next(); // a ping may still come while the hub learns the snapshot is done
    } while (next instanceof Message.Ping);
    assertThat(next).isInstanceOf(Message.ChangeBatch.class);
    Message.ChangeBatch hb = (Message.ChangeBatch) next;
    assertThat(hb.changes()).isEmpty();
    assertThat(hb.position()).isEqualTo(1);
    assertThat(hb.captureMillis()).isZero();
  }

  /**
   * A session waiting for the (busy) snapshot pool must not hear a position before its snapshot,
   * yet must not fall silent either: it gets pings, no batches, then its snapshot and the held
   * batch.
   */
  @Test
  void sessionWaitingForSnapshotPoolGetsPingsButNoBatchBeforeItsSnapshot() throws Exception {
    h = new HubHarness(Duration.ofMillis(100), 100, A);
    h.load(3, A);
    CountDownLatch started = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    HubHarness.Session s;
    try {
      for (int i = 0; i < 2; i++) {
        h.hub
            .snapshotExecutor()
            .execute(
                () -> {
                  started.countDown();
                  try {
                    release.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
      }
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      s = h.connect("waiting");
      h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
      h.hub.sessionCount(); // the subscribe has been handled: the session is snapshotting
      h.hub.publish(batch(insert("public.a", 10, "late")));

      // while the pool is busy the session hears pings (keeping the client's liveness check
      // happy) and nothing that carries a position; counts, not wall-clock gaps, are asserted
      List<Message> waiting = new ArrayList<>();
      while (waiting.size() < 3) {
        Message m = s.client().poll(10, TimeUnit.SECONDS);
        assertThat(m).as("a ping within 10 s while the snapshot is queued").isNotNull();
        waiting.add(m);
      }
      assertThat(waiting)
          .as("only pings while the snapshot is queued")
          .allSatisfy(m -> assertThat(m).isInstanceOf(Message.Ping.class));
    } finally {
      release.countDown();
    }
    List<Message> after = new ArrayList<>();
    Message m;
    do {
      m = s.client().next();
      if (!(m instanceof Message.Ping)) {
        after.add(m);
      }
    } while (!(m instanceof Message.ChangeBatch) || ((Message.ChangeBatch) m).changes().isEmpty());
    assertThat(after)
        .extracting(Message::type)
        .containsExactly(
            MessageType.SNAPSHOT_BEGIN,
            MessageType.SNAPSHOT_ROWS,
            MessageType.SNAPSHOT_END,
            MessageType.CHANGE_BATCH);
    Message.ChangeBatch held = (Message.ChangeBatch) after.get(3);
    assertThat(held.position()).isGreaterThan(((Message.SnapshotEnd) after.get(2)).position());
    assertThat(held.changes()).extracting(Message.Change::table).containsExactly("public.a");
  }

  @Test
  void keysAreNormalizedSoIntAndLongRowsMatch() {
    TableImage image = new TableImage(A);
    ObjectNode intRow = FakeChangeSource.NODES.objectNode().put("id", 7).put("name", "int");
    image.put(Rows.bytes(A, intRow));
    Message.Change c =
        JsonEdge.change(
            image.form(),
            image.apply(FakeChangeSource.delete(A, FakeChangeSource.row(7L, "int"))).get(0));
    assertThat(c.key().get(0).isLong()).isTrue();
    assertThat(c.key().get(0).longValue()).isEqualTo(7);
    assertThat(image.size()).isZero();
  }
}

package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Indexes change with the rows inside each transaction: while transactions swap rows between index
 * keys (so that each key always holds the same number of rows), readers never find a row under a
 * key it does not have, nor miss one, nor see a key's count move, through lookups, ranges, ordered
 * iteration and queries.
 */
class AtomicIndexTest {
  static final String T = "shop.slots";
  static final int ROWS = 40;
  static final int KEYS = 5;
  static final int TRANSACTIONS = 4_000;

  /** The application's row type: {@code slot} is the indexed column. */
  public record Slot(long id, long slot, long version) {}

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void readersNeverSeeAnIndexAndTheRowsDisagree(boolean inParts) throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Slot> m =
          client.mirror(
              T,
              Slot.class,
              List.of(
                  IndexDefinition.hash("by_slot", Slot::slot),
                  IndexDefinition.sorted("slot_order", Slot::slot)));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      long[] slot = new long[ROWS + 1];
      long[] version = new long[ROWS + 1];
      List<ObjectNode> rows = new ArrayList<>();
      for (int id = 1; id <= ROWS; id++) {
        slot[id] = id % KEYS;
        rows.add(row("id", id, "slot", slot[id], "version", 0));
      }
      conn.snapshot(T, List.of("id"), 0, rows.toArray(ObjectNode[]::new));
      assertThat(m.awaitReady(Duration.ofSeconds(10))).isTrue();

      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong reads = new AtomicLong();
      List<String> violations = new ArrayList<>();
      List<Thread> readers = startReaders(m, stop, reads, violations);

      Random random = new Random(16);
      List<Message> batches = new ArrayList<>();
      for (int i = 1; i <= TRANSACTIONS; i++) {
        // swap the slots of two rows in different slots: every slot keeps its count
        int a = 1 + random.nextInt(ROWS);
        int b;
        do {
          b = 1 + random.nextInt(ROWS);
        } while (slot[b] == slot[a]);
        long sa = slot[a];
        long sb = slot[b];
        Message.Change first = move(a, sa, sb, version);
        Message.Change second = move(b, sb, sa, version);
        slot[a] = sb;
        slot[b] = sa;
        if (inParts) {
          batches.add(new Message.ChangePart(i, List.of(first)));
          batches.add(batch(i, second));
        } else {
          batches.add(batch(i, first, second));
        }
      }
      conn.send(batches.toArray(Message[]::new));
      await().atMost(Duration.ofSeconds(30)).until(() -> m.position() == TRANSACTIONS);
      stop.set(true);
      for (Thread t : readers) {
        t.join();
      }

      assertThat(violations).isEmpty();
      assertThat(reads.get()).isPositive();
      for (int id = 1; id <= ROWS; id++) {
        assertThat(m.get(id).slot()).isEqualTo(slot[id]);
      }
      for (int k = 0; k < KEYS; k++) {
        final long key = k;
        assertThat(m.index("by_slot").get(k))
            .extracting(Slot::id)
            .containsExactlyInAnyOrderElementsOf(
                m.stream().filter(s -> s.slot() == key).map(Slot::id).toList());
      }
    }
  }

  /** Two threads reading the indexes until {@code stop}, noting what disagrees with the rows. */
  private static List<Thread> startReaders(
      TableMirror<Slot> m, AtomicBoolean stop, AtomicLong reads, List<String> violations) {
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      Thread reader =
          new Thread(
              () -> {
                int k = 0;
                while (!stop.get()) {
                  k = (k + 1) % KEYS;
                  check("get", k, m.index("by_slot").get(k), violations);
                  check("range", k, m.index("slot_order").range(k, true, k, true), violations);
                  check("query", k, m.query().where("by_slot", k).list(), violations);
                  List<Slot> inOrder = m.index("slot_order").ordered();
                  long last = -1;
                  for (Slot s : inOrder) {
                    if (s.slot() < last) {
                      violation(violations, "ordered() out of order: " + inOrder);
                    }
                    last = s.slot();
                  }
                  if (inOrder.size() != ROWS) {
                    violation(violations, "ordered() has " + inOrder.size() + " rows");
                  }
                  reads.incrementAndGet();
                }
              },
              "index-reader-" + r);
      reader.start();
      readers.add(reader);
    }
    return readers;
  }

  /**
   * A re-snapshot (a reconnect to a server of another epoch) whose rows sit in other slots than the
   * mirror's is swapped in with indexes built for it, never beside the old ones.
   */
  @Test
  void readersNeverSeeAnIndexAndTheRowsDisagreeAcrossReSnapshots() throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client =
            TablecastClient.builder()
                .servers(server.address())
                .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(5))
                .build()) {
      TableMirror<Slot> m =
          client.mirror(
              T,
              Slot.class,
              List.of(
                  IndexDefinition.hash("by_slot", Slot::slot),
                  IndexDefinition.sorted("slot_order", Slot::slot)));
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 0, slots(0, 0));
      assertThat(m.awaitReady(Duration.ofSeconds(10))).isTrue();

      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong reads = new AtomicLong();
      List<String> violations = new ArrayList<>();
      List<Thread> readers = startReaders(m, stop, reads, violations);
      for (int round = 1; round <= 20; round++) {
        conn.close();
        conn = server.handshake("epoch-" + round, round * 10L, 10_000);
        conn.expect(Message.Subscribe.class);
        conn.snapshot(T, List.of("id"), round * 10L, slots(round, round));
        final long position = round * 10L;
        await().atMost(Duration.ofSeconds(10)).until(() -> m.position() == position);
      }
      stop.set(true);
      for (Thread t : readers) {
        t.join();
      }
      assertThat(violations).isEmpty();
      assertThat(reads.get()).isPositive();
      assertThat(m.index("by_slot").get(0))
          .extracting(Slot::id)
          .containsExactlyInAnyOrderElementsOf(
              m.stream().filter(s -> s.slot() == 0).map(Slot::id).toList());
    }
  }

  /** Every row, row {@code id} in slot {@code (id + shift) % KEYS}: ROWS / KEYS rows a slot. */
  private static ObjectNode[] slots(int shift, long version) {
    ObjectNode[] rows = new ObjectNode[ROWS];
    for (int id = 1; id <= ROWS; id++) {
      rows[id - 1] = row("id", id, "slot", (id + shift) % KEYS, "version", version);
    }
    return rows;
  }

  /** The update of row {@code id} from slot {@code from} to {@code to}. */
  private static Message.Change move(int id, long from, long to, long[] version) {
    long v = version[id]++;
    return update(
        T,
        row("id", id, "slot", from, "version", v),
        row("id", id, "slot", to, "version", v + 1),
        id);
  }

  /** Every slot holds ROWS / KEYS rows at every transaction boundary, all of that slot. */
  private static void check(String how, long key, List<Slot> found, List<String> violations) {
    if (found.size() != ROWS / KEYS) {
      violation(violations, how + "(" + key + ") found " + found.size() + " rows: " + found);
    }
    for (Slot s : found) {
      if (s.slot() != key) {
        violation(violations, how + "(" + key + ") found a row of slot " + s.slot() + ": " + s);
      }
    }
  }

  private static void violation(List<String> violations, String what) {
    synchronized (violations) {
      if (violations.size() < 20) {
        violations.add(what);
      }
    }
  }
}

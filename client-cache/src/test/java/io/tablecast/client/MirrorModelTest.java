package io.tablecast.client;

import static io.tablecast.client.FakeServer.delete;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static io.tablecast.client.IndexDefinition.hash;
import static io.tablecast.client.IndexDefinition.sorted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * A mirror, its secondary indexes and its listeners follow random batches of the changes a server
 * sends: inserts, updates with and without their row before, rows moved to other keys, a row moved
 * onto a key after a delete of the row there (a swap, as the server says it), an insert that
 * repeats a row held (a replay from a stream of MySQL's capture), deletes; and new snapshots after
 * a reconnect. After every batch the mirror equals the model of the table, each index answers as
 * the model does, and the change events, applied to a copy, give the same rows.
 */
class MirrorModelTest {
  private static final String T = "shop.items";
  private static final String[] REGIONS = {"EU", "US", "APAC"};
  private static final int KEYS = 10;
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final List<ColumnInfo> COLUMNS =
      List.of(
          new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
          new ColumnInfo("region", "text", ColumnKind.STRING),
          new ColumnInfo("total", "bigint", ColumnKind.INTEGER));

  /** A row of the model: region and total. */
  private record Item(String region, long total) {
    ObjectNode json(long id) {
      return row("id", id, "region", region, "total", total);
    }
  }

  @Test
  void mirrorsIndexesAndListenersFollowRandomBatches() throws Exception {
    for (long seed = 0; seed < 20; seed++) {
      run(seed);
    }
  }

  private static void run(long seed) throws Exception {
    Random random = new Random(seed);
    Map<Long, Item> model = new TreeMap<>();
    for (long id = 1; id <= KEYS / 2; id++) {
      model.put(id, item(random));
    }
    try (FakeServer server = new FakeServer();
        TablecastClient client =
            TablecastClient.builder()
                .servers(server.address())
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50))
                .build()) {
      TableMirror<Map<String, Object>> m =
          client.mirror(T, List.of(hash("by_region", "region"), sorted("by_total", "total")));
      Map<Object, Map<String, Object>> heard = new ConcurrentHashMap<>();
      m.addListener(e -> hear(heard, e));
      long position = 1;
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, COLUMNS, List.of("id"), position, rows(model));
      assertThat(m.awaitReady(WAIT)).isTrue();
      heard.putAll(m.copyToMap());
      List<String> log = new ArrayList<>();
      for (int b = 0; b < 80; b++) {
        position++;
        if (random.nextInt(10) == 0) {
          conn.close(); // the client reconnects; it gets a new snapshot, the model changed
          // meanwhile
          change(random, model, new ArrayList<>());
          conn = server.handshake(position);
          conn.expect(Message.Subscribe.class);
          conn.snapshot(T, COLUMNS, List.of("id"), position, rows(model));
          log.add(position + ": a new snapshot " + model);
        } else {
          List<Message.Change> changes = new ArrayList<>();
          int n = 1 + random.nextInt(4);
          for (int i = 0; i < n; i++) {
            change(random, model, changes);
          }
          conn.send(new Message.ChangeBatch(position, 0, changes));
          log.add(position + ": " + changes);
        }
        long at = position;
        soon().until(() -> m.position() == at);
        String context = "seed " + seed + ", batches:\n" + String.join("\n", log);
        assertThat(rowsOf(m.copyToMap())).as("the mirror; " + context).isEqualTo(rowsOf(model));
        for (String region : REGIONS) {
          assertThat(ids(m.index("by_region").get(region)))
              .as("by_region %s; %s", region, context)
              .isEqualTo(
                  model.entrySet().stream()
                      .filter(e -> e.getValue().region().equals(region))
                      .map(Map.Entry::getKey)
                      .toList());
        }
        List<Map<String, Object>> ordered = m.index("by_total").ordered();
        assertThat(ordered.stream().map(r -> ((Number) r.get("total")).longValue()).toList())
            .as("by_total ordered; " + context)
            .isEqualTo(model.values().stream().map(Item::total).sorted().toList());
        assertThat(ids(ordered))
            .as("by_total's rows; " + context)
            .isEqualTo(model.keySet().stream().toList());
        try {
          soon().until(() -> rowsOf(heard).equals(rowsOf(model)));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          assertThat(rowsOf(heard))
              .as("the rows the events told; " + context)
              .isEqualTo(rowsOf(model));
        }
      }
    }
  }

  /** A wait that looks every millisecond (a batch is applied within a few). */
  private static org.awaitility.core.ConditionFactory soon() {
    return await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
  }

  /** Applies a change event to the rows the listener was told. */
  private static void hear(
      Map<Object, Map<String, Object>> heard, ChangeEvent<Map<String, Object>> e) {
    switch (e.op()) {
      case INSERT, UPDATE -> heard.put(e.key(), e.newRow());
      case DELETE -> heard.remove(e.key());
    }
  }

  /**
   * One change of the model, said as a server says it into {@code out} (empty: a change the client
   * does not hear, made while it is away).
   */
  private static void change(Random random, Map<Long, Item> model, List<Message.Change> out) {
    List<Long> held = new ArrayList<>(model.keySet());
    List<Long> free = new ArrayList<>();
    for (long k = 1; k <= KEYS; k++) {
      if (!model.containsKey(k)) {
        free.add(k);
      }
    }
    int what = random.nextInt(12);
    if (held.isEmpty() || (what < 2 && !free.isEmpty())) {
      if (free.isEmpty()) {
        return;
      }
      long k = free.get(random.nextInt(free.size()));
      Item it = item(random);
      model.put(k, it);
      out.add(insert(T, it.json(k), k));
      return;
    }
    long k = held.get(random.nextInt(held.size()));
    Item was = model.get(k);
    if (what < 5) { // an update on its key, its row before said or not (coalesced, MySQL)
      Item now = item(random);
      model.put(k, now);
      out.add(update(T, random.nextBoolean() ? was.json(k) : null, now.json(k), k));
    } else if (what < 7 && !free.isEmpty()) { // a move to a free key
      long to = free.get(random.nextInt(free.size()));
      Item now = random.nextBoolean() ? was : item(random);
      model.remove(k);
      model.put(to, now);
      out.add(update(T, was.json(k), now.json(to), to));
    } else if (what < 9 && held.size() > 1) { // a swap: k's row onto key o, o's row onto key k
      long o = held.get(random.nextInt(held.size()));
      if (o == k) {
        return;
      }
      Item other = model.get(o);
      model.put(o, was);
      model.put(k, other);
      out.add(delete(T, other.json(o), o));
      out.add(update(T, was.json(k), was.json(o), o));
      out.add(insert(T, other.json(k), k));
    } else if (what < 10) { // an insert that repeats a row held, with its new values
      Item now = item(random);
      model.put(k, now);
      out.add(insert(T, now.json(k), k));
    } else {
      model.remove(k);
      out.add(delete(T, was.json(k), k));
    }
  }

  private static Item item(Random random) {
    return new Item(REGIONS[random.nextInt(REGIONS.length)], random.nextInt(5));
  }

  private static ObjectNode[] rows(Map<Long, Item> model) {
    return model.entrySet().stream()
        .map(e -> e.getValue().json(e.getKey()))
        .toArray(ObjectNode[]::new);
  }

  private static List<Long> ids(List<Map<String, Object>> rows) {
    return rows.stream().map(r -> ((Number) r.get("id")).longValue()).sorted().toList();
  }

  /** Rows by id, as text, for comparing. */
  private static Map<Long, String> rowsOf(Map<?, ?> rows) {
    Map<Long, String> out = new TreeMap<>();
    rows.forEach(
        (k, v) -> {
          if (v instanceof Item it) {
            out.put((Long) k, it.region() + "/" + it.total());
          } else {
            @SuppressWarnings("unchecked")
            Map<String, Object> r = (Map<String, Object>) v;
            out.put(
                ((Number) r.get("id")).longValue(),
                r.get("region") + "/" + ((Number) r.get("total")).longValue());
          }
        });
    return out;
  }
}

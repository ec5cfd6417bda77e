package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.image.RowChange;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.testing.Rows;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Random transactions under a PostgreSQL DEFERRABLE primary key, which lets rows share a key until
 * commit: rows are moved onto keys other rows hold, pass through them and move on, are changed and
 * deleted there, and new rows are inserted onto held keys; every commit leaves the keys unique.
 * Events are what the PostgreSQL capture records (an UPDATE and a DELETE name the whole row
 * before). After each batch of one to three transactions:
 *
 * <ul>
 *   <li>the image holds the table's rows;
 *   <li>the changes it made take a strict client from the rows before the batch to the rows after:
 *       an INSERT only onto a key the client does not hold, an UPDATE and a DELETE only of the row
 *       it holds (so that sessions that filter or coalesce changes follow them too);
 *   <li>a reconciliation range read before the batch, brought forward through it, holds the table's
 *       rows too (else the pass repairs rows that were right).
 * </ul>
 */
class SharedKeysModelTest {
  private static final TableSchema ITEMS = FakeChangeSource.table("items");
  private static final RowForm FORM = new RowForm(ITEMS.columns(), ITEMS.primaryKey());
  private static final int KEYS = 6;

  /** One row of the modelled table: its identity (in its name), key and version. */
  private static final class Row {
    final int identity;
    long key;
    int version;

    Row(int identity, long key) {
      this.identity = identity;
      this.key = key;
    }

    byte[] bytes() {
      return Rows.bytes(ITEMS, FakeChangeSource.row(key, "r" + identity + "v" + version));
    }
  }

  @Test
  void imageChangesAndRangesFollowRowsThatShareKeysWithinTransactions() {
    for (long seed = 0; seed < 3_000; seed++) {
      run(seed);
    }
  }

  private static void run(long seed) {
    Random random = new Random(seed);
    List<Row> table = new ArrayList<>();
    int[] identities = {0};
    for (long k = 1; k <= KEYS / 2; k++) {
      table.add(new Row(identities[0]++, k));
    }
    TableImage image = new TableImage(ITEMS);
    Map<ByteBuffer, byte[]> client = new HashMap<>();
    for (Row r : table) {
      image.put(r.bytes());
      client.put(ByteBuffer.wrap(FORM.keyOf(r.bytes())), r.bytes());
    }
    KeyMoves moves = new KeyMoves();
    for (int b = 0; b < 6; b++) {
      List<byte[]> rangeRead = rowsOf(table);
      List<String> log = new ArrayList<>(List.of("rows before: " + json(rangeRead)));
      List<RowEvent> events = new ArrayList<>();
      int transactions = 1 + random.nextInt(3);
      for (int t = 0; t < transactions; t++) {
        transaction(random, table, identities, events);
      }
      events.forEach(e -> log.add(describe(e)));
      String context = "seed " + seed + ", batch " + b + ", events:\n" + String.join("\n", log);

      moves.clear();
      List<RowChange> made = new ArrayList<>();
      for (RowEvent e : events) {
        image.apply(e, moves, made);
      }
      assertThat(json(image.copyRows())).as("the image; " + context).isEqualTo(json(rowsOf(table)));

      for (RowChange c : made) {
        applyStrictly(client, c, context);
      }
      assertThat(json(List.copyOf(client.values())))
          .as("a client of the changes; " + context)
          .isEqualTo(json(rowsOf(table)));

      RangeInFlight range =
          new RangeInFlight(
              new RangeRead(ITEMS, null, null, true, null, 1_000),
              CompletableFuture.completedFuture(new RangeRead.Rows(rangeRead, null)));
      range.follow(new CommittedBatch(events, 1));
      assertThat(json(range.broughtForward(rangeRead)))
          .as("a range read before the batch, brought forward; " + context)
          .isEqualTo(json(rowsOf(table)));
    }
  }

  /** One transaction's events, appended; the keys are unique again at its end. */
  private static void transaction(
      Random random, List<Row> table, int[] identities, List<RowEvent> events) {
    int statements = 1 + random.nextInt(5);
    for (int s = 0; s < statements; s++) {
      int what = random.nextInt(10);
      if (table.isEmpty() || what < 2) { // an insert, maybe onto a key a row holds
        Row r = new Row(identities[0]++, 1 + random.nextInt(KEYS));
        table.add(r);
        events.add(upsert(null, r.bytes()));
        continue;
      }
      Row r = table.get(random.nextInt(table.size()));
      byte[] before = r.bytes();
      if (what < 7) { // a move, maybe onto a key a row holds
        long to = 1 + random.nextInt(KEYS);
        if (to == r.key) {
          continue;
        }
        r.key = to;
        r.version++;
        events.add(upsert(before, r.bytes()));
      } else if (what < 9) { // a change on its key
        r.version++;
        events.add(upsert(before, r.bytes()));
      } else {
        table.remove(r);
        events.add(new RowEvent.Delete(ITEMS.id().qualified(), ITEMS, FORM.keyOf(before), before));
      }
    }
    // at commit: each row that shares a key moves to a free one (a later statement of the
    // transaction), in a random order
    List<Row> order = new ArrayList<>(table);
    java.util.Collections.shuffle(order, random);
    for (Row r : order) {
      if (table.stream().filter(o -> o.key == r.key).count() > 1) {
        byte[] before = r.bytes();
        long free = 1;
        while (keyHeld(table, free)) {
          free++;
        }
        r.key = free;
        events.add(upsert(before, r.bytes()));
      }
    }
  }

  private static boolean keyHeld(List<Row> table, long key) {
    return table.stream().anyMatch(o -> o.key == key);
  }

  /** Applies a change as a client must be able to: fails when it does not fit what it holds. */
  private static void applyStrictly(Map<ByteBuffer, byte[]> client, RowChange c, String context) {
    ByteBuffer key = ByteBuffer.wrap(c.key());
    String change = c.op() + " " + json(c.before()) + " -> " + json(c.after()) + "; ";
    if (c.op() == Op.INSERT) {
      assertThat(client)
          .as("an INSERT onto a free key: " + change + context)
          .doesNotContainKey(key);
      client.put(key, c.after());
      return;
    }
    ByteBuffer from = ByteBuffer.wrap(FORM.keyOf(c.before()));
    assertThat(json(client.get(from)))
        .as("the row the client holds is the change's row before: " + change + context)
        .isEqualTo(json(c.before()));
    client.remove(from);
    if (c.op() == Op.UPDATE) {
      assertThat(client)
          .as("an UPDATE onto a free key: " + change + context)
          .doesNotContainKey(key);
      client.put(key, c.after());
    }
  }

  private static List<byte[]> rowsOf(List<Row> table) {
    return table.stream().map(Row::bytes).toList();
  }

  /** Rows by key, as text, for comparing. */
  private static Map<Long, String> json(List<byte[]> rows) {
    Map<Long, String> out = new TreeMap<>();
    for (byte[] r : rows) {
      ObjectNode n = Rows.json(ITEMS, r);
      String was = out.put(n.get("id").longValue(), n.get("name").textValue());
      assertThat(was).as("two rows on key %s", n.get("id")).isNull();
    }
    return out;
  }

  private static String json(byte[] row) {
    return row == null ? "null" : Rows.json(ITEMS, row).toString();
  }

  private static String describe(RowEvent e) {
    if (e instanceof RowEvent.Upsert u) {
      return "upsert " + json(u.before()) + " -> " + json(u.row());
    }
    return "delete " + json(((RowEvent.Delete) e).before());
  }

  private static RowEvent upsert(byte[] before, byte[] row) {
    return new RowEvent.Upsert(ITEMS.id().qualified(), ITEMS, FORM.keyOf(row), row, before);
  }
}

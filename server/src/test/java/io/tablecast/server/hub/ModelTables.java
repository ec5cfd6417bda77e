package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.row;
import static io.tablecast.server.hub.FakeChangeSource.table;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Random transactions on two model tables for {@link SessionsModelTest}: a ({@code id}, {@code
 * name}), whose rows move between keys (with rows before, onto keys other rows hold until the
 * commit, as a DEFERRABLE key allows; without, as MySQL's capture says a key change: a delete and
 * an insert), and c, whose names a shape's subquery reads.
 */
final class ModelTables {

  static final TableSchema A = table("a");
  static final TableSchema C = table("c");
  static final String[] NAMES = {"n0", "n1", "n2", "n3"};
  static final int KEYS = 8;

  private ModelTables() {}

  /** A row of the model of a table; its key may be shared with another within a transaction. */
  static final class Row {
    long key;
    String name;

    Row(long key, String name) {
      this.key = key;
      this.name = name;
    }

    ObjectNode json() {
      return row(key, name);
    }
  }

  /**
   * One transaction on a: inserts, renames, key moves (with rows before, maybe onto a key another
   * row holds until the commit moves one of them on), deletes.
   */
  static void transaction(Random random, List<Row> a, boolean rowsBefore, List<RowEvent> events) {
    int statements = 1 + random.nextInt(4);
    for (int s = 0; s < statements; s++) {
      int what = random.nextInt(10);
      String name = NAMES[random.nextInt(NAMES.length)];
      if (a.isEmpty() || what < 2) {
        long key = rowsBefore ? 1 + random.nextInt(KEYS) : freeKey(a, random);
        if (key < 0) {
          continue;
        }
        Row r = new Row(key, name);
        a.add(r);
        events.add(FakeChangeSource.upsert(A, null, r.json()));
        continue;
      }
      Row r = a.get(random.nextInt(a.size()));
      ObjectNode before = r.json();
      if (what < 5) { // a move
        long to = rowsBefore ? 1 + random.nextInt(KEYS) : freeKey(a, random);
        if (to < 0 || to == r.key) {
          continue;
        }
        r.key = to;
        if (random.nextBoolean()) {
          r.name = name;
        }
        if (rowsBefore) {
          events.add(FakeChangeSource.upsert(A, before, r.json()));
        } else {
          events.add(delete(before, false));
          events.add(FakeChangeSource.upsert(A, null, r.json()));
        }
      } else if (what < 9) { // a rename on its key
        r.name = name;
        events.add(FakeChangeSource.upsert(A, rowsBefore ? before : null, r.json()));
      } else {
        a.remove(r);
        events.add(delete(before, rowsBefore));
      }
    }
    // at commit (rows before only): each row sharing a key moves to a free one
    for (Row r : new ArrayList<>(a)) {
      if (a.stream().filter(o -> o.key == r.key).count() > 1) {
        ObjectNode before = r.json();
        long free = 1;
        while (held(a, free)) {
          free++;
        }
        r.key = free;
        events.add(FakeChangeSource.upsert(A, before, r.json()));
      }
    }
  }

  /** A delete of a's row {@code before}: by its key alone in MySQL's capture. */
  private static RowEvent delete(ObjectNode before, boolean rowsBefore) {
    RowEvent.Delete d = (RowEvent.Delete) FakeChangeSource.delete(A, before);
    return rowsBefore ? d : new RowEvent.Delete(d.table(), d.schema(), d.key(), null);
  }

  /**
   * A bulk UPDATE: more changes than one frame carries ({@link BatchParts#PART_CHANGES}), each row
   * renamed again and again, its row before said or not.
   */
  static void bulk(Random random, List<Row> a, boolean rowsBefore, List<RowEvent> events) {
    if (a.isEmpty()) {
      return;
    }
    for (int i = 0; i < BatchParts.PART_CHANGES + 100; i++) {
      Row r = a.get(i % a.size());
      ObjectNode before = r.json();
      r.name = NAMES[random.nextInt(NAMES.length)];
      events.add(FakeChangeSource.upsert(A, rowsBefore ? before : null, r.json()));
    }
  }

  /** A change of c: a rename, an insert or a delete of one of its keys 1-4. */
  static void changeC(Random random, Map<Long, String> c, List<RowEvent> events) {
    long key = 1 + random.nextInt(4);
    String name = NAMES[random.nextInt(NAMES.length)];
    String was = c.get(key);
    if (was != null && random.nextInt(4) == 0) {
      c.remove(key);
      events.add(FakeChangeSource.delete(C, row(key, was)));
    } else {
      c.put(key, name);
      events.add(FakeChangeSource.upsert(C, was == null ? null : row(key, was), row(key, name)));
    }
  }

  private static long freeKey(List<Row> a, Random random) {
    List<Long> free = new ArrayList<>();
    for (long k = 1; k <= KEYS; k++) {
      if (!held(a, k)) {
        free.add(k);
      }
    }
    return free.isEmpty() ? -1 : free.get(random.nextInt(free.size()));
  }

  private static boolean held(List<Row> a, long key) {
    return a.stream().anyMatch(o -> o.key == key);
  }

  static Map<Long, String> byKey(List<Row> a) {
    Map<Long, String> out = new TreeMap<>();
    a.forEach(r -> out.put(r.key, r.name));
    return out;
  }

  static String describe(RowEvent e) {
    if (e instanceof RowEvent.Upsert u) {
      return u.table()
          + " upsert "
          + (u.before() == null ? "-" : Rows.json(u.schema(), u.before()))
          + " -> "
          + Rows.json(u.schema(), u.row());
    }
    if (e instanceof RowEvent.Delete d) {
      return d.table()
          + " delete "
          + (d.before() == null
              ? "key " + Rows.form(d.schema()).keyToNode(d.key())
              : Rows.json(d.schema(), d.before()));
    }
    return e.table() + " truncate";
  }
}

package io.tablecast.it;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB foreign-key actions under concurrent writers, for {@code tablecast.soak.seconds} (8
 * s) with the random choices of {@code tablecast.seed} (2): {@code parents}, {@code children} (ON
 * DELETE CASCADE, ON UPDATE CASCADE) and {@code toys} (ON DELETE SET NULL, ON UPDATE CASCADE), all
 * cached, written by three threads (one in READ COMMITTED, two in the default REPEATABLE READ):
 * parents deleted and re-keyed one at a time and a range at once, children moved, re-keyed and
 * deleted, toys moved, single statements and transactions of two to four, a quarter rolled back.
 * InnoDB changes the children and toys without firing their triggers; the parents' triggers record
 * the keys a change reaches ({@code MysqlCascadeTriggers}), in the writer's transaction, beside
 * other transactions that insert and move children of the same parents. Then every mirror equals
 * its table and reconciliation repaired nothing: each cascaded change came through the stream.
 */
class MysqlCascadeUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);
  private static final String[] TABLES = {"parents", "children", "toys"};

  @Test
  void cascadesOfConcurrentTransactionsReachTheMirrorsThroughTheStream() throws Exception {
    System.out.printf("MysqlCascadeUnderLoadTest: -Dtablecast.seed=%d%n", SEED);
    try (Pipeline p = Pipeline.start(Kind.MYSQL, "fk_load", ddl(), TABLES)) {
      TablecastClient client = p.client("fk-load");
      List<TableMirror<Map<String, Object>>> mirrors = new ArrayList<>();
      for (String table : TABLES) {
        mirrors.add(p.readyMirror(client, table));
      }
      AtomicBoolean stop = new AtomicBoolean();
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      AtomicLong committed = new AtomicLong();
      List<Thread> threads = // the first in READ COMMITTED
          UnderLoad.writers(
              p, SEED, 3, true, stop, committed, errors, MysqlCascadeUnderLoadTest::statement);
      UnderLoad.runFor(SECONDS, threads, stop, errors);
      System.out.printf(
          "MysqlCascadeUnderLoadTest: %d transactions committed; rows now %s%n",
          committed.get(), mirrors.stream().map(TableMirror::size).toList());
      for (int i = 0; i < TABLES.length; i++) {
        p.awaitMirrorEqualsTable(mirrors.get(i), TABLES[i]);
      }
    } // closing the pipeline fails when reconciliation repaired a row
  }

  static List<String> ddl() {
    List<String> ddl = new ArrayList<>();
    ddl.add("CREATE TABLE parents (id INT PRIMARY KEY, name VARCHAR(20))");
    ddl.add(
        "CREATE TABLE children (id INT PRIMARY KEY, parent_id INT NOT NULL, note VARCHAR(20),"
            + " CONSTRAINT fk_children FOREIGN KEY (parent_id) REFERENCES parents (id)"
            + " ON DELETE CASCADE ON UPDATE CASCADE)");
    ddl.add(
        "CREATE TABLE toys (id INT PRIMARY KEY, child_id INT NULL, CONSTRAINT fk_toys"
            + " FOREIGN KEY (child_id) REFERENCES children (id) ON DELETE SET NULL ON UPDATE CASCADE)");
    StringBuilder parents = new StringBuilder("INSERT INTO parents VALUES ");
    for (int id = 1; id <= 40; id++) {
      parents
          .append(id > 1 ? "," : "")
          .append("(")
          .append(id)
          .append(", 'p")
          .append(id)
          .append("')");
    }
    ddl.add(parents.toString());
    StringBuilder children = new StringBuilder("INSERT INTO children VALUES ");
    for (int id = 1; id <= 120; id++) {
      children.append(id > 1 ? "," : "").append("(").append(id).append(", ");
      children.append(1 + id % 40).append(", 'c").append(id).append("')");
    }
    ddl.add(children.toString());
    StringBuilder toys = new StringBuilder("INSERT INTO toys VALUES ");
    for (int id = 1; id <= 240; id++) {
      toys.append(id > 1 ? "," : "").append("(").append(id).append(", ");
      toys.append(id % 13 == 0 ? "NULL" : String.valueOf(1 + id % 120)).append(")");
    }
    ddl.add(toys.toString());
    return ddl;
  }

  private static String statement(Random r) {
    int parent = 1 + r.nextInt(40) + (r.nextInt(3) == 0 ? 100 : 0); // re-keyed ones by 100
    int child = 1 + r.nextInt(130) + (r.nextInt(3) == 0 ? 1000 : 0);
    int toy = 1 + r.nextInt(250);
    if (r.nextInt(400) == 0) { // a range of parents at once, and everything under them
      int from = 1 + r.nextInt(40);
      return r.nextBoolean()
          ? "DELETE FROM parents WHERE id BETWEEN " + from + " AND " + (from + 3)
          : "UPDATE parents SET id = id + 100 WHERE id BETWEEN " + from + " AND " + (from + 3);
    }
    return switch (r.nextInt(13)) {
      case 0, 1 -> "INSERT INTO parents VALUES (" + parent + ", 'p" + parent + "')";
      case 2 -> "DELETE FROM parents WHERE id = " + parent;
      case 3 -> // a parent re-keyed, back and forth: its children follow
          parent > 100
              ? "UPDATE parents SET id = id - 100 WHERE id = " + parent
              : "UPDATE parents SET id = id + 100 WHERE id = " + parent;
      case 4 -> "UPDATE parents SET name = 'n" + r.nextInt(99) + "' WHERE id = " + parent;
      case 5, 6 -> "INSERT INTO children VALUES (" + child + ", " + parent + ", 'c')";
      case 7 -> "UPDATE children SET parent_id = " + parent + " WHERE id = " + child;
      case 8 -> "DELETE FROM children WHERE id = " + child;
      case 9 -> // a child re-keyed, back and forth: its toys follow
          child > 1000
              ? "UPDATE children SET id = id - 1000 WHERE id = " + child
              : "UPDATE children SET id = id + 1000 WHERE id = " + child;
      case 10 -> "INSERT INTO toys VALUES (" + toy + ", " + child + ")";
      case 11 -> "UPDATE toys SET child_id = " + child + " WHERE id = " + toy;
      default -> "DELETE FROM toys WHERE id = " + toy;
    };
  }
}

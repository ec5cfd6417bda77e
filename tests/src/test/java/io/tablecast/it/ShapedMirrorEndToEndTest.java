package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.ChangeType;
import io.tablecast.client.MirrorShape;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Client-chosen subscription shapes end to end, both databases: while a writer moves rows in and
 * out of a shape (region and price changed, rows inserted and deleted, NULL regions), the shaped
 * mirror ends equal to {@code SELECT id, price ... WHERE} the same filter, holds no other column,
 * and its listener heard rows moving in as inserts and out as deletes.
 */
class ShapedMirrorEndToEndTest {
  private static final int ROWS = 300;
  private static final int WRITES = Integer.getInteger("tablecast.shape.writes", 1_500);
  private static final String[] REGIONS = {"eu", "us", "apac", null};

  static List<String> ddl() {
    List<String> ddl = new ArrayList<>();
    ddl.add(
        "CREATE TABLE products (id int PRIMARY KEY, region varchar(8), price decimal(10,2) NOT"
            + " NULL, name varchar(40))");
    StringBuilder insert = new StringBuilder("INSERT INTO products VALUES ");
    for (int id = 1; id <= ROWS; id++) {
      String region = REGIONS[id % REGIONS.length];
      insert
          .append(id > 1 ? "," : "")
          .append("(")
          .append(id)
          .append(", ")
          .append(region == null ? "NULL" : "'" + region + "'")
          .append(", ")
          .append(id % 150)
          .append(".50, 'p")
          .append(id)
          .append("')");
    }
    ddl.add(insert.toString());
    return ddl;
  }

  /**
   * ALTER TABLE under a shaped mirror (PostgreSQL: it sees a dropped column within a second): a
   * column added beside the filter's keeps the shape working in the new layout; the filter's own
   * column dropped makes the mirror stale, naming the column, instead of silently holding rows the
   * table no longer describes and missing every change after (as before).
   */
  @org.junit.jupiter.api.Test
  void aShapeWhoseColumnIsDroppedIsRefusedAndTheMirrorSaysSo() throws Exception {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "shape_alter", ddl(), "products")) {
      String table = p.db.table("products");
      TablecastClient client = p.client("shaped");
      TableMirror<Map<String, Object>> m =
          client.mirror(table, MirrorShape.rows("region = ?", "eu").columns("price"));
      assertThat(m.awaitReady(Duration.ofSeconds(30))).isTrue();

      p.sql(
          "ALTER TABLE products ADD COLUMN note varchar(10)",
          "UPDATE products SET price = 7 WHERE id = 4");
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(m.get(4)).containsEntry("price", "7.00"));
      assertThat(m.staleReason()).isNull();

      p.sql("ALTER TABLE products DROP COLUMN region");
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> m.staleReason() != null);
      assertThat(m.staleReason())
          .contains("the shape asked of table '" + table + "' cannot be used")
          .contains("no column 'region'");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aShapedMirrorEqualsTheSelectWithTheSameFilter(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "shape", ddl(), "products")) {
      String table = p.db.table("products");
      TablecastClient client = p.client("shaped");
      TableMirror<Map<String, Object>> m =
          client.mirror(
              table, MirrorShape.rows("region = ? AND price < ?", "eu", 100).columns("price"));
      assertThat(m.awaitReady(Duration.ofSeconds(30))).isTrue();
      AtomicInteger movedIn = new AtomicInteger();
      AtomicInteger movedOut = new AtomicInteger();
      countMoves(m, movedIn, movedOut);
      Random r = new Random(26);
      try (Connection c = p.db.connect();
          PreparedStatement region =
              c.prepareStatement("UPDATE " + table + " SET region = ? WHERE id = ?");
          PreparedStatement price =
              c.prepareStatement("UPDATE " + table + " SET price = ? WHERE id = ?");
          PreparedStatement insert =
              c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?, ?, 'new')");
          PreparedStatement delete = c.prepareStatement("DELETE FROM " + table + " WHERE id = ?")) {
        int nextId = ROWS + 1;
        for (int i = 0; i < WRITES; i++) {
          int id = 1 + r.nextInt(ROWS);
          switch (r.nextInt(6)) {
            case 0, 1 -> {
              region.setString(1, REGIONS[r.nextInt(REGIONS.length)]);
              region.setInt(2, id);
              region.executeUpdate();
            }
            case 2, 3 -> {
              price.setBigDecimal(1, new BigDecimal(r.nextInt(200) + ".25"));
              price.setInt(2, id);
              price.executeUpdate();
            }
            case 4 -> {
              insert.setInt(1, nextId++);
              insert.setString(2, r.nextBoolean() ? "eu" : "us");
              insert.setBigDecimal(3, new BigDecimal(r.nextInt(200)));
              insert.executeUpdate();
            }
            default -> {
              delete.setInt(1, id);
              delete.executeUpdate();
            }
          }
        }
      }
      client.sync(Duration.ofSeconds(30));
      Map<Long, String> expected = new TreeMap<>();
      try (Connection c = p.db.connect();
          PreparedStatement q =
              c.prepareStatement(
                  "SELECT id, price FROM " + table + " WHERE region = ? AND price < ?")) {
        q.setString(1, "eu");
        q.setBigDecimal(2, new BigDecimal(100));
        try (ResultSet rs = q.executeQuery()) {
          while (rs.next()) {
            expected.put(rs.getLong(1), rs.getBigDecimal(2).toPlainString());
          }
        }
      }
      Map<Long, String> mirrored = new TreeMap<>();
      for (Map<String, Object> row : m.rows()) {
        assertThat(row.keySet())
            .as("only the key and the chosen column")
            .containsOnly("id", "price");
        mirrored.put(
            ((Number) row.get("id")).longValue(),
            new BigDecimal(row.get("price").toString()).toPlainString());
      }
      assertThat(mirrored).isEqualTo(expected);
      assertThat(movedIn.get()).as("rows moved in, as inserts").isPositive();
      assertThat(movedOut.get()).as("rows moved out, as deletes").isPositive();
      System.out.printf(
          "ShapedMirrorEndToEndTest %s: %d of the table's rows in the shape after %d writes; %d"
              + " moved in, %d moved out%n",
          kind, mirrored.size(), WRITES, movedIn.get(), movedOut.get());
    }
  }

  /** Counts the rows moving into {@code m} (inserts) and out of it (deletes). */
  private static void countMoves(
      TableMirror<Map<String, Object>> m, AtomicInteger in, AtomicInteger out) {
    m.addListener(
        e -> {
          if (e.op() == ChangeType.INSERT) {
            in.incrementAndGet();
          } else if (e.op() == ChangeType.DELETE) {
            out.incrementAndGet();
          }
        });
  }

  /** A ready mirror of the orders of the customers whose {@code column} is {@code value}. */
  private static TableMirror<Map<String, Object>> ordersOfCustomers(
      Pipeline p, TablecastClient client, String column, String value) throws InterruptedException {
    TableMirror<Map<String, Object>> m =
        client.mirror(
            p.db.table("orders"),
            MirrorShape.rows(
                "customer_id IN (SELECT id FROM "
                    + p.db.table("customers")
                    + " WHERE "
                    + column
                    + " = ?)",
                value));
    assertThat(m.awaitReady(Duration.ofSeconds(30))).isTrue();
    return m;
  }

  /** {@code customers (id, region)} and {@code orders (id, customer_id, total)}. */
  static List<String> ordersDdl() {
    List<String> ddl = new ArrayList<>();
    ddl.add("CREATE TABLE customers (id int PRIMARY KEY, region varchar(8))");
    ddl.add(
        "CREATE TABLE orders (id int PRIMARY KEY, customer_id int, total decimal(10,2) NOT NULL)");
    StringBuilder customers = new StringBuilder("INSERT INTO customers VALUES ");
    for (int id = 1; id <= 40; id++) {
      String region = REGIONS[id % REGIONS.length];
      customers
          .append(id > 1 ? "," : "")
          .append("(")
          .append(id)
          .append(", ")
          .append(region == null ? "NULL" : "'" + region + "'")
          .append(")");
    }
    ddl.add(customers.toString());
    StringBuilder orders = new StringBuilder("INSERT INTO orders VALUES ");
    for (int id = 1; id <= ROWS; id++) {
      orders.append(id > 1 ? "," : "").append("(").append(id).append(", ");
      orders.append(id % 11 == 0 ? "NULL" : String.valueOf(1 + id % 40)).append(", ");
      orders.append(id).append(".00)");
    }
    ddl.add(orders.toString());
    return ddl;
  }

  /**
   * ALTER TABLE of the table a shape's subquery reads: a column added there changes nothing; the
   * column its subquery filters on dropped makes the mirror stale, naming that table and column,
   * and keeps its rows. Before, every customer stopped matching the subquery, and every order moved
   * out of the mirror, which looked current.
   */
  @org.junit.jupiter.api.Test
  void aSubqueryWhoseTableLosesAColumnItReadsIsRefusedAndTheMirrorSaysSo() throws Exception {
    try (Pipeline p =
        Pipeline.start(Kind.POSTGRESQL, "subq_alter", ordersDdl(), "customers", "orders")) {
      String customers = p.db.table("customers");
      String orders = p.db.table("orders");
      TablecastClient client = p.client("subq-alter");
      TableMirror<Map<String, Object>> m = ordersOfCustomers(p, client, "region", "eu");
      int rows = m.size();
      assertThat(rows).isPositive();

      p.sql("ALTER TABLE customers ADD COLUMN note varchar(10)", "UPDATE customers SET note = 'x'");
      client.sync(Duration.ofSeconds(30));
      assertThat(m.size()).isEqualTo(rows);
      assertThat(m.staleReason()).isNull();

      // a column its subquery compares retyped: refused too (it compared text, the column holds
      // numbers now); the other mirror's subquery does not read it and follows on
      TableMirror<Map<String, Object>> byNote =
          ordersOfCustomers(p, p.client("subq-note"), "note", "x");
      assertThat(byNote.size()).isPositive();
      p.sql("ALTER TABLE customers ALTER COLUMN note TYPE int USING 1");
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> byNote.staleReason() != null);
      assertThat(byNote.staleReason()).contains("column 'note' is of kind INTEGER now, was STRING");
      client.sync(Duration.ofSeconds(30));
      assertThat(m.staleReason()).isNull();
      assertThat(m.size()).isEqualTo(rows);

      p.sql("ALTER TABLE customers DROP COLUMN region");
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> m.staleReason() != null || m.size() != rows);
      assertThat(m.staleReason())
          .contains("the shape asked of table '" + orders + "' cannot be used")
          .contains(customers)
          .contains("no column 'region'");
      assertThat(m.size()).isEqualTo(rows);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aSubqueryOverAnotherTableMovesRowsWhenThatTableChanges(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "subq", ordersDdl(), "customers", "orders")) {
      String customers = p.db.table("customers");
      String orders = p.db.table("orders");
      TablecastClient client = p.client("subq");
      TableMirror<Map<String, Object>> m = ordersOfCustomers(p, client, "region", "eu");
      AtomicInteger movedIn = new AtomicInteger();
      AtomicInteger movedOut = new AtomicInteger();
      countMoves(m, movedIn, movedOut);
      Random r = new Random(27);
      try (Connection c = p.db.connect();
          PreparedStatement region =
              c.prepareStatement("UPDATE " + customers + " SET region = ? WHERE id = ?");
          PreparedStatement owner =
              c.prepareStatement("UPDATE " + orders + " SET customer_id = ? WHERE id = ?");
          PreparedStatement insert =
              c.prepareStatement("INSERT INTO " + orders + " VALUES (?, ?, 1.00)");
          PreparedStatement delete =
              c.prepareStatement("DELETE FROM " + customers + " WHERE id = ?")) {
        int nextOrder = ROWS + 1;
        for (int i = 0; i < WRITES / 3; i++) {
          switch (r.nextInt(5)) {
            case 0, 1 -> {
              region.setString(1, REGIONS[r.nextInt(REGIONS.length)]);
              region.setInt(2, 1 + r.nextInt(40));
              region.executeUpdate();
            }
            case 2 -> {
              owner.setInt(1, 1 + r.nextInt(45));
              owner.setInt(2, 1 + r.nextInt(ROWS));
              owner.executeUpdate();
            }
            case 3 -> {
              insert.setInt(1, nextOrder++);
              insert.setInt(2, 1 + r.nextInt(40));
              insert.executeUpdate();
            }
            default -> {
              delete.setInt(1, 1 + r.nextInt(45));
              delete.executeUpdate();
            }
          }
        }
      }
      client.sync(Duration.ofSeconds(30));
      java.util.Set<Long> expected = new java.util.TreeSet<>();
      try (Connection c = p.db.connect();
          PreparedStatement q =
              c.prepareStatement(
                  "SELECT id FROM "
                      + orders
                      + " WHERE customer_id IN (SELECT id FROM "
                      + customers
                      + " WHERE region = ?)")) {
        q.setString(1, "eu");
        try (ResultSet rs = q.executeQuery()) {
          while (rs.next()) {
            expected.add(rs.getLong(1));
          }
        }
      }
      java.util.Set<Long> mirrored = new java.util.TreeSet<>();
      m.rows().forEach(row -> mirrored.add(((Number) row.get("id")).longValue()));
      assertThat(mirrored).isEqualTo(expected);
      assertThat(movedIn.get()).isPositive();
      assertThat(movedOut.get()).isPositive();
      System.out.printf(
          "ShapedMirrorEndToEndTest %s subquery: %d orders of eu customers after %d writes; %d"
              + " moved in, %d moved out%n",
          kind, mirrored.size(), WRITES / 3, movedIn.get(), movedOut.get());
    }
  }
}

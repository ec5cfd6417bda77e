package io.tablecast.it;

import io.tablecast.client.MirrorShape;
import io.tablecast.client.TableMirror;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes at random on {@code customers (id, region)} and {@code orders (id, customer_id, total)}
 * ({@link ShapedMirrorEndToEndTest#ordersDdl}): single statements and transactions of two to four,
 * a quarter rolled back, changing regions, owners and totals, inserting and deleting rows, changing
 * primary keys back and forth, and now and then every order at once (a batch that on the wide
 * tables is sent in parts); and three shapes over them, each with the {@code SELECT} that selects
 * the same rows.
 */
final class OrdersWorkload {
  private static final String[] REGIONS = {"eu", "us", "apac", null};

  private OrdersWorkload() {}

  /**
   * The workload's tables with each order 8 KB wider: a client that stops reading for a second
   * backs up more than the kernel's socket buffers hold, so the server's own queue for it fills.
   */
  static List<String> wideDdl() {
    List<String> ddl = new ArrayList<>(ShapedMirrorEndToEndTest.ordersDdl());
    ddl.add("ALTER TABLE orders ADD COLUMN pad varchar(9000)");
    ddl.add("UPDATE orders SET pad = repeat('x', 8000)");
    return ddl;
  }

  /** A shape, and the query that selects the same rows (its key, then the one column it holds). */
  record Shaped(String table, MirrorShape shape, String query) {}

  static List<Shaped> shapes(Pipeline p) {
    String customers = p.db.table("customers");
    String orders = p.db.table("orders");
    String ofEu = "customer_id IN (SELECT id FROM " + customers + " WHERE region = 'eu')";
    String cheap = "total < 150 AND customer_id IS NOT NULL";
    String regions = "region IN ('eu', 'us') OR region IS NULL";
    return List.of(
        new Shaped(
            orders,
            MirrorShape.rows(ofEu.replace("'eu'", "?"), "eu"),
            "SELECT id, total FROM " + orders + " WHERE " + ofEu),
        new Shaped(
            orders,
            MirrorShape.rows(cheap).columns("total"),
            "SELECT id, total FROM " + orders + " WHERE " + cheap),
        new Shaped(
            customers,
            MirrorShape.rows(regions),
            "SELECT id, region FROM " + customers + " WHERE " + regions));
  }

  /**
   * Three threads (not started) writing until {@code stop}, with the random choices of {@code
   * seed}; what they throw goes to {@code errors}.
   */
  static List<Thread> writers(
      Pipeline p, long seed, AtomicBoolean stop, AtomicLong committed, List<Throwable> errors) {
    return UnderLoad.writers(p, seed, 3, false, stop, committed, errors, OrdersWorkload::statement);
  }

  private static String statement(Random r) {
    int customer = 1 + r.nextInt(45);
    int order = 1 + r.nextInt(320);
    String region = REGIONS[r.nextInt(REGIONS.length)];
    if (r.nextInt(1500) == 0) { // every order at once: half of them in or out of a total's shape
      return "UPDATE orders SET total = 300.50 - total";
    }
    return switch (r.nextInt(9)) {
      case 0, 1 ->
          "UPDATE customers SET region = "
              + (region == null ? "NULL" : "'" + region + "'")
              + " WHERE id = "
              + customer;
      case 2 -> "UPDATE orders SET customer_id = " + customer + " WHERE id = " + order;
      case 3 -> "UPDATE orders SET total = " + r.nextInt(300) + ".25 WHERE id = " + order;
      case 4 ->
          "INSERT INTO orders (id, customer_id, total) VALUES ("
              + order
              + ", "
              + customer
              + ", 99.00)";
      case 5 -> "DELETE FROM orders WHERE id = " + order;
      case 6 -> "INSERT INTO customers (id, region) VALUES (" + customer + ", 'eu')";
      case 7 -> "DELETE FROM customers WHERE id = " + customer;
      default -> // a primary key changed, back and forth
          r.nextBoolean()
              ? "UPDATE orders SET id = id + 1000 WHERE id = " + order
              : "UPDATE orders SET id = id - 1000 WHERE id = " + (order + 1000);
    };
  }

  /** Key → the one other column the shape's query selects, from the mirror. */
  static Map<Long, String> contents(TableMirror<Map<String, Object>> m) {
    Map<Long, String> out = new TreeMap<>();
    for (Map<String, Object> row : m.rows()) {
      Object v = row.containsKey("total") ? row.get("total") : row.get("region");
      out.put(((Number) row.get("id")).longValue(), v == null ? null : canonical(v.toString()));
    }
    return out;
  }

  /** Key → the second column, from the database. */
  static Map<Long, String> selected(Pipeline p, String query) throws SQLException {
    Map<Long, String> out = new TreeMap<>();
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      while (rs.next()) {
        String v = rs.getString(2);
        out.put(rs.getLong(1), v == null ? null : canonical(v));
      }
    }
    return out;
  }

  /** A decimal's plain text without trailing zeros; any other text as it is. */
  static String canonical(String v) {
    try {
      return new BigDecimal(v).stripTrailingZeros().toPlainString();
    } catch (NumberFormatException notANumber) {
      return v;
    }
  }
}

package io.tablecast.it;

import static io.tablecast.it.MariadbShop.RANDOM_CUSTOMER;
import static io.tablecast.it.MariadbShop.RANDOM_DRAFT;
import static io.tablecast.it.MariadbShop.RANDOM_PRODUCT;
import static io.tablecast.it.MariadbShop.RANDOM_STORE;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.LocalDateTime;

/**
 * The MariaDB shop's orders: drafts, lines and adjustments, placing (a key change cascading to
 * lines, adjustments and payments), payments, cancelling (a delete cascading three levels), and the
 * RANGE COLUMNS partitioned {@code order_events}, written to directly and moved between partitions.
 */
final class MariadbShopOrders {
  private MariadbShopOrders() {}

  static void createDraftOrder(ShopSession s) throws SQLException {
    String ref = s.nextRef("D");
    long customer = s.pickLong(RANDOM_CUSTOMER);
    long store = s.pickLong(RANDOM_STORE);
    s.update(
        "INSERT INTO orders (order_ref, customer_id, store_id, status, currency, ship_to, notes) "
            + "VALUES (?, ?, ?, 'draft', ?, ?, ?)",
        ref,
        customer < 0 ? null : customer,
        store < 0 || s.chance(30) ? null : store,
        s.oneOf("EUR", "USD"),
        "{\"city\": \""
            + s.oneOf("Lyon", "Graz", "Gent")
            + "\", \"zip\": \""
            + s.between(1000, 9999)
            + "\"}",
        s.chance(30) ? s.words(6) : null);
    int lines = s.between(1, 4);
    for (int line = 1; line <= lines; line++) {
      addLine(s, ref, line);
    }
    recomputeTotal(s, ref);
    logEvent(s, ref, "created");
  }

  static void addLine(ShopSession s, String ref, int line) throws SQLException {
    int added =
        s.update(
            "INSERT INTO order_items (order_ref, line_no, product_id, quantity, unit_price, discount_pct, "
                + "gift_wrap) SELECT ?, ?, id, ?, price, ?, ? FROM products ORDER BY RAND() LIMIT 1",
            ref,
            line,
            s.between(1, 5),
            new BigDecimal(s.oneOf("0.00", "0.00", "5.00", "12.50")),
            s.chance(10) ? 1 : 0);
    for (int adj = 1; added > 0 && adj <= s.between(0, 2); adj++) {
      s.update(
          "INSERT INTO item_adjustments (order_ref, line_no, adj_no, kind, amount, reason) VALUES (?, ?, ?, ?, ?, ?)",
          ref,
          line,
          adj,
          s.oneOf("coupon", "tax", "shipping"),
          new BigDecimal(s.price(20)),
          s.chance(50) ? s.words(3) : null);
    }
  }

  static void recomputeTotal(ShopSession s, String ref) throws SQLException {
    s.update(
        "UPDATE orders o SET total = (SELECT COALESCE(ROUND(SUM(i.quantity * i.unit_price * (100 - i.discount_pct) "
            + "/ 100), 2), 0) FROM order_items i WHERE i.order_ref = o.order_ref), version = version + 1 "
            + "WHERE o.order_ref = ?",
        ref);
  }

  static void editDraftLines(ShopSession s) throws SQLException {
    Object ref = s.pick(RANDOM_DRAFT);
    if (ref == null) {
      return;
    }
    s.update(
        "UPDATE order_items SET quantity = quantity + ? WHERE order_ref = ?", s.between(1, 3), ref);
    s.update(
        "UPDATE item_adjustments SET amount = amount + 0.50, reason = ? WHERE order_ref = ?",
        s.words(2),
        ref);
    long last = s.pickLong("SELECT MAX(line_no) FROM order_items WHERE order_ref = ?", ref);
    if (s.chance(40) && last > 0) {
      s.update(
          "DELETE FROM order_items WHERE order_ref = ? AND line_no = ?",
          ref,
          last); // cascades to adjustments
    } else if (last < 60) {
      addLine(s, (String) ref, (int) Math.max(last, 0) + 1);
    }
    recomputeTotal(s, (String) ref);
  }

  /**
   * The draft's reference becomes the order number: cascades into every line, adjustment and
   * payment.
   */
  static void placeOrder(ShopSession s) throws SQLException {
    Object draft = s.pick(RANDOM_DRAFT);
    if (draft == null) {
      return;
    }
    String placed = "O" + ((String) draft).substring(1);
    if (s.update(
            "UPDATE orders SET order_ref = ?, status = 'placed', placed_at = NOW(6), version = version + 1 "
                + "WHERE order_ref = ? AND status = 'draft'",
            placed,
            draft)
        == 0) {
      return;
    }
    s.update(
        "INSERT INTO payments (order_ref, amount, method, gateway_payload, receipt, captured_at) "
            + "SELECT order_ref, total, ?, ?, ?, IF(?, NOW(6), NULL) FROM orders WHERE order_ref = ?",
        s.oneOf("card", "paypal", "invoice"),
        "{\"auth\": \"" + s.nextRef("a") + "\", \"3ds\": true}",
        s.chance(50) ? s.bytes(400) : null,
        s.chance(50) ? 1 : 0,
        placed);
    logEvent(s, placed, "placed");
  }

  static void fulfilOrder(ShopSession s) throws SQLException {
    Object ref =
        s.pick(
            "SELECT order_ref FROM orders WHERE status IN ('placed', 'paid') ORDER BY RAND() LIMIT 1");
    if (ref == null) {
      return;
    }
    s.update(
        "UPDATE orders SET status = IF(status = 'placed', 'paid', 'shipped'), version = version + 1 "
            + "WHERE order_ref = ?",
        ref);
    s.update(
        "UPDATE payments SET captured_at = NOW(6) WHERE order_ref = ? AND captured_at IS NULL",
        ref);
    logEvent(s, (String) ref, "fulfilled");
  }

  static void cancelOrder(ShopSession s) throws SQLException {
    Object ref =
        s.pick("SELECT order_ref FROM orders WHERE status <> 'shipped' ORDER BY RAND() LIMIT 1");
    if (ref != null
        && s.update("DELETE FROM orders WHERE order_ref = ?", ref)
            > 0) { // lines, adjustments, payments
      logEvent(s, (String) ref, "cancelled");
    }
  }

  static void bulkDiscount(ShopSession s) throws SQLException {
    s.update(
        "UPDATE order_items i JOIN orders o ON o.order_ref = i.order_ref SET i.discount_pct = ? "
            + "WHERE o.status = 'draft' AND o.customer_id = ?",
        new BigDecimal(s.oneOf("0.00", "10.00", "15.50")),
        s.pickLong(RANDOM_CUSTOMER));
    s.update(
        "UPDATE order_items SET quantity = quantity + 1 WHERE product_id = ? AND order_ref LIKE 'D-%'",
        s.pickLong(RANDOM_PRODUCT));
  }

  // --- order events (RANGE COLUMNS partitioned) ------------------------------------------------

  static void logEvent(ShopSession s, String ref, String type) throws SQLException {
    s.update(
        "INSERT INTO order_events (occurred_at, order_ref, event_type, payload) VALUES (NOW(6), ?, ?, ?)",
        ref,
        type,
        "{\"by\": \"writer-" + s.writer + "\"}");
  }

  static void logOrderEvent(ShopSession s) throws SQLException {
    Object ref = s.pick("SELECT order_ref FROM orders ORDER BY RAND() LIMIT 1");
    s.update(
        "INSERT INTO order_events (occurred_at, order_ref, event_type, payload) VALUES (?, ?, ?, ?)",
        randomMoment(s, 2023, 2027),
        ref == null ? "none" : ref,
        s.oneOf("viewed", "emailed", "note"),
        "{\"channel\": \"" + s.oneOf("web", "app") + "\"}");
    if (s.chance(50)) { // addressed to a partition, as maintenance scripts do
      s.update(
          "INSERT INTO order_events PARTITION (p2024) (occurred_at, order_ref, event_type, payload) "
              + "VALUES (?, ?, 'imported', NULL)",
          randomMoment(s, 2024, 2024),
          ref == null ? "none" : ref);
    }
  }

  /**
   * Moves events across partitions (the key changes with the partitioning column) and edits one
   * partition.
   */
  static void moveOrderEvents(ShopSession s) throws SQLException {
    s.update(
        "UPDATE order_events SET occurred_at = occurred_at + INTERVAL ? DAY WHERE id = ?",
        s.oneOf(-400, -200, 180, 365),
        s.pickLong("SELECT id FROM order_events ORDER BY RAND() LIMIT 1"));
    s.update(
        "UPDATE order_events PARTITION (p2025) SET payload = JSON_SET(COALESCE(payload, '{}'), '$.seen', ?) "
            + "WHERE id % 7 = ?",
        s.between(1, 99), s.between(0, 6));
    if (s.chance(30)) {
      s.update("DELETE FROM order_events WHERE occurred_at < '2023-04-01' ORDER BY id LIMIT 5");
    }
  }

  private static LocalDateTime randomMoment(ShopSession s, int fromYear, int toYear) {
    return LocalDateTime.of(
        s.between(fromYear, toYear),
        s.between(1, 12),
        s.between(1, 28),
        s.between(0, 23),
        s.between(0, 59),
        s.between(0, 59),
        s.between(0, 999_999) * 1000);
  }
}

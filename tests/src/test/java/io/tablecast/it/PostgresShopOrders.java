package io.tablecast.it;

import static io.tablecast.it.PostgresShop.RANDOM_CUSTOMER;
import static io.tablecast.it.PostgresShop.RANDOM_DRAFT;
import static io.tablecast.it.PostgresShop.RANDOM_STORE;
import static io.tablecast.it.PostgresShop.bits;
import static io.tablecast.it.PostgresShop.ip;

import java.math.BigDecimal;
import java.sql.SQLException;

/**
 * The PostgreSQL shop's orders: drafts with composite-typed addresses, lines with hstore options
 * and adjustments, placing (a key change cascading to lines, adjustments, payments and the
 * partitioned shipments), payments with xml and bit strings, cancelling through a writable CTE.
 */
final class PostgresShopOrders {
  private PostgresShopOrders() {}

  static void createDraftOrder(ShopSession s) throws SQLException {
    String ref = s.nextRef("D");
    long customer = s.pickLong(RANDOM_CUSTOMER);
    long store = s.pickLong(RANDOM_STORE);
    s.update(
        "INSERT INTO orders (order_ref, customer_id, store_id, currency, ship_to, client_ip, notes, metadata) "
            + "VALUES (?, ?, ?, ?, ROW(?, NULL, ?, ?, ?)::postal_address, ?::inet, ?, ?::jsonb)",
        ref,
        customer < 0 ? null : customer,
        store < 0 || s.chance(30) ? null : store,
        s.oneOf("EUR", "USD"),
        s.between(1, 99) + " Rue " + s.words(1),
        s.oneOf("Lyon", "Graz"),
        String.valueOf(s.between(1000, 9999)),
        s.oneOf("FR", "AT"),
        ip(s),
        s.chance(30) ? s.words(6) : null,
        "{\"channel\": \"" + s.oneOf("web", "app") + "\", \"ab\": [" + s.between(0, 3) + "]}");
    for (int line = 1; line <= s.between(1, 4); line++) {
      addLine(s, ref, line);
    }
    recomputeTotal(s, ref);
    if (s.chance(50)) {
      PostgresShopLogs.bookShipment(s, ref);
    }
  }

  static void addLine(ShopSession s, String ref, int line) throws SQLException {
    int added =
        s.update(
            "INSERT INTO order_items (order_ref, line_no, product_id, quantity, unit_price, options) "
                + "SELECT ?, ?, id, ?, price, ?::hstore FROM products ORDER BY random() LIMIT 1",
            ref,
            line,
            s.between(1, 5),
            s.chance(50) ? null : "size=>" + s.oneOf("S", "M", "XL") + ", engraving=>NULL");
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
        "UPDATE orders o SET total = coalesce((SELECT sum(i.quantity * i.unit_price) FROM order_items i "
            + "WHERE i.order_ref = o.order_ref), 0) WHERE o.order_ref = ?",
        ref);
  }

  static void editDraftLines(ShopSession s) throws SQLException {
    Object ref = s.pick(RANDOM_DRAFT);
    if (ref == null) {
      return;
    }
    s.update(
        "UPDATE order_items SET quantity = quantity + ?, options = coalesce(options, '') || hstore('gift', ?::text) "
            + "WHERE order_ref = ?",
        s.between(1, 3),
        s.oneOf("yes", "no"),
        ref);
    s.update(
        "UPDATE item_adjustments SET amount = amount + 0.50, reason = ? WHERE order_ref = ?",
        s.words(2),
        ref);
    long last = s.pickLong("SELECT max(line_no) FROM order_items WHERE order_ref = ?", ref);
    if (s.chance(40) && last > 0) {
      s.update("DELETE FROM order_items WHERE order_ref = ? AND line_no = ?", ref, (int) last);
    } else if (last < 60
        && s.pickLong("SELECT count(*) FROM orders WHERE order_ref = ?", ref) > 0) {
      addLine(s, (String) ref, (int) Math.max(last, 0) + 1);
    }
    recomputeTotal(s, (String) ref);
  }

  /**
   * The draft's reference becomes the order number: cascades into its lines, their adjustments, its
   * payments and its shipments (a partitioned table).
   */
  static void placeOrder(ShopSession s) throws SQLException {
    Object draft = s.pick(RANDOM_DRAFT);
    if (draft == null) {
      return;
    }
    String placed = "O" + ((String) draft).substring(1);
    if (s.update(
            "UPDATE orders SET order_ref = ?, status = 'placed', placed_at = now() "
                + "WHERE order_ref = ? AND status = 'draft'",
            placed,
            draft)
        == 0) {
      return;
    }
    s.update(
        "INSERT INTO payments (order_ref, amount, method, risk_flags, gateway_response, captured_at) "
            + "SELECT order_ref, total, ?, ?::bit(8), XMLPARSE(DOCUMENT ?), CASE WHEN ? THEN now() END "
            + "FROM orders WHERE order_ref = ?",
        s.oneOf("card", "paypal", "invoice"),
        bits(s, 8),
        "<?xml version=\"1.0\"?><auth code=\""
            + s.nextRef("a")
            + "\"><result>approved &amp; settled</result></auth>",
        s.chance(50),
        placed);
    if (s.chance(50)) {
      PostgresShopLogs.bookShipment(s, placed);
    }
  }

  static void fulfilOrder(ShopSession s) throws SQLException {
    Object ref =
        s.pick(
            "SELECT order_ref FROM orders WHERE status IN ('placed', 'paid') ORDER BY random() LIMIT 1");
    if (ref == null) {
      return;
    }
    s.update(
        "UPDATE orders SET status = CASE status WHEN 'placed' THEN 'paid'::order_status ELSE 'shipped' END "
            + "WHERE order_ref = ?",
        ref);
    s.update(
        "UPDATE payments SET captured_at = now(), risk_flags = risk_flags | B'00000001' "
            + "WHERE order_ref = ? AND captured_at IS NULL",
        ref);
    s.update(
        "UPDATE shipments SET dispatched_at = now(), tracking_no = ? WHERE order_ref = ?",
        s.nextRef("TRK"),
        ref);
  }

  /**
   * One statement: the order goes (cascading to lines, adjustments, payments, shipments), the audit
   * log notes it.
   */
  static void cancelOrder(ShopSession s) throws SQLException {
    s.update(
        "WITH gone AS (DELETE FROM orders WHERE order_ref = (SELECT order_ref FROM orders WHERE status <> 'shipped' "
            + "ORDER BY random() LIMIT 1) RETURNING order_ref, total) INSERT INTO audit_log (logged_at, actor, action, "
            + "entity, details) SELECT now(), ?, 'cancel', order_ref, jsonb_build_object('total', total) FROM gone",
        "writer-" + s.writer);
  }
}

package io.tablecast.it;

import io.tablecast.it.ShopWorkload.Action;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * The shop's partitioned and inheritance tables on PostgreSQL: {@code shipments} (list by region,
 * the EU sub-partitioned by hash, a default partition), {@code audit_log} (range by year, a default
 * partition) and {@code price_history} (yearly inheritance children fed by rules). Rows move
 * between partitions by updates of the partitioning column, and maintenance writes address
 * partitions and children directly, as such applications do.
 */
final class PostgresShopLogs {
  private PostgresShopLogs() {}

  static void seed(ShopSession s) throws SQLException {
    for (int i = 0; i < 40; i++) {
      bookShipment(s, s.pick(PostgresShop.RANDOM_ORDER));
    }
    for (int i = 0; i < 150; i++) {
      audit(s);
    }
    for (int i = 0; i < 120; i++) {
      recordPrices(s);
    }
  }

  static List<Action> actions() {
    return List.of(
        new Action("book_shipment", 2, s -> bookShipment(s, s.pick(PostgresShop.RANDOM_ORDER))),
        new Action("move_shipments", 2, PostgresShopLogs::moveShipments),
        new Action("audit", 3, PostgresShopLogs::audit),
        new Action("move_audit_entries", 2, PostgresShopLogs::moveAuditEntries),
        new Action("record_prices", 3, PostgresShopLogs::recordPrices),
        new Action("revise_prices", 2, PostgresShopLogs::revisePrices));
  }

  /**
   * A shipment, routed by region to the EU hash partitions, the North America partition or the
   * default.
   */
  static void bookShipment(ShopSession s, Object orderRef) throws SQLException {
    if (orderRef == null) {
      return;
    }
    s.update(
        "INSERT INTO shipments (region, order_ref, carrier, transit_time) VALUES (?, ?, ?, ?::interval)",
        s.oneOf("eu", "eu", "us", "ca", "uk", "au"),
        orderRef,
        s.oneOf("DHL", "UPS", "La Poste"),
        s.oneOf("2 days", "1 day 06:00:00", "36:15:00"));
  }

  private static void moveShipments(ShopSession s) throws SQLException {
    // the partitioning column changes: the row moves to another partition (and, being part of the
    // key, a new key)
    s.update(
        "UPDATE shipments SET region = ? WHERE id = (SELECT id FROM shipments ORDER BY random() LIMIT 1)",
        s.oneOf("eu", "us", "uk"));
    // addressed to partitions directly
    s.update(
        "INSERT INTO shipments_na (region, order_ref, carrier, transit_time) "
            + "SELECT ?, order_ref, 'FedEx', '3 days'::interval FROM orders ORDER BY random() LIMIT 1",
        s.oneOf("us", "ca"));
    s.update(
        "UPDATE shipments_eu SET transit_time = transit_time + interval '1 day' WHERE id % 3 = ?",
        s.between(0, 2));
    if (s.chance(30)) {
      s.update(
          "DELETE FROM shipments_other WHERE id IN (SELECT id FROM shipments_other ORDER BY random() LIMIT 1)");
    }
  }

  private static void audit(ShopSession s) throws SQLException {
    s.update(
        "INSERT INTO audit_log (logged_at, actor, action, entity, details) VALUES (?, ?, ?, ?, ?::jsonb)",
        moment(s, 2023, 2027),
        "writer-" + s.writer,
        s.oneOf("login", "export", "update"),
        s.oneOf("customer", "order"),
        "{\"ip\": \"" + PostgresShop.ip(s) + "\"}");
    if (s.chance(50)) { // a backfill addressed to last year's partition
      s.update(
          "INSERT INTO audit_log_2024 (logged_at, actor, action, entity) VALUES (?, 'import', 'backfill', 'order')",
          moment(s, 2024, 2024).withOffsetSameLocal(ZoneOffset.UTC));
    }
  }

  private static void moveAuditEntries(ShopSession s) throws SQLException {
    s.update(
        "UPDATE audit_log SET logged_at = logged_at + ?::interval WHERE id = (SELECT id FROM audit_log "
            + "ORDER BY random() LIMIT 1)",
        s.oneOf("-1 year", "6 months", "1 year 2 days"));
    s.update(
        "UPDATE audit_log_2025 SET details = jsonb_set(coalesce(details, '{}'), '{seen}', to_jsonb(?::int)) "
            + "WHERE id % 7 = ?",
        s.between(1, 99), s.between(0, 6));
    if (s.chance(30)) { // retention, partition by partition
      s.update(
          "DELETE FROM audit_log_2023 WHERE id IN (SELECT id FROM audit_log_2023 WHERE logged_at < '2023-04-01' "
              + "ORDER BY logged_at LIMIT 2)");
    }
  }

  /**
   * Prices recorded through the parent: its rules route each row to its year's child (others stay
   * in the parent).
   */
  private static void recordPrices(ShopSession s) throws SQLException {
    s.execute(
        "INSERT INTO price_history (product_id, recorded_on, price) VALUES (?, ?, ?)",
        (int) s.pickLong(PostgresShop.RANDOM_PRODUCT),
        day(s, 2022, 2026),
        new BigDecimal(s.price(500)));
    if (s.chance(30)) { // the nightly snapshot of a category, many rows in one statement
      s.execute(
          "INSERT INTO price_history (product_id, recorded_on, price, source) SELECT id, ?, price, 'nightly' "
              + "FROM products WHERE category_code = (SELECT category_code FROM products ORDER BY random() LIMIT 1)",
          day(s, 2023, 2025));
    }
    if (s.chance(30)) { // a correction script writing to the child itself
      s.update(
          "INSERT INTO price_history_2025 (product_id, recorded_on, price, source) VALUES (?, ?, ?, 'import')",
          (int) s.pickLong(PostgresShop.RANDOM_PRODUCT),
          day(s, 2025, 2025),
          new BigDecimal(s.price(500)));
    }
  }

  /** Updates and deletes through the parent reach the children; ONLY and direct writes do not. */
  private static void revisePrices(ShopSession s) throws SQLException {
    s.update(
        "UPDATE price_history SET price = price + 1, source = 'corrected' WHERE product_id = ?",
        (int) s.pickLong(PostgresShop.RANDOM_PRODUCT));
    s.update(
        "UPDATE ONLY price_history SET source = 'legacy' WHERE id IN (SELECT id FROM ONLY price_history "
            + "ORDER BY random() LIMIT 2)");
    if (s.chance(30)) {
      s.update(
          "DELETE FROM price_history WHERE product_id = ? AND recorded_on < ?",
          (int) s.pickLong(PostgresShop.RANDOM_PRODUCT),
          day(s, 2023, 2026));
      s.update(
          "DELETE FROM price_history_2023 WHERE id IN (SELECT id FROM price_history_2023 WHERE recorded_on < "
              + "'2023-04-01' ORDER BY random() LIMIT 2)");
    }
  }

  private static OffsetDateTime moment(ShopSession s, int fromYear, int toYear) {
    return OffsetDateTime.of(
        s.between(fromYear, toYear),
        s.between(1, 12),
        s.between(1, 28),
        s.between(0, 23),
        s.between(0, 59),
        s.between(0, 59),
        s.between(0, 999_999) * 1000,
        ZoneOffset.ofHours(s.between(-5, 5)));
  }

  private static LocalDate day(ShopSession s, int fromYear, int toYear) {
    return LocalDate.of(s.between(fromYear, toYear), s.between(1, 12), s.between(1, 28));
  }
}

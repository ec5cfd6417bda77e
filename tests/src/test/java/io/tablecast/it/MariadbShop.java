package io.tablecast.it;

import io.tablecast.it.ShopWorkload.Action;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The shop on MariaDB/MySQL ({@code realistic/mariadb.sql}): what its writers do, in the SQL such
 * an application writes ({@code ON DUPLICATE KEY UPDATE}, {@code REPLACE}, multi-table {@code
 * UPDATE}, {@code DELETE ... LIMIT}, writes addressed to a partition). Customers (closing one
 * cascades and sets NULL in five tables) and stores (spatial columns) are here, orders in {@link
 * MariadbShopOrders}, the catalogue in {@link MariadbShopCatalogue}. Writers run with a session
 * time zone that is neither UTC nor the server's.
 */
final class MariadbShop implements Shop {
  private static final List<String> ROOTS = List.of("apparel", "electronics", "home", "garden");
  static final String RANDOM_CUSTOMER = "SELECT id FROM customers ORDER BY RAND() LIMIT 1";
  static final String RANDOM_PRODUCT = "SELECT id FROM products ORDER BY RAND() LIMIT 1";
  static final String RANDOM_STORE = "SELECT id FROM stores ORDER BY RAND() LIMIT 1";
  static final String RANDOM_DRAFT =
      "SELECT order_ref FROM orders WHERE status = 'draft' ORDER BY RAND() LIMIT 1";

  @Override
  public List<String> schema() {
    return SqlScript.statements("realistic/mariadb.sql");
  }

  @Override
  public List<String> tables() {
    return List.of(
        "customers",
        "customer_addresses",
        "categories",
        "category_attributes",
        "products",
        "product_reviews",
        "stores",
        "inventory",
        "orders",
        "order_items",
        "item_adjustments",
        "payments",
        "wishlists",
        "order_events");
  }

  @Override
  public String topLevelTablesQuery() {
    return "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' "
        + "AND TABLE_NAME NOT LIKE 'tablecast\\_%'";
  }

  @Override
  public List<String> partitionsAndChildren() {
    return List.of(
        "order_events PARTITION (p2023)",
        "order_events PARTITION (p2024)",
        "order_events PARTITION (p2025)",
        "order_events PARTITION (pfuture)");
  }

  @Override
  public void prepareSession(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SET time_zone = '+05:30'");
      s.execute("SET SESSION innodb_lock_wait_timeout = 10");
    }
  }

  @Override
  public void seed(ShopSession s) throws SQLException {
    s.update(
        "INSERT INTO categories (code, parent_code, name, sort_order) VALUES ('uncategorized', NULL, 'Uncategorized', 0)");
    for (String root : ROOTS) {
      MariadbShopCatalogue.insertCategory(s, root, null);
      for (int i = 1; i <= 3; i++) {
        MariadbShopCatalogue.insertCategory(s, root + "_" + i, root);
        for (int j = 1; j <= 2; j++) {
          MariadbShopCatalogue.insertCategory(s, root + "_" + i + "_" + j, root + "_" + i);
        }
      }
    }
    for (int i = 0; i < 6; i++) {
      openStore(s);
    }
    repeat(60, () -> registerCustomer(s));
    repeat(120, () -> MariadbShopCatalogue.newProduct(s));
    repeat(150, () -> MariadbShopCatalogue.restock(s));
    repeat(40, () -> MariadbShopOrders.createDraftOrder(s));
    repeat(20, () -> MariadbShopOrders.placeOrder(s));
    repeat(60, () -> MariadbShopCatalogue.review(s));
    repeat(60, () -> wishlist(s));
    repeat(150, () -> MariadbShopOrders.logOrderEvent(s));
  }

  @Override
  public List<Action> actions() {
    return List.of(
        new Action("register_customer", 3, MariadbShop::registerCustomer),
        new Action("update_customer", 3, MariadbShop::updateCustomer),
        new Action(
            "close_customer",
            1,
            s -> s.update("DELETE FROM customers WHERE id = ?", s.pickLong(RANDOM_CUSTOMER))),
        new Action("create_draft_order", 5, MariadbShopOrders::createDraftOrder),
        new Action("edit_draft_lines", 3, MariadbShopOrders::editDraftLines),
        new Action("place_order", 4, MariadbShopOrders::placeOrder),
        new Action("fulfil_order", 2, MariadbShopOrders::fulfilOrder),
        new Action("cancel_order", 3, MariadbShopOrders::cancelOrder),
        new Action("reprice_category", 2, MariadbShopCatalogue::repriceCategory),
        new Action("bulk_discount", 1, MariadbShopOrders::bulkDiscount),
        new Action("rename_category", 2, MariadbShopCatalogue::renameCategory),
        new Action("move_products", 2, MariadbShopCatalogue::moveProducts),
        new Action(
            "prune_category",
            1,
            s ->
                s.update(
                    "DELETE FROM categories WHERE code = ?",
                    s.pick(
                        "SELECT code FROM categories WHERE parent_code IS NOT NULL ORDER BY RAND() LIMIT 1"))),
        new Action("grow_categories", 2, MariadbShopCatalogue::growCategories),
        new Action("edit_product", 4, MariadbShopCatalogue::editProduct),
        new Action("new_product", 2, MariadbShopCatalogue::newProduct),
        new Action(
            "delete_product",
            1,
            s -> s.update("DELETE FROM products WHERE id = ?", s.pickLong(RANDOM_PRODUCT))),
        new Action("review", 2, MariadbShopCatalogue::review),
        new Action("restock", 3, MariadbShopCatalogue::restock),
        new Action("relocate_store", 1, MariadbShop::relocateStore),
        new Action("open_or_close_store", 1, MariadbShop::openOrCloseStore),
        new Action("log_order_event", 3, MariadbShopOrders::logOrderEvent),
        new Action("move_order_events", 2, MariadbShopOrders::moveOrderEvents),
        new Action("wishlist", 2, MariadbShop::wishlist));
  }

  // --- customers -------------------------------------------------------------------------------

  private static void registerCustomer(ShopSession s) throws SQLException {
    long referrer = s.chance(30) ? s.pickLong(RANDOM_CUSTOMER) : -1;
    String ref = s.nextRef("c");
    s.update(
        "INSERT INTO customers (email, full_name, status, marketing_opt_in, birth_year, referred_by, preferences, "
            + "loyalty_points) VALUES (?, ?, 'active', ?, ?, ?, ?, ?)",
        "shopper." + ref + "@example.com",
        s.oneOf("Zoë", "José", "Ana", "Łukasz", "Mei") + " " + ref,
        s.oneOf("", "email", "email,sms", "push,post"),
        s.chance(70) ? s.between(1940, 2008) : null,
        referrer < 0 ? null : referrer,
        "{\"language\": \""
            + s.oneOf("en", "fr", "de")
            + "\", \"newsletter\": "
            + s.chance(50)
            + "}",
        s.between(0, 500));
    long id = s.pickLong("SELECT LAST_INSERT_ID()");
    for (int n = 1; n <= s.between(1, 2); n++) {
      insertAddress(s, id, n);
    }
  }

  private static void insertAddress(ShopSession s, long customer, int addressNo)
      throws SQLException {
    s.update(
        "INSERT INTO customer_addresses (customer_id, address_no, kind, line1, line2, city, postcode, country, "
            + "is_default) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        customer,
        addressNo,
        s.oneOf("billing", "shipping"),
        s.between(1, 200) + " " + s.words(2) + " Street",
        s.chance(30) ? "Apt " + s.between(1, 90) : null,
        s.oneOf("Paris", "Köln", "Málaga", "Porto"),
        String.valueOf(s.between(10000, 99999)),
        s.oneOf("FR", "DE", "ES", "PT"),
        addressNo == 1 ? 1 : 0);
  }

  private static void updateCustomer(ShopSession s) throws SQLException {
    long id = s.pickLong(RANDOM_CUSTOMER);
    s.update(
        "UPDATE customers SET preferences = JSON_SET(COALESCE(preferences, '{}'), '$.theme', ?, '$.visits', ?), "
            + "loyalty_points = loyalty_points + ?, marketing_opt_in = ?, status = ? WHERE id = ?",
        s.oneOf("dark", "light"),
        s.between(1, 1000),
        s.between(1, 50),
        s.oneOf("", "sms", "email,push"),
        s.chance(90) ? "active" : "suspended",
        id);
    s.update(
        "UPDATE customer_addresses SET line2 = ?, is_default = 1 - is_default WHERE customer_id = ?",
        s.chance(50) ? null : "Floor " + s.between(1, 9),
        id);
    if (s.chance(30)) {
      long next =
          s.pickLong(
              "SELECT COALESCE(MAX(address_no), 0) + 1 FROM customer_addresses WHERE customer_id = ?",
              id);
      if (next > 0 && next < 200) {
        insertAddress(s, id, (int) next);
      }
    } else if (s.chance(20)) {
      s.update(
          "DELETE FROM customer_addresses WHERE customer_id = ? ORDER BY address_no LIMIT 1", id);
    }
  }

  // --- stores ----------------------------------------------------------------------------------
  static void openStore(ShopSession s) throws SQLException {
    long id = s.pickLong("SELECT COALESCE(MAX(id), 0) + 1 FROM stores");
    double lon = -5 + s.rnd.nextDouble() * 20;
    double lat = 40 + s.rnd.nextDouble() * 12;
    s.update(
        "INSERT INTO stores (id, name, location, delivery_area, opened_on, opening_hours) "
            + "VALUES (?, ?, ST_GeomFromText(?), ST_GeomFromText(?), ?, ?)",
        id,
        "Store " + s.words(1),
        point(lon, lat),
        s.chance(80) ? square(lon, lat, 0.1 + s.rnd.nextDouble()) : null,
        s.chance(80)
            ? java.time.LocalDate.of(2000 + s.between(0, 25), s.between(1, 12), s.between(1, 28))
            : null,
        "{\"mon\": \"09:00-19:00\", \"sat\": \"10:00-" + s.between(13, 18) + ":00\"}");
  }

  static void relocateStore(ShopSession s) throws SQLException {
    double lon = -5 + s.rnd.nextDouble() * 20;
    double lat = 40 + s.rnd.nextDouble() * 12;
    s.update(
        "UPDATE stores SET location = ST_GeomFromText(?), delivery_area = ST_GeomFromText(?), "
            + "opening_hours = JSON_SET(COALESCE(opening_hours, '{}'), '$.sun', ?) WHERE id = ?",
        point(lon, lat),
        s.chance(80) ? square(lon, lat, 0.05 + s.rnd.nextDouble()) : null,
        s.chance(50) ? "closed" : "10:00-14:00",
        s.pickLong(RANDOM_STORE));
  }

  static void openOrCloseStore(ShopSession s) throws SQLException {
    if (s.chance(50) && s.pickLong("SELECT COUNT(*) FROM stores") > 4) {
      s.update(
          "DELETE FROM stores WHERE id = ?",
          s.pickLong(RANDOM_STORE)); // stock goes, orders keep NULL
    } else {
      openStore(s);
    }
  }

  static String point(double lon, double lat) {
    return "POINT(" + lon + " " + lat + ")";
  }

  static String square(double lon, double lat, double size) {
    return "POLYGON(("
        + lon
        + " "
        + lat
        + ", "
        + (lon + size)
        + " "
        + lat
        + ", "
        + (lon + size)
        + " "
        + (lat + size)
        + ", "
        + lon
        + " "
        + (lat + size)
        + ", "
        + lon
        + " "
        + lat
        + "))";
  }

  private static void wishlist(ShopSession s) throws SQLException {
    long customer = s.pickLong(RANDOM_CUSTOMER);
    s.update(
        "REPLACE INTO wishlists (customer_id, product_id, added_at, note) VALUES (?, ?, NOW(), ?)",
        customer,
        s.pickLong(RANDOM_PRODUCT),
        s.chance(50) ? s.words(4) : null);
    if (s.chance(40)) {
      s.update("DELETE FROM wishlists WHERE customer_id = ? ORDER BY added_at LIMIT 1", customer);
    }
  }

  private interface Step {
    void run() throws SQLException;
  }

  private static void repeat(int times, Step step) throws SQLException {
    for (int i = 0; i < times; i++) {
      step.run();
    }
  }
}

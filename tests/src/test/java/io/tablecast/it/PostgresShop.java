package io.tablecast.it;

import io.tablecast.it.ShopWorkload.Action;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The shop on PostgreSQL ({@code realistic/postgresql.sql}): customers, catalogue, orders and
 * stores, in the SQL such an application writes ({@code ON CONFLICT}, {@code UPDATE ... FROM},
 * writable CTEs, composite-field updates, hstore/array/range operators, ltree subtree queries).
 * Customers (hstore, arrays, bit strings, composite-typed addresses) and stores (geometric types,
 * cidr, macaddr, range arrays) are here; orders in {@link PostgresShopOrders}, the catalogue in
 * {@link PostgresShopCatalogue}, the partitioned and inheritance tables in {@link
 * PostgresShopLogs}. Writers run with the session time zone {@code Europe/Paris}.
 */
final class PostgresShop implements Shop {
  private static final List<String> EXTENSIONS = List.of("hstore", "citext", "ltree");
  static final String RANDOM_CUSTOMER = "SELECT id FROM customers ORDER BY random() LIMIT 1";
  static final String RANDOM_PRODUCT = "SELECT id FROM products ORDER BY random() LIMIT 1";
  static final String RANDOM_STORE = "SELECT id FROM stores ORDER BY random() LIMIT 1";
  static final String RANDOM_ORDER = "SELECT order_ref FROM orders ORDER BY random() LIMIT 1";
  static final String RANDOM_DRAFT =
      "SELECT order_ref FROM orders WHERE status = 'draft' ORDER BY random() LIMIT 1";
  private static final List<String> ROOTS = List.of("apparel", "electronics", "home", "garden");

  /** Schemas of the extensions, after the test schema in every session's search path. */
  private final String extensionSchemas;

  PostgresShop(TestDatabases.Kind kind) {
    this.extensionSchemas = String.join(", ", ensureExtensions(kind));
  }

  @Override
  public List<String> schema() {
    List<String> out = new ArrayList<>();
    out.add(searchPath());
    out.addAll(SqlScript.statements("realistic/postgresql.sql"));
    return out;
  }

  /**
   * Puts the extensions' schemas after the session's schema (the test schema) in its search path.
   */
  private String searchPath() {
    return "SELECT set_config('search_path', quote_ident(current_schema()) || ', "
        + extensionSchemas
        + "', false)";
  }

  @Override
  public List<String> tables() {
    return List.of(
        "customers",
        "addresses",
        "categories",
        "category_attributes",
        "products",
        "stores",
        "inventory",
        "orders",
        "order_items",
        "item_adjustments",
        "payments",
        "wishlists",
        "shipments",
        "audit_log",
        "price_history");
  }

  @Override
  public String topLevelTablesQuery() {
    return "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? "
        + "AND c.relkind IN ('r', 'p') AND c.relname NOT LIKE 'tablecast\\_%' "
        + "AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid)";
  }

  @Override
  public List<String> partitionsAndChildren() {
    return List.of(
        "shipments_eu_0",
        "shipments_eu_1",
        "shipments_na",
        "shipments_other",
        "audit_log_2023",
        "audit_log_2024",
        "audit_log_2025",
        "audit_log_default",
        "ONLY price_history",
        "price_history_2023",
        "price_history_2024",
        "price_history_2025");
  }

  @Override
  public void prepareSession(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(searchPath());
      s.execute("SET TIME ZONE 'Europe/Paris'");
      s.execute("SET lock_timeout = '10s'");
    }
  }

  @Override
  public void seed(ShopSession s) throws SQLException {
    s.update(
        "INSERT INTO categories (code, parent_code, name, path) VALUES ('uncategorized', NULL, 'Uncategorized', "
            + "'uncategorized')");
    for (String root : ROOTS) {
      PostgresShopCatalogue.insertCategory(s, root, null);
      for (int i = 1; i <= 3; i++) {
        PostgresShopCatalogue.insertCategory(s, root + "_" + i, root);
        for (int j = 1; j <= 2; j++) {
          PostgresShopCatalogue.insertCategory(s, root + "_" + i + "_" + j, root + "_" + i);
        }
      }
    }
    for (int i = 0; i < 6; i++) {
      openStore(s);
    }
    for (int i = 0; i < 60; i++) {
      registerCustomer(s);
    }
    for (int i = 0; i < 120; i++) {
      PostgresShopCatalogue.newProduct(s);
    }
    for (int i = 0; i < 150; i++) {
      PostgresShopCatalogue.restock(s);
    }
    for (int i = 0; i < 40; i++) {
      PostgresShopOrders.createDraftOrder(s);
    }
    for (int i = 0; i < 20; i++) {
      PostgresShopOrders.placeOrder(s);
    }
    for (int i = 0; i < 60; i++) {
      wishlist(s);
    }
    PostgresShopLogs.seed(s);
  }

  @Override
  public List<Action> actions() {
    List<Action> out =
        new ArrayList<>(
            List.of(
                new Action("register_customer", 3, PostgresShop::registerCustomer),
                new Action("update_customer", 3, PostgresShop::updateCustomer),
                new Action(
                    "close_customer",
                    1,
                    s ->
                        s.update(
                            "DELETE FROM customers WHERE id = ?", s.pickLong(RANDOM_CUSTOMER))),
                new Action("create_draft_order", 5, PostgresShopOrders::createDraftOrder),
                new Action("edit_draft_lines", 3, PostgresShopOrders::editDraftLines),
                new Action("place_order", 4, PostgresShopOrders::placeOrder),
                new Action("fulfil_order", 2, PostgresShopOrders::fulfilOrder),
                new Action("cancel_order", 3, PostgresShopOrders::cancelOrder),
                new Action("reprice_category", 2, PostgresShopCatalogue::repriceCategory),
                new Action("rename_category", 2, PostgresShopCatalogue::renameCategory),
                new Action("move_products", 2, PostgresShopCatalogue::moveProducts),
                new Action(
                    "prune_category",
                    1,
                    s ->
                        s.update(
                            "DELETE FROM categories WHERE code = ?",
                            s.pick(
                                "SELECT code FROM categories WHERE parent_code IS NOT NULL ORDER BY random() LIMIT 1"))),
                new Action("grow_categories", 2, PostgresShopCatalogue::growCategories),
                new Action("edit_product", 4, PostgresShopCatalogue::editProduct),
                new Action("new_product", 2, PostgresShopCatalogue::newProduct),
                new Action(
                    "delete_product",
                    1,
                    s -> s.update("DELETE FROM products WHERE id = ?", s.pickLong(RANDOM_PRODUCT))),
                new Action("restock", 3, PostgresShopCatalogue::restock),
                new Action("relocate_store", 1, PostgresShop::relocateStore),
                new Action("open_or_close_store", 1, PostgresShop::openOrCloseStore),
                new Action("wishlist", 2, PostgresShop::wishlist)));
    out.addAll(PostgresShopLogs.actions());
    return out;
  }

  // --- customers -------------------------------------------------------------------------------

  private static void registerCustomer(ShopSession s) throws SQLException {
    long referrer = s.chance(30) ? s.pickLong(RANDOM_CUSTOMER) : -1;
    String ref = s.nextRef("c");
    long id =
        s.returning(
            "INSERT INTO customers (email, full_name, referred_by, preferences, tags, known_ips, "
                + "feature_flags, last_login_ip) VALUES (?, ?, ?, ?::hstore, ?::text[], ?::inet[], ?::varbit, ?::inet) "
                + "RETURNING id",
            "Shopper." + ref + "@Example.com",
            s.oneOf("Zoë", "José", "Ana", "Łukasz") + " " + ref,
            referrer < 0 ? null : referrer,
            "lang=>" + s.oneOf("en", "fr") + ", \"news letter\"=>" + s.oneOf("yes", "no"),
            s.oneOf("{}", "{vip}", "{b2b,\"late payer\"}"),
            s.chance(50) ? "{" + ip(s) + "}" : null,
            s.chance(70) ? bits(s, s.between(1, 32)) : null,
            s.chance(80) ? ip(s) : null);
    for (int n = 1; n <= s.between(1, 2); n++) {
      insertAddress(s, id, n);
    }
  }

  private static void insertAddress(ShopSession s, long customer, int addressNo)
      throws SQLException {
    s.update(
        "INSERT INTO addresses (customer_id, address_no, label, address, location, is_default) "
            + "VALUES (?, ?, ?, ROW(?, ?, ?, ?, ?)::postal_address, point(?, ?), ?)",
        customer,
        addressNo,
        s.oneOf("home", "work"),
        s.between(1, 200) + " " + s.words(2) + " Street",
        s.chance(30) ? "Apt \"" + s.between(1, 90) + "\", floor (2)" : null,
        s.oneOf("Paris", "Köln", "Málaga"),
        String.valueOf(s.between(10000, 99999)),
        s.oneOf("FR", "DE", "ES"),
        s.rnd.nextDouble() * 10,
        40 + s.rnd.nextDouble() * 10,
        addressNo == 1);
  }

  private static void updateCustomer(ShopSession s) throws SQLException {
    long id = s.pickLong(RANDOM_CUSTOMER);
    s.update(
        "UPDATE customers SET preferences = preferences || hstore(?::text, ?::text), tags = (tags || ?::text)[1:4], "
            + "known_ips = (ARRAY[?::inet] || coalesce(known_ips, '{}'))[1:3], feature_flags = ?::varbit, "
            + "last_login_ip = ?::inet, updated_at = now() WHERE id = ?",
        s.oneOf("theme", "currency"),
        s.oneOf("dark", "EUR", null),
        s.oneOf("vip", "newsletter"),
        ip(s),
        bits(s, s.between(0, 32)),
        ip(s),
        id);
    s.update(
        "UPDATE addresses SET address.city = ?, location = location + point(0.01, -0.01), "
            + "is_default = NOT is_default WHERE customer_id = ?",
        s.oneOf("Lyon", "Bonn", "Sevilla"),
        id);
    if (s.chance(30)) {
      long next =
          s.pickLong(
              "SELECT coalesce(max(address_no), 0) + 1 FROM addresses WHERE customer_id = ?", id);
      if (s.pickLong("SELECT count(*) FROM customers WHERE id = ?", id) > 0 && next < 200) {
        insertAddress(s, id, (int) next);
      }
    } else if (s.chance(20)) {
      s.update(
          "DELETE FROM addresses WHERE customer_id = ? AND address_no = (SELECT min(address_no) FROM addresses "
              + "WHERE customer_id = ?)",
          id,
          id);
    }
  }

  // --- stores ----------------------------------------------------------------------------------
  private static void openStore(ShopSession s) throws SQLException {
    double lon = -5 + s.rnd.nextDouble() * 20;
    double lat = 40 + s.rnd.nextDouble() * 12;
    s.update(
        "INSERT INTO stores (id, name, location, delivery_area, ip_range, pos_terminal, holiday_closures, "
            + "opening_hours, time_zone) SELECT coalesce(max(id), 0) + 1, ?, point(?, ?), "
            + "CASE WHEN ? THEN polygon(box(point(?, ?), point(? + 0.5, ? + 0.5))) END, ?::cidr, ?::macaddr, "
            + "ARRAY[daterange('2026-12-24', '2026-12-27')], ?::jsonb, ? FROM stores",
        "Store " + s.words(1),
        lon,
        lat,
        s.chance(80),
        lon,
        lat,
        lon,
        lat,
        "10." + s.between(0, 255) + ".0.0/16",
        mac(s),
        "{\"mon\": \"09:00-19:00\", \"sat\": null}",
        s.oneOf("Europe/Paris", "Europe/Lisbon"));
  }

  private static void relocateStore(ShopSession s) throws SQLException {
    double lon = -5 + s.rnd.nextDouble() * 20;
    double lat = 40 + s.rnd.nextDouble() * 12;
    s.update(
        "UPDATE stores SET location = point(?, ?), delivery_area = CASE WHEN ? THEN polygon(box(point(?, ?), "
            + "point(? + 0.25, ? + 0.75))) END, pos_terminal = ?::macaddr, "
            + "holiday_closures = (ARRAY[daterange(?::date, ?::date)] || holiday_closures)[1:3], "
            + "opening_hours = jsonb_set(coalesce(opening_hours, '{}'), '{sun}', to_jsonb(?::text)) WHERE id = ?",
        lon,
        lat,
        s.chance(80),
        lon,
        lat,
        lon,
        lat,
        mac(s),
        java.time.LocalDate.of(2026, s.between(1, 12), 1),
        java.time.LocalDate.of(2027, 1, s.between(1, 28)),
        s.oneOf("closed", "10:00-14:00"),
        (int) s.pickLong(RANDOM_STORE));
  }

  private static void openOrCloseStore(ShopSession s) throws SQLException {
    if (s.chance(50) && s.pickLong("SELECT count(*) FROM stores") > 4) {
      s.update(
          "DELETE FROM stores WHERE id = ?",
          (int) s.pickLong(RANDOM_STORE)); // stock goes, orders keep NULL
    } else {
      openStore(s);
    }
  }

  static void wishlist(ShopSession s) throws SQLException {
    long customer = s.pickLong(RANDOM_CUSTOMER);
    s.update(
        "INSERT INTO wishlists (customer_id, product_id, note) SELECT c.id, p.id, ?::varchar FROM customers c, products p "
            + "WHERE c.id = ? AND p.id = ? ON CONFLICT (customer_id, product_id) DO UPDATE SET note = EXCLUDED.note, "
            + "added_at = localtimestamp",
        s.chance(50) ? s.words(4) : null,
        customer,
        (int) s.pickLong(RANDOM_PRODUCT));
    if (s.chance(40)) {
      s.update(
          "DELETE FROM wishlists WHERE (customer_id, product_id) IN (SELECT customer_id, product_id FROM wishlists "
              + "WHERE customer_id = ? ORDER BY added_at LIMIT 1)",
          customer);
    }
  }

  // --- values ----------------------------------------------------------------------------------

  static String ip(ShopSession s) {
    return s.chance(80)
        ? "192.0.2." + s.between(1, 254)
        : "2001:db8::" + Integer.toHexString(s.between(1, 65535));
  }

  private static String mac(ShopSession s) {
    return String.format(
        "08:00:2b:%02x:%02x:%02x", s.between(0, 255), s.between(0, 255), s.between(0, 255));
  }

  static String bits(ShopSession s, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(s.rnd.nextBoolean() ? '1' : '0');
    }
    return sb.toString();
  }

  /**
   * Creates the extensions the schema uses unless the database has them (they are per database;
   * another test JVM creating one at the same instant makes an attempt fail, so it is retried) and
   * returns the schemas holding them.
   */
  private static synchronized List<String> ensureExtensions(TestDatabases.Kind kind) {
    Set<String> schemas = new LinkedHashSet<>();
    try (Connection c = java.sql.DriverManager.getConnection(kind.baseUrl())) {
      for (String extension : EXTENSIONS) {
        for (int attempt = 1; ; attempt++) {
          String schema = extensionSchema(c, extension);
          if (schema != null) {
            schemas.add("\"" + schema + "\"");
            break;
          }
          try (Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS " + extension + " SCHEMA public");
          } catch (SQLException e) {
            if (attempt >= 3) {
              throw e;
            }
          }
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot create the extensions "
              + EXTENSIONS
              + " (PostgreSQL contrib) the "
              + "realistic schema uses: "
              + e.getMessage(),
          e);
    }
    return new ArrayList<>(schemas);
  }

  private static String extensionSchema(Connection c, String extension) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n "
                + "ON n.oid = e.extnamespace WHERE e.extname = ?")) {
      ps.setString(1, extension);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }
}

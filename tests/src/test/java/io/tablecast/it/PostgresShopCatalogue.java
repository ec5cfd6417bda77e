package io.tablecast.it;

import static io.tablecast.it.PostgresShop.RANDOM_PRODUCT;
import static io.tablecast.it.PostgresShop.RANDOM_STORE;

import java.math.BigDecimal;
import java.sql.SQLException;

/**
 * The PostgreSQL shop's catalogue: the ltree-pathed category tree (renames cascading down the tree,
 * prunes setting products to the default category), products with tsvector, money, hstore, ranges
 * and arrays, and stock upserts.
 */
final class PostgresShopCatalogue {
  private PostgresShopCatalogue() {}

  static void insertCategory(ShopSession s, String code, String parent) throws SQLException {
    int added =
        parent == null
            ? s.update(
                "INSERT INTO categories (code, parent_code, name, path, sort_order) VALUES (?, NULL, ?, ?::ltree, ?)",
                code,
                "Category " + code,
                code,
                s.between(0, 100))
            : s.update(
                "INSERT INTO categories (code, parent_code, name, path, sort_order) "
                    + "SELECT ?, code, ?, path || ?::ltree, ? FROM categories WHERE code = ?",
                code,
                "Category " + code,
                code,
                s.between(0, 100),
                parent);
    if (added > 0) {
      s.update(
          "INSERT INTO category_attributes (category_code, attr_name, value_type, choices, required) VALUES "
              + "(?, 'color', 'choice', ARRAY['red', 'green', 'blue'], true), (?, 'material', 'text', NULL, false)",
          code,
          code);
    }
  }

  static void repriceCategory(ShopSession s) throws SQLException {
    Object code = s.pick("SELECT category_code FROM products ORDER BY random() LIMIT 1");
    BigDecimal factor = new BigDecimal(s.oneOf("0.90", "0.95", "1.05", "1.10"));
    s.update(
        "UPDATE products SET price = round(price * ?, 2), msrp = round(price * ? * 1.2, 2)::money, "
            + "updated_at = now() WHERE category_code IN (SELECT code FROM categories WHERE path <@ "
            + "(SELECT path FROM categories WHERE code = ?))",
        factor,
        factor,
        code);
    s.update(
        "UPDATE order_items i SET unit_price = p.price FROM products p, orders o WHERE p.id = i.product_id "
            + "AND o.order_ref = i.order_ref AND o.status = 'draft' AND p.category_code = ?",
        code);
  }

  /**
   * Any category's code changes: cascades down the tree (parent_code), to attribute keys and
   * products.
   */
  static void renameCategory(ShopSession s) throws SQLException {
    Object picked =
        s.pick(
            "SELECT code FROM categories WHERE code <> 'uncategorized' ORDER BY random() LIMIT 1");
    if (picked == null) {
      return;
    }
    String code = (String) picked;
    String base = code.contains("_r") ? code.substring(0, code.indexOf("_r")) : code;
    String renamed = base + "_r" + s.writer + "_" + s.nextNumber();
    if (s.update("UPDATE categories SET code = ? WHERE code = ?", renamed, code) == 0) {
      return;
    }
    // the tree's paths follow, as the application maintains them
    s.update(
        "UPDATE categories c SET path = CASE WHEN nlevel(c.path) = nlevel(o.path) THEN n.path "
            + "ELSE n.path || subpath(c.path, nlevel(o.path)) END "
            + "FROM (SELECT path FROM categories WHERE code = ?) o, "
            + "(SELECT subpath(path, 0, nlevel(path) - 1) || ?::ltree AS path FROM categories WHERE code = ?) n "
            + "WHERE c.path <@ o.path",
        renamed,
        renamed,
        renamed);
  }

  static void moveProducts(ShopSession s) throws SQLException {
    Object target = s.pick("SELECT code FROM categories ORDER BY random() LIMIT 1");
    s.update(
        "UPDATE products SET category_code = ?, updated_at = now() WHERE id IN "
            + "(SELECT id FROM products ORDER BY random() LIMIT 3)",
        target == null ? "uncategorized" : target);
  }

  static void growCategories(ShopSession s) throws SQLException {
    Object parent =
        s.chance(10)
            ? null
            : s.pick(
                "SELECT code FROM categories WHERE code <> 'uncategorized' ORDER BY random() LIMIT 1");
    String code = "c_" + s.writer + "_" + s.nextNumber();
    insertCategory(s, code, (String) parent);
    if (s.chance(50)) {
      insertCategory(s, code + "_1", code);
    }
  }

  static void newProduct(ShopSession s) throws SQLException {
    Object category =
        s.chance(90)
            ? s.pick("SELECT code FROM categories ORDER BY random() LIMIT 1")
            : "uncategorized";
    s.update(
        "INSERT INTO products (sku, category_code, name, description, price, msrp, specs, attributes, tags, "
            + "sale_window, thumbnail, weight_grams) VALUES (?, ?, ?, ?, ?, ?::numeric::money, ?::hstore, ?::jsonb, "
            + "?::varchar(32)[], ?::tstzrange, ?, ?)",
        s.nextRef("sku"),
        category,
        s.words(3),
        s.words(15),
        new BigDecimal(s.price(500)),
        s.chance(60) ? s.price(600) : null,
        s.chance(70) ? "color=>" + s.oneOf("red", "navy") + ", fit=>slim" : null,
        "{\"dims\": ["
            + s.between(1, 90)
            + ", "
            + s.between(1, 90)
            + "], \"fragile\": "
            + s.chance(20)
            + "}",
        s.oneOf("{}", "{new}", "{new,eco}"),
        s.chance(40) ? "[2026-01-0" + s.between(1, 9) + " 10:00+01, 2026-02-01 00:00+00)" : null,
        s.chance(70) ? s.bytes(3000) : null,
        s.chance(80) ? s.between(10, 40_000) : null);
  }

  static void editProduct(ShopSession s) throws SQLException {
    long id = s.pickLong(RANDOM_PRODUCT);
    s.update(
        "UPDATE products SET description = ?, specs = coalesce(specs, '') || hstore(?::text, ?::text), "
            + "attributes = jsonb_set(attributes, '{rating}', to_jsonb(?::numeric)), tags = ?::varchar(32)[], "
            + "sale_window = tstzrange(now(), now() + ?::interval), weight_grams = ?, updated_at = now() WHERE id = ?",
        s.words(s.between(5, 30)),
        s.oneOf("color", "size"),
        s.oneOf("red", "XL", "oak"),
        new BigDecimal(s.between(1, 50) + ".5"),
        s.oneOf("{}", "{sale}", "{sale,\"last one\"}"),
        s.oneOf("7 days", "36 hours"),
        s.between(10, 40_000),
        id);
    if (s.chance(30)) {
      s.update(
          "UPDATE products SET thumbnail = ?, name = ? WHERE id = ?",
          s.chance(80) ? s.bytes(3000) : null,
          s.words(3),
          id);
    }
  }

  // --- stock -------------------------------------------------------------------------------------

  static void restock(ShopSession s) throws SQLException {
    long store = s.pickLong(RANDOM_STORE);
    long product = s.pickLong(RANDOM_PRODUCT);
    if (store < 0 || product < 0) {
      return;
    }
    int low = s.between(0, 10);
    s.update(
        "INSERT INTO inventory (store_id, product_id, quantity, reorder_band, restock_every, counted_at) "
            + "VALUES (?, ?, ?, int4range(?, ?), ?::interval, now()) ON CONFLICT (store_id, product_id) DO UPDATE "
            + "SET quantity = inventory.quantity + EXCLUDED.quantity, counted_at = EXCLUDED.counted_at",
        (int) store,
        (int) product,
        s.between(1, 40),
        low,
        low + s.between(5, 50),
        s.oneOf("7 days", "1 mon 2 days", "12:30:00"));
    s.update(
        "UPDATE inventory SET reserved = reserved + 1 WHERE (store_id, product_id) IN (SELECT store_id, product_id "
            + "FROM inventory WHERE store_id = ? AND quantity > reserved ORDER BY product_id LIMIT 3)",
        (int) store);
  }
}

package io.tablecast.it;

import static io.tablecast.it.MariadbShop.RANDOM_CUSTOMER;
import static io.tablecast.it.MariadbShop.RANDOM_PRODUCT;
import static io.tablecast.it.MariadbShop.RANDOM_STORE;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The MariaDB shop's catalogue: the category tree (leaf renames cascading to attribute keys and
 * products, prunes cascading down the tree and setting products' category to NULL), products with
 * full-text, JSON, BLOB, ENUM, SET and YEAR columns, reviews, and stock upserts.
 */
final class MariadbShopCatalogue {
  private MariadbShopCatalogue() {}

  static void insertCategory(ShopSession s, String code, String parent) throws SQLException {
    s.update(
        "INSERT INTO categories (code, parent_code, name, sort_order, description) VALUES (?, ?, ?, ?, ?)",
        code,
        parent,
        "Category " + code,
        s.between(0, 100),
        s.chance(50) ? s.words(8) : null);
    s.update(
        "INSERT INTO category_attributes (category_code, attr_name, value_type, choices, required) VALUES "
            + "(?, 'color', 'choice', '[\"red\", \"green\", \"blue\"]', 1), (?, 'material', 'text', NULL, 0)",
        code,
        code);
  }

  static void repriceCategory(ShopSession s) throws SQLException {
    Object code =
        s.pick(
            "SELECT category_code FROM products WHERE category_code IS NOT NULL ORDER BY RAND() LIMIT 1");
    BigDecimal factor = new BigDecimal(s.oneOf("0.90", "0.95", "1.05", "1.10"));
    s.update(
        "UPDATE products SET price = ROUND(price * ?, 2), cost = ROUND(cost * ?, 4) "
            + "WHERE category_code = ? OR category_code IN (SELECT code FROM categories WHERE parent_code = ?)",
        factor,
        factor,
        code,
        code);
    s.update(
        "UPDATE order_items i JOIN orders o ON o.order_ref = i.order_ref JOIN products p ON p.id = i.product_id "
            + "SET i.unit_price = p.price WHERE o.status = 'draft' AND p.category_code = ?",
        code);
  }

  /**
   * A leaf's code changes (InnoDB refuses an update cascading back into the same table, so not a
   * parent's): cascades to its attributes' keys and its products. Sometimes only the case changes,
   * which the table's case-insensitive collation treats as the same key.
   */
  static void renameCategory(ShopSession s) throws SQLException {
    Object leaf =
        s.pick(
            "SELECT c.code FROM categories c WHERE c.code <> 'uncategorized' AND NOT EXISTS "
                + "(SELECT 1 FROM categories k WHERE k.parent_code = c.code) ORDER BY RAND() LIMIT 1");
    if (leaf == null) {
      return;
    }
    String code = (String) leaf;
    String renamed;
    if (s.chance(25)) {
      char first = code.charAt(0);
      renamed =
          (Character.isUpperCase(first)
                  ? Character.toLowerCase(first)
                  : Character.toUpperCase(first))
              + code.substring(1);
    } else {
      String base = code.contains("_r") ? code.substring(0, code.indexOf("_r")) : code;
      renamed = base + "_r" + s.writer + "_" + s.nextNumber();
    }
    s.update("UPDATE categories SET code = ? WHERE code = ?", renamed, code);
  }

  static void moveProducts(ShopSession s) throws SQLException {
    Object target = s.pick("SELECT code FROM categories ORDER BY RAND() LIMIT 1");
    List<Object> ids = s.column("SELECT id FROM products ORDER BY RAND() LIMIT 3");
    if (ids.isEmpty()) {
      return;
    }
    List<Object> params = new ArrayList<>(List.of(target == null ? "uncategorized" : target));
    params.addAll(ids);
    s.update(
        "UPDATE products SET category_code = ? WHERE id IN ("
            + String.join(", ", Collections.nCopies(ids.size(), "?"))
            + ")",
        params.toArray());
  }

  static void growCategories(ShopSession s) throws SQLException {
    Object parent =
        s.chance(10)
            ? null
            : s.pick(
                "SELECT code FROM categories WHERE code <> 'uncategorized' ORDER BY RAND() LIMIT 1");
    String code = "c_" + s.writer + "_" + s.nextNumber();
    insertCategory(s, code, (String) parent);
    if (s.chance(50)) {
      insertCategory(s, code + "_1", code);
    }
  }

  static void newProduct(ShopSession s) throws SQLException {
    Object category =
        s.chance(90) ? s.pick("SELECT code FROM categories ORDER BY RAND() LIMIT 1") : null;
    String ref = s.nextRef("SKU");
    s.update(
        "INSERT INTO products (sku, category_code, name, description, status, tags, model_year, price, cost, "
            + "weight_kg, attributes, thumbnail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ref,
        category,
        s.words(3),
        s.words(15),
        s.oneOf("draft", "active"),
        s.oneOf("", "new", "new,eco", "gift,bulky"),
        s.chance(80) ? s.between(1990, 2026) : null,
        new BigDecimal(s.price(500)),
        s.chance(70) ? new BigDecimal(s.price(300) + "5") : null,
        s.chance(80) ? s.rnd.nextFloat() * 40 : null,
        "{\"color\": \""
            + s.oneOf("red", "green")
            + "\", \"dims\": ["
            + s.between(1, 90)
            + ", "
            + s.between(1, 90)
            + "], \"fragile\": "
            + s.chance(20)
            + "}",
        s.chance(70) ? s.bytes(3000) : null);
  }

  static void editProduct(ShopSession s) throws SQLException {
    long id = s.pickLong(RANDOM_PRODUCT);
    s.update(
        "UPDATE products SET description = ?, tags = ?, attributes = JSON_SET(COALESCE(attributes, '{}'), "
            + "'$.color', ?, '$.rating', ?), status = ?, model_year = ?, weight_kg = ? WHERE id = ?",
        s.words(s.between(5, 30)),
        s.oneOf("", "sale", "sale,eco", "new,gift"),
        s.oneOf("red", "black", "blue"),
        s.between(1, 50) / 10.0,
        s.oneOf("active", "active", "discontinued"),
        s.between(1990, 2026),
        s.rnd.nextFloat() * 40,
        id);
    if (s.chance(30)) {
      s.update(
          "UPDATE products SET thumbnail = ?, name = ? WHERE id = ?",
          s.chance(80) ? s.bytes(3000) : null,
          s.words(3),
          id);
    }
  }

  static void review(ShopSession s) throws SQLException {
    long product = s.pickLong(RANDOM_PRODUCT);
    long customer = s.pickLong(RANDOM_CUSTOMER);
    s.update(
        "INSERT INTO product_reviews (product_id, customer_id, rating, title, body) "
            + "SELECT id, ?, ?, ?, ? FROM products WHERE id = ?",
        customer < 0 ? null : customer,
        s.between(1, 5),
        s.words(4),
        s.words(s.between(10, 40)),
        product);
    s.update(
        "UPDATE product_reviews SET helpful = helpful + 1 WHERE product_id = ?",
        s.pickLong(RANDOM_PRODUCT));
    if (s.chance(20)) {
      s.update("DELETE FROM product_reviews WHERE rating = 1 ORDER BY created_at LIMIT 1");
    }
  }

  // --- stock ------------------------------------------------------------------------------------

  static void restock(ShopSession s) throws SQLException {
    long store = s.pickLong(RANDOM_STORE);
    long product = s.pickLong(RANDOM_PRODUCT);
    if (store < 0 || product < 0) {
      return;
    }
    s.update(
        "INSERT INTO inventory (store_id, product_id, quantity, bin_location, last_counted_at) "
            + "VALUES (?, ?, ?, ?, NOW(6)) ON DUPLICATE KEY UPDATE quantity = quantity + VALUES(quantity), "
            + "last_counted_at = VALUES(last_counted_at)",
        store,
        product,
        s.between(1, 40),
        "B" + s.between(100, 999) + "-" + s.oneOf("A", "B"));
    s.update(
        "UPDATE inventory SET reserved = reserved + 1 WHERE store_id = ? AND quantity > reserved "
            + "ORDER BY product_id LIMIT 3",
        store);
    if (s.chance(10)) {
      s.update("DELETE FROM inventory WHERE store_id = ? AND quantity <= reserved", store);
    }
  }
}

-- An online shop's schema for MariaDB 10.6+ / MySQL 8, written the way such an application
-- defines it (InnoDB, utf8mb4_unicode_ci, natural and surrogate keys, cascading foreign keys),
-- not the way Tablecast would like it. RealisticSchemaTest caches every table of it whole.
--
-- Foreign-key actions (InnoDB runs them without firing the child's triggers):
--   customers.referred_by   -> customers          ON DELETE SET NULL              (self-reference)
--   customer_addresses      -> customers          ON DELETE CASCADE                (composite key)
--   categories.parent_code  -> categories         ON DELETE CASCADE ON UPDATE CASCADE (tree; InnoDB
--                                                  refuses a cascade back into the same table, so
--                                                  only a leaf's code can be renamed)
--   category_attributes     -> categories         ON DELETE CASCADE ON UPDATE CASCADE (the cascaded
--                                                  column is part of the child's primary key)
--   products.category_code  -> categories         ON DELETE SET NULL ON UPDATE CASCADE
--   product_reviews         -> products CASCADE, customers SET NULL
--   inventory               -> stores CASCADE, products CASCADE
--   orders                  -> customers SET NULL, stores SET NULL
--   order_items             -> orders ON DELETE CASCADE ON UPDATE CASCADE (key contains order_ref),
--                              products ON DELETE SET NULL
--   item_adjustments        -> order_items ON DELETE CASCADE ON UPDATE CASCADE (third level, key
--                              contains the cascaded (order_ref, line_no))
--   payments                -> orders ON DELETE CASCADE ON UPDATE CASCADE
--   wishlists               -> customers CASCADE, products CASCADE
-- order_events is RANGE COLUMNS partitioned (a partitioned InnoDB table cannot have foreign keys).

CREATE TABLE customers (
  id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  email            VARCHAR(190) NOT NULL,
  full_name        VARCHAR(120) NOT NULL,
  status           ENUM('active','suspended','closed') NOT NULL DEFAULT 'active',
  marketing_opt_in SET('email','sms','push','post') NOT NULL DEFAULT '',
  birth_year       YEAR NULL,
  referred_by      BIGINT UNSIGNED NULL,
  preferences      JSON NULL,
  loyalty_points   INT UNSIGNED NOT NULL DEFAULT 0,
  created_at       DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at       TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  PRIMARY KEY (id),
  UNIQUE KEY uq_customers_email (email),
  KEY idx_customers_referred_by (referred_by),
  CONSTRAINT fk_customers_referred_by FOREIGN KEY (referred_by) REFERENCES customers (id)
    ON DELETE SET NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE customer_addresses (
  customer_id BIGINT UNSIGNED NOT NULL,
  address_no  TINYINT UNSIGNED NOT NULL,
  kind        ENUM('billing','shipping') NOT NULL DEFAULT 'shipping',
  line1       VARCHAR(200) NOT NULL,
  line2       VARCHAR(200) NULL,
  city        VARCHAR(100) NOT NULL,
  postcode    VARCHAR(16) NOT NULL,
  country     CHAR(2) NOT NULL,
  is_default  TINYINT(1) NOT NULL DEFAULT 0,
  PRIMARY KEY (customer_id, address_no),
  CONSTRAINT fk_addresses_customer FOREIGN KEY (customer_id) REFERENCES customers (id)
    ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE categories (
  code        VARCHAR(64) NOT NULL,
  parent_code VARCHAR(64) NULL,
  name        VARCHAR(120) NOT NULL,
  sort_order  SMALLINT NOT NULL DEFAULT 0,
  description TEXT NULL,
  PRIMARY KEY (code),
  KEY idx_categories_parent (parent_code),
  CONSTRAINT fk_categories_parent FOREIGN KEY (parent_code) REFERENCES categories (code)
    ON DELETE CASCADE ON UPDATE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE category_attributes (
  category_code VARCHAR(64) NOT NULL,
  attr_name     VARCHAR(64) NOT NULL,
  value_type    ENUM('text','number','boolean','choice') NOT NULL DEFAULT 'text',
  choices       JSON NULL,
  required      TINYINT(1) NOT NULL DEFAULT 0,
  PRIMARY KEY (category_code, attr_name),
  CONSTRAINT fk_category_attributes_category FOREIGN KEY (category_code) REFERENCES categories (code)
    ON DELETE CASCADE ON UPDATE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE products (
  id            INT UNSIGNED NOT NULL AUTO_INCREMENT,
  sku           VARCHAR(32) NOT NULL,
  category_code VARCHAR(64) NULL,
  name          VARCHAR(200) NOT NULL,
  description   TEXT NULL,
  status        ENUM('draft','active','discontinued') NOT NULL DEFAULT 'draft',
  tags          SET('new','sale','eco','gift','bulky') NOT NULL DEFAULT '',
  model_year    YEAR NULL,
  price         DECIMAL(12,2) NOT NULL,
  cost          DECIMAL(12,4) NULL,
  weight_kg     FLOAT NULL,
  attributes    JSON NULL,
  thumbnail     MEDIUMBLOB NULL,
  created_at    DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at    TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  PRIMARY KEY (id),
  UNIQUE KEY uq_products_sku (sku),
  KEY idx_products_category (category_code),
  FULLTEXT KEY ft_products_text (name, description),
  CONSTRAINT fk_products_category FOREIGN KEY (category_code) REFERENCES categories (code)
    ON DELETE SET NULL ON UPDATE CASCADE,
  CONSTRAINT chk_products_price CHECK (price >= 0)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE product_reviews (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  product_id  INT UNSIGNED NOT NULL,
  customer_id BIGINT UNSIGNED NULL,
  rating      TINYINT UNSIGNED NOT NULL,
  title       VARCHAR(200) NOT NULL,
  body        TEXT NULL,
  helpful     INT UNSIGNED NOT NULL DEFAULT 0,
  created_at  DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (id),
  KEY idx_reviews_product (product_id),
  KEY idx_reviews_customer (customer_id),
  FULLTEXT KEY ft_reviews_text (title, body),
  CONSTRAINT fk_reviews_product FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE CASCADE,
  CONSTRAINT fk_reviews_customer FOREIGN KEY (customer_id) REFERENCES customers (id) ON DELETE SET NULL,
  CONSTRAINT chk_reviews_rating CHECK (rating BETWEEN 1 AND 5)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE stores (
  id            SMALLINT UNSIGNED NOT NULL,
  name          VARCHAR(120) NOT NULL,
  location      POINT NOT NULL,
  delivery_area POLYGON NULL,
  opened_on     DATE NULL,
  opening_hours JSON NULL,
  PRIMARY KEY (id),
  SPATIAL INDEX sp_stores_location (location)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE inventory (
  store_id        SMALLINT UNSIGNED NOT NULL,
  product_id      INT UNSIGNED NOT NULL,
  quantity        INT NOT NULL DEFAULT 0,
  reserved        INT UNSIGNED NOT NULL DEFAULT 0,
  bin_location    CHAR(8) NULL,
  last_counted_at TIMESTAMP(6) NULL,
  PRIMARY KEY (store_id, product_id),
  KEY idx_inventory_product (product_id),
  CONSTRAINT fk_inventory_store FOREIGN KEY (store_id) REFERENCES stores (id) ON DELETE CASCADE,
  CONSTRAINT fk_inventory_product FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE orders (
  order_ref   VARCHAR(20) NOT NULL,
  customer_id BIGINT UNSIGNED NULL,
  store_id    SMALLINT UNSIGNED NULL,
  status      ENUM('draft','placed','paid','shipped','cancelled') NOT NULL DEFAULT 'draft',
  placed_at   DATETIME(6) NULL,
  total       DECIMAL(14,2) NOT NULL DEFAULT 0.00,
  currency    CHAR(3) NOT NULL DEFAULT 'EUR',
  ship_to     JSON NULL,
  notes       TEXT NULL,
  version     INT UNSIGNED NOT NULL DEFAULT 1,
  PRIMARY KEY (order_ref),
  KEY idx_orders_customer (customer_id),
  KEY idx_orders_store (store_id),
  KEY idx_orders_status (status),
  CONSTRAINT fk_orders_customer FOREIGN KEY (customer_id) REFERENCES customers (id) ON DELETE SET NULL,
  CONSTRAINT fk_orders_store FOREIGN KEY (store_id) REFERENCES stores (id) ON DELETE SET NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE order_items (
  order_ref    VARCHAR(20) NOT NULL,
  line_no      SMALLINT UNSIGNED NOT NULL,
  product_id   INT UNSIGNED NULL,
  quantity     SMALLINT UNSIGNED NOT NULL,
  unit_price   DECIMAL(12,2) NOT NULL,
  discount_pct DECIMAL(5,2) NOT NULL DEFAULT 0.00,
  gift_wrap    TINYINT(1) NOT NULL DEFAULT 0,
  PRIMARY KEY (order_ref, line_no),
  KEY idx_order_items_product (product_id),
  CONSTRAINT fk_order_items_order FOREIGN KEY (order_ref) REFERENCES orders (order_ref)
    ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT fk_order_items_product FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE SET NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE item_adjustments (
  order_ref  VARCHAR(20) NOT NULL,
  line_no    SMALLINT UNSIGNED NOT NULL,
  adj_no     TINYINT UNSIGNED NOT NULL,
  kind       ENUM('coupon','tax','shipping','refund') NOT NULL,
  amount     DECIMAL(12,2) NOT NULL,
  reason     VARCHAR(200) NULL,
  created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (order_ref, line_no, adj_no),
  CONSTRAINT fk_adjustments_item FOREIGN KEY (order_ref, line_no) REFERENCES order_items (order_ref, line_no)
    ON DELETE CASCADE ON UPDATE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE payments (
  id              BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  order_ref       VARCHAR(20) NOT NULL,
  amount          DECIMAL(14,2) NOT NULL,
  method          ENUM('card','paypal','invoice','voucher') NOT NULL,
  gateway_payload JSON NULL,
  receipt         BLOB NULL,
  captured_at     TIMESTAMP(6) NULL,
  PRIMARY KEY (id),
  KEY idx_payments_order (order_ref),
  CONSTRAINT fk_payments_order FOREIGN KEY (order_ref) REFERENCES orders (order_ref)
    ON DELETE CASCADE ON UPDATE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE wishlists (
  customer_id BIGINT UNSIGNED NOT NULL,
  product_id  INT UNSIGNED NOT NULL,
  added_at    DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
  note        VARCHAR(200) NULL,
  PRIMARY KEY (customer_id, product_id),
  KEY idx_wishlists_product (product_id),
  CONSTRAINT fk_wishlists_customer FOREIGN KEY (customer_id) REFERENCES customers (id) ON DELETE CASCADE,
  CONSTRAINT fk_wishlists_product FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE order_events (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  occurred_at DATETIME(6) NOT NULL,
  order_ref   VARCHAR(20) NOT NULL,
  event_type  VARCHAR(32) NOT NULL,
  payload     JSON NULL,
  PRIMARY KEY (id, occurred_at),
  KEY idx_order_events_ref (order_ref)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
PARTITION BY RANGE COLUMNS (occurred_at) (
  PARTITION p2023 VALUES LESS THAN ('2024-01-01'),
  PARTITION p2024 VALUES LESS THAN ('2025-01-01'),
  PARTITION p2025 VALUES LESS THAN ('2026-01-01'),
  PARTITION pfuture VALUES LESS THAN (MAXVALUE)
);

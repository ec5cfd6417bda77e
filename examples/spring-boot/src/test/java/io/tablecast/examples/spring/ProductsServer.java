package io.tablecast.examples.spring;

import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases;
import java.util.List;

/**
 * A real Tablecast server caching a products table (the demo's layout) in a fresh PostgreSQL schema
 * of {@code TABLECAST_TEST_PG_URL}; started on first use, for the whole test class.
 */
final class ProductsServer {
  private static TestDatabases.Isolated db;
  private static TablecastServer server;

  private ProductsServer() {}

  /** {@code 127.0.0.1:port} of the server, started if it was not. */
  static synchronized String address() {
    start();
    return "127.0.0.1:" + server.port();
  }

  /** The cached table, {@code schema.products}. */
  static synchronized String table() {
    start();
    return db.table("products");
  }

  /** Runs statements on the database, each committed. */
  static synchronized void execute(String... sql) {
    start();
    db.execute(sql);
  }

  static synchronized void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  private static void start() {
    if (server != null) {
      return;
    }
    db = TestDatabases.Kind.POSTGRESQL.isolated("spring_example");
    db.execute(
        "CREATE TABLE products (id int PRIMARY KEY, name varchar(80) NOT NULL, "
            + "price numeric(10,2) NOT NULL, in_stock boolean NOT NULL)",
        "INSERT INTO products VALUES (1, 'Espresso', 2.50, true), (2, 'Green tea', 4.20, true), "
            + "(3, 'Croissant', 1.80, false)");
    SourceConfig source =
        new SourceConfig(db.jdbcUrl(), null, null, List.of(db.table("products")), true, null, null);
    ServerConfig config =
        ServerConfig.builder()
            .set("server_name", "spring-example")
            .listen("127.0.0.1", 0)
            .source(source)
            .build();
    try {
      server = TablecastServer.start(config);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted starting the Tablecast server", e);
    }
  }
}

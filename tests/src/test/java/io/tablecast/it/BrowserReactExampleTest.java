package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The React example (examples/react-vite) as users build it: Vite's production build of the app and
 * its {@code useTable(client, table)} hook, on the JavaScript client installed from the packed
 * tarball ({@code npm pack} of client-js, not a link to its sources), served by the Tablecast
 * server's static files and open in real headless Chromium against a real database. The build is
 * done by the examples/react-vite module before this one runs ({@code npm ci}, the tarball, {@code
 * tsc}, {@code vite build}); the page has the DOM hooks of examples/web, so the same driver ({@link
 * LivePage}, client-js/test-browser/live-table.e2e.mjs) checks it.
 *
 * <p>PostgreSQL only: the hook and the package do not know the database, and {@link
 * BrowserLiveTableTest} runs the same protocol in the browser on both.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BrowserReactExampleTest {

  static final List<String> PRODUCTS =
      List.of(
          "CREATE TABLE products (id int PRIMARY KEY, name varchar(40) NOT NULL,"
              + " price decimal(8,2))",
          "INSERT INTO products VALUES (1, 'tea', 3.20), (2, 'coffee', NULL)");

  /** The example's production build, written by {@code npm run build} in examples/react-vite. */
  static Path dist() {
    Path dist = ReadmeTest.repoRoot().resolve("examples/react-vite/dist");
    assertThat(dist.resolve("index.html"))
        .as(
            "the React example's build (the examples/react-vite module makes it:"
                + " ./mvnw -pl examples/react-vite -am package)")
        .isRegularFile();
    return dist;
  }

  @Test
  void rowsChangedInTheDatabaseAppearInTheReactPage() throws Exception {
    Path dist = dist();
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "react", PRODUCTS, "products")) {
      p.startServer(b -> b.set("static_dir", dist));
      String url = "http://127.0.0.1:" + p.server().port() + "/?table=" + p.db.table("products");
      try (LivePage page = LivePage.open(url)) {
        page.expectTable(
            Map.of(
                "[1]", Map.of("id", "1", "name", "tea", "price", "3.20"),
                "[2]", Map.of("id", "2", "name", "coffee", "price", "null")));

        p.sql("INSERT INTO products VALUES (3, 'cocoa', 4.50)");
        page.expect("expect-row [3] price=4.50");
        p.sql("UPDATE products SET price = 2.90 WHERE id = 2");
        page.expect("expect-row [2] price=2.90");
        p.transaction(
            "UPDATE products SET name = 'green tea' WHERE id = 1",
            "DELETE FROM products WHERE id = 3");
        page.expectTable(
            Map.of(
                "[1]", Map.of("name", "green tea", "price", "3.20"),
                "[2]", Map.of("name", "coffee", "price", "2.90")));

        // a new column while the page is open: the hook re-renders with the new column list
        p.sql(
            "ALTER TABLE products ADD COLUMN in_stock boolean NOT NULL DEFAULT true",
            "UPDATE products SET in_stock = false WHERE id = 2");
        page.expect("expect-row [2] in_stock=false");
        page.expect("expect-row [1] in_stock=true");

        // the server gone: the page says it cannot connect, naming the URL (the hook's
        // connectionError, from the client's error event)
        String ws = "ws://127.0.0.1:" + p.server().port() + "/ws";
        p.stopServer();
        page.expect("expect-text #message cannot connect to " + ws);

        page.quit();
      }
    }
  }

  /**
   * {@code npm run dev}, the way front-end developers work on the app: Vite's dev server compiles
   * the sources on the fly and forwards {@code /ws} to the Tablecast server named by {@code
   * TABLECAST_URL}.
   */
  @Test
  void theDevServerForwardsTheWebSocketToTheTablecastServer() throws Exception {
    Path example = dist().getParent();
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "reactdev", PRODUCTS, "products")) {
      p.startServer();
      try (ViteDevServer vite =
              ViteDevServer.start(example, "http://127.0.0.1:" + p.server().port());
          LivePage page = LivePage.open(vite.url() + "/?table=" + p.db.table("products"))) {
        page.expect("expect-row [1] name=tea");
        p.sql("INSERT INTO products VALUES (3, 'cocoa', 4.50)");
        page.expect("expect-row [3] price=4.50");
        page.quit();
      }
    }
  }

  /** A table the server refuses: the hook reports it failed, with the server's error code. */
  @Test
  void anUnknownTableShowsTheServersErrorInTheReactPage() throws Exception {
    Path dist = dist();
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "reacterr", PRODUCTS, "products")) {
      p.startServer(b -> b.set("static_dir", dist));
      String url =
          "http://127.0.0.1:" + p.server().port() + "/?table=" + p.db.table("no_such_table");
      try (LivePage page = LivePage.open(url, "#status[data-state=\"error\"]")) {
        page.expect("expect-text #message UNKNOWN_TABLE");
        page.expect("expect-no-row [1]");
        page.quit();
      }
    }
  }
}

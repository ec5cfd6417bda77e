package io.tablecast.it;

import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The browser example in real headless Chromium: the server serves examples/web and the client at
 * /client/, the page subscribes over WebSocket, and rows appear, change and disappear as the
 * database changes. Driven by client-js/test-browser/live-table.e2e.mjs (playwright-core, Debian
 * chromium) through {@link LivePage}. {@link BrowserResilienceTest} covers cut connections, server
 * restarts and frozen tabs.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BrowserLiveTableTest {

  static final List<String> ITEMS =
      List.of(
          "CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL, price decimal(8,2))",
          "INSERT INTO items VALUES (1, 'one', 1.00), (2, 'two', 2.00)");

  @ParameterizedTest
  @EnumSource(Kind.class)
  void rowsAppearChangeAndDisappearInTheLivePage(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.create(kind, "browser", ITEMS, "items")) {
      LivePage.serveExample(p, b -> {});
      try (LivePage page = LivePage.open(LivePage.url(p, "items"))) {
        page.expect("expect-row [2] name=two");

        p.sql("INSERT INTO items VALUES (3, 'three', 3.50)");
        page.expect("expect-row [3] price=3.50");
        p.sql("UPDATE items SET name = 'THREE' WHERE id = 3");
        page.expect("expect-row [3] name=THREE");
        p.sql("DELETE FROM items WHERE id = 3");
        page.expect("expect-no-row [3]");
        p.transaction(
            "UPDATE items SET price = 9.99 WHERE id = 1", "DELETE FROM items WHERE id = 2");
        page.expect("expect-row [1] price=9.99");
        page.expect("expect-no-row [2]");

        // ALTER TABLE while the page is open: its new column list, then the rows in it
        p.sql(
            "ALTER TABLE items RENAME COLUMN name TO title",
            "UPDATE items SET price = 1.50 WHERE id = 1");
        page.expect("expect-row [1] title=one");
        page.expect("expect-row [1] price=1.50");

        // a new primary key while the page is open: the rows are keyed by it
        p.sql(
            kind == Kind.POSTGRESQL
                ? "ALTER TABLE items DROP CONSTRAINT items_pkey, ADD PRIMARY KEY (title)"
                : "ALTER TABLE items DROP PRIMARY KEY, ADD PRIMARY KEY (title)");
        p.sql("INSERT INTO items VALUES (4, 'four', 4.00)");
        page.expect("expect-row [\"four\"] id=4");
        page.expect("expect-row [\"one\"] price=1.50");
        page.expect("expect-no-row [1]");

        page.quit();
      }
    }
  }

  /**
   * The page says why its rows may not be the table's as it is now: stale while the table's capture
   * trigger is disabled (and no longer once it is installed again), and, the server gone, that it
   * cannot connect (a browser gives no reason: the URL and close code). Both looked like a quiet,
   * live table before. One database: the page does not depend on it.
   */
  @org.junit.jupiter.api.Test
  void thePageSaysWhenItsRowsMayDifferAndWhenItCannotConnect() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "browser_stale", ITEMS, "items")) {
      io.tablecast.server.capture.SourceConfig checking = p.installedSourceThatDoesNotRepair();
      LivePage.serveExample(p, b -> b.source(checking));
      try (LivePage page = LivePage.open(LivePage.url(p, "items"))) {
        page.expect("expect-row [2] name=two");
        p.sql("ALTER TABLE items DISABLE TRIGGER USER");
        page.expect("expect-text #message The rows may differ from the table:");
        Pipeline.installCapture(checking); // the operator runs install
        page.expect("expect-text #live[data-stale=\"false\"] two");

        String ws = "ws://127.0.0.1:" + p.server().port() + "/ws";
        p.stopServer();
        page.expect("expect-text #message cannot connect to " + ws + " (close code 1006)");
        page.quit();
      }
    }
  }
}

package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.testing.TestDatabases.Kind;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The live page in real headless Chromium through what browsers live with, while a writer keeps
 * changing the table: the connection cut (the page resumes), the server restarted (a new epoch: the
 * page takes a new snapshot), and a frozen background tab whose connection died silently meanwhile
 * (it notices on waking and resumes). Each ends with the page showing exactly {@code SELECT *} of
 * the table.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BrowserResilienceTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void pageResumesAfterItsConnectionIsCutWhileRowsChange(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.create(kind, "browsercut", BrowserLiveTableTest.ITEMS, "items")) {
      LivePage.serveExample(p, LivePage::throughAProxy);
      try (CuttableProxy proxy = CuttableProxy.raw("127.0.0.1", p.server().port());
          LivePage page = LivePage.open(LivePage.url(p, "items", proxy.address()));
          TableWriter writer = TableWriter.start(p)) {
        writer.awaitMore(5);
        proxy.block(true);
        proxy.cut();
        writer.awaitMore(10);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> proxy.refusals() > 0); // the page tried meanwhile
        proxy.block(false);
        writer.awaitMore(5);
        writer.stop();

        page.expectTable(rowsOnPage(p));
        assertThat(proxy.connections())
            .as("connections through the proxy")
            .isGreaterThanOrEqualTo(2);
        assertThat(p.server().metrics().resumesServed())
            .as("the page resumed")
            .isGreaterThanOrEqualTo(1.0);
        assertThat(p.server().metrics().snapshotsServed())
            .as("snapshots: only the first")
            .isEqualTo(1.0);
        page.quit();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void pageConvergesAfterAServerRestartWhileRowsChange(Kind kind) throws Exception {
    try (Pipeline p =
        Pipeline.create(kind, "browserrestart", BrowserLiveTableTest.ITEMS, "items")) {
      LivePage.serveExample(p, b -> {});
      int port = p.server().port();
      String oldEpoch = p.server().epoch();
      try (LivePage page = LivePage.open(LivePage.url(p, "items"));
          TableWriter writer = TableWriter.start(p)) {
        writer.awaitMore(5);
        p.stopServer();
        writer.awaitMore(10); // written while no server runs
        LivePage.serveExample(p, b -> b.listen("127.0.0.1", port));
        writer.awaitMore(5);
        writer.stop();

        page.expectTable(rowsOnPage(p));
        assertThat(p.server().epoch()).isNotEqualTo(oldEpoch);
        assertThat(p.server().metrics().snapshotsServed())
            .as("the page's new snapshot")
            .isGreaterThanOrEqualTo(1.0);
        page.quit();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void frozenTabWhoseConnectionDiedSilentlyCatchesUpWhenItWakes(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.create(kind, "browserfrozen", BrowserLiveTableTest.ITEMS, "items")) {
      LivePage.serveExample(p, LivePage::throughAProxy);
      try (CuttableProxy proxy = CuttableProxy.raw("127.0.0.1", p.server().port());
          LivePage page = LivePage.open(LivePage.url(p, "items", proxy.address()));
          TableWriter writer = TableWriter.start(p)) {
        writer.awaitMore(5);
        page.freeze();
        writer.awaitMore(5); // buffered by the browser, not yet seen by the page
        proxy.stall(); // the laptop sleeps: the socket stays open, nothing passes any more
        writer.awaitMore(10);
        writer.stop();
        page.thaw();

        page.expectTable(rowsOnPage(p));
        assertThat(proxy.connections())
            .as("the page gave up the dead connection")
            .isGreaterThanOrEqualTo(2);
        assertThat(p.server().metrics().resumesServed())
            .as("the page resumed")
            .isGreaterThanOrEqualTo(1.0);
        page.quit();
      }
    }
  }

  /** {@code SELECT *} of items as the page renders it: key {@code [id]} → column → cell text. */
  private static Map<String, Map<String, String>> rowsOnPage(Pipeline p) throws SQLException {
    Map<String, Map<String, String>> rows = new LinkedHashMap<>();
    try (Connection c = p.db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, name, price FROM items ORDER BY id")) {
      while (rs.next()) {
        BigDecimal price = rs.getBigDecimal("price");
        rows.put(
            "[" + rs.getInt("id") + "]",
            Map.of(
                "id",
                Integer.toString(rs.getInt("id")),
                "name",
                rs.getString("name"),
                "price",
                price == null ? "null" : price.toPlainString()));
      }
    }
    return rows;
  }

  /**
   * Keeps changing items, one transaction every few milliseconds, until stopped: each inserts a
   * row, updates row 1 and deletes the row inserted two transactions earlier, so rows appear,
   * change and disappear and the table stays small.
   */
  private static final class TableWriter implements AutoCloseable {
    private final Pipeline p;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger committed = new AtomicInteger();
    private final CompletableFuture<Void> done;

    private TableWriter(Pipeline p) {
      this.p = p;
      this.done = CompletableFuture.runAsync(this::run);
    }

    static TableWriter start(Pipeline p) {
      return new TableWriter(p);
    }

    private void run() {
      for (int i = 1; running.get(); i++) {
        int id = 100 + i;
        List<String> statements =
            new ArrayList<>(
                List.of(
                    "INSERT INTO items VALUES (" + id + ", 'w" + i + "', " + i + ".25)",
                    "UPDATE items SET price = price + 1, name = 'one v" + i + "' WHERE id = 1"));
        if (i > 2) {
          statements.add("DELETE FROM items WHERE id = " + (id - 2));
        }
        p.transaction(statements.toArray(String[]::new));
        committed.incrementAndGet();
        LockSupport.parkNanos(
            TimeUnit.MILLISECONDS.toNanos(20)); // pacing, not waiting for anything
      }
    }

    /** Waits until {@code n} more transactions have committed. */
    void awaitMore(int n) {
      int target = committed.get() + n;
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> committed.get() >= target || done.isDone());
      assertThat(done).as("the writer is still running").isNotDone();
    }

    void stop() throws Exception {
      running.set(false);
      done.get(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
      running.set(false);
      done.exceptionally(e -> null).get(60, TimeUnit.SECONDS);
    }
  }
}

package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.auth.AccessPolicy;
import io.tablecast.server.auth.ConfigAuthenticator;
import io.tablecast.server.auth.PasswordHasher;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The operations console ({@code /console}, served from the server's jar) in real headless Chromium
 * against a real server and database, with authentication on: the browser logs in with HTTP Basic,
 * a real click on each tab shows the tables (a row count follows an INSERT) and the sessions (a
 * connected Java client, its principal and transport); the charts fill from the server's own
 * meters; the outbox box shows the backlog read; a change the capture missed (a MySQL TRUNCATE, a
 * PostgreSQL trigger disabled) is repaired and its WARN is on the recent errors tab, the repaired
 * rows on the overview; a non-admin principal and a browser without credentials are refused. Driven
 * by client-js/test-browser/console.e2e.mjs through {@link ConsolePage}. Takes screenshots of the
 * tabs into {@code tests/target/console*.png}, and into the file named by {@code
 * -Dtablecast.console.screenshot} (the one in docs/ was made so).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BrowserConsoleTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theConsoleShowsTablesAndSessionsToAdminsOnly(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.create(kind, "console", BrowserLiveTableTest.ITEMS, "items")) {
      ConfigAuthenticator auth =
          new ConfigAuthenticator(
              List.of(
                  new ConfigAuthenticator.PrincipalEntry(
                      "ops",
                      PasswordHasher.hash("ops-pw".toCharArray()),
                      AccessPolicy.ALLOW_ALL,
                      true),
                  new ConfigAuthenticator.PrincipalEntry(
                      "pricing",
                      PasswordHasher.hash("pricing-pw".toCharArray()),
                      AccessPolicy.ALLOW_ALL)),
              null,
              null);
      p.startServer(
          b -> {
            b.set("auth", auth);
            if (kind == Kind.MYSQL) { // else the capture check finds the TRUNCATE below: a resync
              SourceConfig s = p.sourceConfig();
              b.source(
                  new SourceConfig(
                      s.jdbcUrl(),
                      null,
                      null,
                      s.cachedTables().stream().map(t -> t.table()).toList(),
                      true,
                      null,
                      null,
                      s.reconcileInterval(),
                      Duration.ZERO));
            }
          });
      String items = p.db.table("items");
      String console = "http://127.0.0.1:" + p.server().port() + "/console/";
      ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
      try (TablecastClient client =
              TablecastClient.builder()
                  .servers(p.address())
                  .clientName("pricing-service")
                  .credentials("pricing", "pricing-pw")
                  .build();
          ConsolePage page = ConsolePage.start()) {
        TableMirror<Map<String, Object>> mirror = client.mirror(items);
        assertThat(mirror.awaitReady(Pipeline.READY)).as("the Java client's mirror").isTrue();

        assertThat(page.open(console, null, null)).as("no credentials").isEqualTo(401);
        assertThat(page.open(console, "pricing", "pricing-pw")).as("not an admin").isEqualTo(403);
        page.expectContains("body", "'pricing' may not open the console: it is not an admin");
        assertThat(page.open(console, "ops", "wrong")).as("a wrong password").isEqualTo(401);

        assertThat(page.open(console, "ops", "ops-pw")).as("an admin").isEqualTo(200);
        page.expectText("#health", "UP");
        page.expectText("#viewer", "ops (principals)");

        page.click("[data-tab=tables]");
        String rows = "#tables-grid tr[data-table=\"" + items + "\"] td[data-col=rows]";
        page.expectText(rows, "2");
        p.sql("INSERT INTO items VALUES (3, 'three', 3.50)");
        page.expectText(rows, "3");
        page.expectText(
            "#tables-grid tr[data-table=\"" + items + "\"] td[data-col=state]", "followed");
        page.screenshot(Path.of("target/console-tables.png"));

        page.click("[data-tab=sessions]");
        String session = "#sessions-grid tr[data-client=\"pricing-service\"]";
        page.expectText(session + " td[data-col=principal]", "pricing");
        page.expectText(session + " td[data-col=transport]", "tcp");
        page.expectText(session + " td[data-col=tables]", items);
        page.expectText(session + " td[data-col=state]", "ok");
        page.screenshot(Path.of("target/console-sessions.png"));

        // a steady trickle of writes, so that the throughput and lag charts draw lines
        AtomicInteger id = new AtomicInteger(100);
        writer.scheduleAtFixedRate(
            () -> {
              int n = id.incrementAndGet();
              p.sql("INSERT INTO items VALUES (" + n + ", 'item " + n + "', " + n + ".00)");
            },
            0,
            200,
            TimeUnit.MILLISECONDS);
        page.click("[data-tab=overview]");
        page.expectAtLeast("#chart-throughput path[data-series=\"changes/s\"]", "data-points", 10);
        page.expectAtLeast("#chart-latency path[data-series=\"mean\"]", "data-points", 3);
        page.screenshot(Path.of("target/console.png"));
        String docs = System.getProperty("tablecast.console.screenshot");
        if (docs != null && kind == Kind.POSTGRESQL) {
          page.screenshot(ReadmeTest.repoRoot().resolve(docs));
        }
        writer.shutdown();
        assertThat(writer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        // the outbox box, from the tail's meters: everything written was read
        page.expectText("#outbox dd[data-fact=backlog]", "0");

        // a change the capture did not see, repaired by the server: the overview counts it and the
        // recent errors tab shows the WARN it logged
        p.awaitMirrorEqualsTable(mirror, "items");
        if (kind == Kind.MYSQL) {
          // TRUNCATE fires no trigger, and without the capture check (which would re-read the
          // table) reconciliation repairs each row
          int rowsBefore = mirror.size();
          p.expectRepairs(rowsBefore);
          p.sql("TRUNCATE TABLE items");
          page.expectText("#card-repairs", String.format(Locale.US, "%,d", rowsBefore));
          page.expectText(
              "#reconciliation dd[data-fact=repairs]", String.format(Locale.US, "%,d", rowsBefore));
          page.expectText("#repairs-by-table tbody td", items);
          page.click("[data-tab=errors]");
          page.expectContains("#events", "reconciliation repaired ");
          page.expectContains("#events", " rows of " + items);
        } else { // the capture check finds the trigger disabled, enables it and re-reads the table
          p.sql("ALTER TABLE items DISABLE TRIGGER USER");
          page.click("[data-tab=errors]");
          page.expectContains("#events", "Capture of ");
          page.expectContains("#events", "repaired (triggers installed or enabled ALWAYS");
        }
        page.expectContains("#errors-totals", "WARN lines since the start");
        page.screenshot(Path.of("target/console-errors.png"));
        page.quit();
      } finally {
        writer.shutdownNow();
      }
    }
  }
}

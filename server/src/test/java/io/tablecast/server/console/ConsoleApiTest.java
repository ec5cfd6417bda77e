package io.tablecast.server.console;

import static io.tablecast.server.console.ConsoleHttp.get;
import static io.tablecast.server.console.ConsoleHttp.json;
import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.Message;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.hub.HubView;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.TestClient;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The console's API and page through a whole server (open: no {@code auth}) over loopback, with the
 * in-memory source. {@link ConsoleAccessTest} covers who may read it.
 */
class ConsoleApiTest {

  private final FakeChangeSource source = new FakeChangeSource().withTable(table("products"), 3);
  private EventLoopGroup group;
  private TablecastServer server;

  @BeforeEach
  void setUp() throws Exception {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    server =
        TablecastServers.start(
            ServerConfig.builder()
                .set("server_name", "console-test")
                .listen("127.0.0.1", 0)
                .source(
                    new SourceConfig(
                        "jdbc:postgresql://fake/app",
                        null,
                        null,
                        List.of("public.products"),
                        false,
                        null,
                        null))
                .build(),
            source);
  }

  @AfterEach
  void tearDown() {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private JsonNode api(String name) {
    HttpResponse<String> r = get(server.port(), "/console/api/" + name);
    assertThat(r.statusCode()).as("%s: %s", name, r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(r.headers().firstValue("cache-control")).hasValue("no-store");
    return json(r);
  }

  private JsonNode products() {
    JsonNode tables = api("tables").get("tables");
    assertThat(tables).hasSize(1);
    return tables.get(0);
  }

  @Test
  void tablesShowTheirRowsBytesAndLastChange() {
    JsonNode before = products();
    assertThat(before.get("name").asText()).isEqualTo("public.products");
    assertThat(before.get("rows").asLong()).isEqualTo(3);
    assertThat(before.get("primaryKey").get(0).asText()).isEqualTo("id");
    // three rows of a few bytes each, and an index of at least 16 slots of 8 bytes
    assertThat(before.get("rowBytes").asLong()).isBetween(3L * 24, 3L * 64);
    assertThat(before.get("bytes").asLong())
        .isEqualTo(before.get("rowBytes").asLong() + before.get("indexBytes").asLong());
    assertThat(before.get("lastChangePosition").asLong()).isZero();
    assertThat(before.get("captureLagMillis").asLong()).isEqualTo(-1);
    assertThat(before.get("stale").asBoolean()).isFalse();

    source.commit(insert("public.products", 4, "four"));
    // the rows, the position and the lag are recorded one after the other: all are awaited
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JsonNode after = products();
              assertThat(after.get("rows").asLong()).isEqualTo(4);
              assertThat(after.get("lastChangePosition").asLong())
                  .isPositive()
                  .isLessThanOrEqualTo(server.position());
              assertThat(after.get("captureLagMillis").asLong()).isBetween(0L, 10_000L);
              assertThat(after.get("lastAppliedMillis").asLong()).isPositive();
            });
  }

  @Test
  void aTableThatCannotTakeAChangeShowsStaleWithItsReasonAndTheErrorLine() {
    byte[] five = FakeChangeSource.bytes(5, "five");
    source.commit(
        new RowEvent.Upsert(
            "public.products",
            table("products"),
            FakeChangeSource.key(5),
            Arrays.copyOf(five, five.length - 2), // not a row of the table's row form
            null));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JsonNode stale = products();
              assertThat(stale.get("stale").asBoolean()).isTrue();
              assertThat(stale.get("staleReason").asText()).contains("re-reading the table");
              assertThat(stale.get("invalid").asBoolean()).isTrue();
              assertThat(stale.get("imageErrors").asDouble()).isEqualTo(1);
              assertThat(api("server").get("staleTables").asInt()).isEqualTo(1);
            });
    List<String> errors = new ArrayList<>();
    api("errors")
        .get("events")
        .forEach(
            e -> {
              if (e.get("level").asText().equals("ERROR")) {
                errors.add(e.get("message").asText());
              }
            });
    assertThat(errors)
        .anySatisfy(m -> assertThat(m).contains("cannot apply a", "event of table public.products"))
        .anySatisfy(m -> assertThat(m).startsWith("table public.products is stale"));
  }

  @Test
  void sessionsShowEachClientsPrincipalAddressTransportAndTables() throws Exception {
    try (TestClient tcp = TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()));
        TestClient ws = TestClient.webSocket(group, server.port())) {
      tcp.send(new Message.Hello(Message.PROTOCOL_VERSION, "pricing", "svc", null, null));
      tcp.next(Message.Welcome.class);
      tcp.send(Message.Subscribe.fresh(List.of("public.products")));
      while (!(tcp.nextNonHeartbeat() instanceof Message.SnapshotEnd)) {
        // snapshot_begin and its rows
      }
      ws.sendText("{\"type\":\"hello\",\"protocolVersion\":2,\"clientName\":\"browser\"}");
      ws.nextText(); // welcome

      // the server counts a session caught up a moment after the snapshot's end went out
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                JsonNode now = api("sessions").get("sessions");
                assertThat(now).hasSize(2);
                assertThat(now.get(0).get("state").asText()).isEqualTo("ok");
              });
      JsonNode sessions = api("sessions").get("sessions");
      JsonNode pricing = sessions.get(0);
      assertThat(pricing.get("clientName").asText()).isEqualTo("pricing");
      assertThat(pricing.get("principal").asText()).isEqualTo("svc");
      assertThat(pricing.get("transport").asText()).isEqualTo("tcp");
      assertThat(pricing.get("tls").asBoolean()).isFalse();
      assertThat(pricing.get("remoteAddress").asText())
          .isEqualTo("127.0.0.1:" + ((InetSocketAddress) tcp.channel.localAddress()).getPort());
      assertThat(pricing.get("tables").get(0).asText()).isEqualTo("public.products");
      assertThat(pricing.get("state").asText()).isEqualTo("ok");
      assertThat(pricing.get("queuedBytes").asLong()).isNotNegative();
      JsonNode browser = sessions.get(1);
      assertThat(browser.get("clientName").asText()).isEqualTo("browser");
      assertThat(browser.get("principal").asText()).isEqualTo("anonymous");
      assertThat(browser.get("transport").asText()).isEqualTo("websocket");
      assertThat(browser.get("tables")).isEmpty();
    }
  }

  @Test
  void metricsCountTheChangesAndTheLag() {
    JsonNode first = api("metrics");
    assertThat(first.get("changes").asDouble()).isZero();
    assertThat(first.get("lag").get("count").asLong()).isZero();
    assertThat(first.get("outbox").has("backlog")).isTrue();
    assertThat(first.get("reconcile").get("repairs").asDouble()).isZero();

    source.commit(insert("public.products", 4, "four"), insert("public.products", 5, "five"));
    // the counters and the lag timer are recorded one after the other, on the hub's thread: a
    // reading in between saw the changes and not yet the lag
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JsonNode now = api("metrics");
              assertThat(now.get("changes").asDouble()).isEqualTo(2);
              assertThat(now.get("lag").get("count").asLong()).isEqualTo(1);
            });
    JsonNode m = api("metrics");
    assertThat(m.get("batches").asDouble()).isEqualTo(1);
    assertThat(m.get("lag").has("p99Millis")).isTrue();
    assertThat(m.get("time").asLong()).isGreaterThanOrEqualTo(first.get("time").asLong());
  }

  @Test
  void recentErrorsShowWhatTheServerLoggedAsWarnOrError() {
    RecentEvents.logger(ConsoleApiTest.class)
        .warn("a warning for the console test, table {}", "public.products");
    JsonNode events = api("errors").get("events");
    assertThat(events.get(0).get("level").asText()).isEqualTo("WARN");
    assertThat(events.get(0).get("message").asText())
        .isEqualTo("a warning for the console test, table public.products");
    assertThat(events.get(0).get("logger").asText()).isEqualTo(ConsoleApiTest.class.getName());
    assertThat(api("errors").get("warnings").asLong()).isPositive();
  }

  @Test
  void serverSaysWhoItIsAndHowTheConsoleIsProtected() {
    JsonNode s = api("server");
    assertThat(s.get("serverName").asText()).isEqualTo("console-test");
    assertThat(s.get("health").asText()).isEqualTo("UP");
    assertThat(s.get("epoch").asText()).isEqualTo(server.epoch());
    assertThat(s.get("tables").asInt()).isEqualTo(1);
    assertThat(s.get("access").asText()).isEqualTo("open");
    assertThat(s.get("viewer").asText()).isEqualTo("anonymous");
  }

  @Test
  void pageAndAssetsComeFromTheJarAndLoadNothingFromElsewhere() {
    for (String path : List.of("/console", "/console/", "/console/index.html")) {
      HttpResponse<String> page = get(server.port(), path);
      assertThat(page.statusCode()).as(path).isEqualTo(200);
      assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
      assertThat(page.body()).contains("<title>Tablecast console</title>");
    }
    for (String asset : ConsoleAssets.FILES.keySet()) {
      HttpResponse<String> r = get(server.port(), "/console/" + asset);
      assertThat(r.statusCode()).as(asset).isEqualTo(200);
      assertThat(r.headers().firstValue("content-security-policy"))
          .hasValue(ConsoleAssets.CONTENT_SECURITY_POLICY);
      assertThat(r.headers().firstValue("x-frame-options")).hasValue("DENY");
      // no CDN, no web font, no external script: every reference is a path on this server
      assertThat(r.body())
          .as(asset)
          .doesNotContainPattern("(?i)(src|href)\\s*=\\s*[\"'](https?:)?//")
          .doesNotContainPattern("(?i)import[^;]*from\\s*[\"'](https?:)?//")
          .doesNotContainPattern("(?i)url\\(\\s*[\"']?(https?:)?//")
          .doesNotContain("fetch('http");
    }
    assertThat(ConsoleAssets.CONTENT_SECURITY_POLICY)
        .contains("default-src 'none'", "script-src 'self'", "connect-src 'self'");
  }

  @Test
  void unknownConsolePathsAre404AndHealthStillNamesNoTable() {
    assertThat(get(server.port(), "/console/api/nope").statusCode()).isEqualTo(404);
    assertThat(get(server.port(), "/console/../health").statusCode()).isEqualTo(404);
    assertThat(get(server.port(), "/console/nope.js").statusCode()).isEqualTo(404);
    assertThat(get(server.port(), "/health").body()).doesNotContain("products");
  }

  @Test
  void aBusyHubIsAnswered503AndAskedOnlyOnce() {
    AtomicInteger asked = new AtomicInteger();
    CompletableFuture<HubView> never = new CompletableFuture<>();
    Console console =
        new Console(
            () -> {
              asked.incrementAndGet();
              return never;
            },
            new SimpleMeterRegistry(),
            ConsoleAccess.of(null, null),
            "busy",
            () -> "UP",
            new RecentEvents(10));
    long t0 = System.nanoTime();
    CompletableFuture<ConsoleReply> first =
        console.handle("/console/api/tables", null, Runnable::run);
    CompletableFuture<ConsoleReply> second =
        console.handle("/console/api/sessions", null, Runnable::run);
    assertThat(first).isNotDone(); // nothing waited for the hub
    ConsoleReply reply = first.join();
    assertThat(reply.status()).isEqualTo(503);
    assertThat(new String(reply.body(), java.nio.charset.StandardCharsets.UTF_8))
        .contains("did not answer within");
    assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .isGreaterThanOrEqualTo(Duration.ofMillis(Console.HUB_WAIT_MILLIS - 100));
    assertThat(second.join().status()).isEqualTo(503);
    assertThat(asked).as("one view asked for while the hub is busy").hasValue(1);
    // meters and events do not need the hub
    assertThat(console.handle("/console/api/metrics", null, Runnable::run).join().status())
        .isEqualTo(200);
  }
}

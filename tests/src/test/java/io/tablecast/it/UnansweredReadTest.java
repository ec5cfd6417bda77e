package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.CaptureEndpoints;
import io.tablecast.server.stream.CaptureStandby;
import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A database that stops answering the server without closing its connections (a host powered off, a
 * firewall or NAT that drops the connection's packets, an address moved by a failover): the server
 * reaches it through a proxy that stops passing the database's answers on while the connections
 * stay open, so the tail's read waits, as it would for the operating system to give the connection
 * up (a quarter of an hour by Linux's defaults). Within about ten seconds every mirror says it is
 * stale, naming the read that has not returned, and keeps its rows; once the answers flow again the
 * mirror gets what was committed meanwhile and follows its table again. Before, no poll failed, so
 * the mirrors looked current throughout (40 s without a word, watched). The same with NATS, where
 * {@code tablecast capture} reads the database and says it through the stream to the servers.
 *
 * <p>When only the server's connections go silent while new ones pass, the server gives the read up
 * on the database's word: {@code SilentConnectionsUnderLoadTest}.
 */
class UnansweredReadTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final List<String> DDL =
      List.of(
          "CREATE TABLE items (id int PRIMARY KEY, v varchar(10))",
          "CREATE TABLE others (id int PRIMARY KEY)");

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aDatabaseThatStopsAnsweringMakesEveryMirrorStaleUntilItsReadReturns(Kind kind)
      throws Exception {
    try (Pipeline p = Pipeline.create(kind, "unanswered", DDL, "items", "others");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      ServerSetups.atUrl(
          p, ServerSetups.urlThrough(p, proxy), Duration.ZERO); // no reconciliation: the tail
      staleWhileUnanswered(p, p.client("unanswered"), proxy, kind.toString(), () -> Health.of(p));
    }
  }

  /**
   * PostgreSQL: the session of a read whose answer was lost is ended on the database's side once
   * the read is given up, and with it the locks it held. Before, it stayed, waiting for a client
   * that had gone, until the database's keepalive found the connection gone (hours by default), and
   * an {@code ALTER TABLE} queued behind its lock held up every writer of the table (watched: the
   * table's exclusive lock not granted within 45 s).
   */
  @Test
  void withPostgresqlTheSessionOfAReadWhoseAnswerWasLostIsEndedWithItsLocks() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "unanswered_locks", DDL, "items", "others");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      ServerSetups.atUrl(p, ServerSetups.urlThrough(p, proxy), Duration.ZERO);
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("unanswered_locks"), "items");
      CountDownLatch silenced = proxy.stallAfterSending("IN ACCESS SHARE MODE");
      // a child joins the table: the tail re-reads it, in a transaction that locks it first
      p.sql("CREATE TABLE items_child () INHERITS (items)");
      assertThat(silenced.await(30, TimeUnit.SECONDS)).as("the re-read silenced").isTrue();
      p.sql("INSERT INTO items_child VALUES (1, 'a')");
      await().atMost(WAIT).until(() -> items.get(1) != null); // read again on a new connection
      try (Connection c = p.connect();
          Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        s.execute("SET LOCAL lock_timeout = '45s'");
        s.execute("LOCK TABLE items IN ACCESS EXCLUSIVE MODE"); // as an ALTER TABLE would
        c.rollback();
      }
    }
  }

  /**
   * MySQL/MariaDB: the same for the metadata locks of a read whose answer was lost (the start's
   * snapshot, silenced right after it sent the table's read, which the database ran): once given
   * up, the session is ended on the database's side ({@code KILL}), and an {@code ALTER TABLE} of
   * the table, and every writer queued behind it, no longer waits for it. MariaDB Connector/J's
   * {@code abort} of a connection at work sends a {@code KILL} of its own on a new connection, so
   * this held before the server's own {@code KILL} too (that one ends the session where the driver
   * did not: a range given up, {@code SilentTailStatementsTest}); it stays as the promise's test,
   * whatever the driver does.
   */
  @Test
  void withMysqlTheSessionOfAReadWhoseAnswerWasLostIsEndedWithItsMetadataLocks() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.MYSQL, "unanswered_mdl", DDL, "items", "others");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      p.sql("INSERT INTO items VALUES (1, 'a')");
      CountDownLatch silenced = proxy.stallAfterSending("`.`items` t"); // the table's read
      assertTimeoutPreemptively(
          Duration.ofSeconds(90),
          () -> ServerSetups.atUrl(p, ServerSetups.urlThrough(p, proxy), Duration.ZERO));
      assertThat(silenced.getCount()).as("the snapshot's connection was silenced").isZero();
      try (Connection c = p.connect();
          Statement s = c.createStatement()) {
        s.execute("SET SESSION lock_wait_timeout = 45");
        s.execute("LOCK TABLES items WRITE"); // as an ALTER TABLE would
        s.execute("UNLOCK TABLES");
      }
    }
  }

  /**
   * With NATS, {@code tablecast capture} reads the database and says it through the stream to the
   * servers; its own {@code /health} turns DOWN as a server's would.
   */
  @Test
  void withNatsTheServersSayEveryTableStaleWhileTheCapturesReadGoesUnanswered() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "unanswered_nats", DDL, "items", "others");
        CuttableProxy proxy = ServerSetups.databaseProxy(p);
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        CaptureStandby capture =
            CaptureStandby.start(
                ServerSetups.sourceAt(p, ServerSetups.urlThrough(p, proxy), Duration.ZERO),
                NatsScaleOutTest.nats(n, p),
                "capture");
        CaptureEndpoints endpoints = CaptureEndpoints.start("127.0.0.1", 0, capture, null);
        TablecastServer edge = NatsScaleOutTest.serve(n, p, "edge");
        TablecastClient client = NatsScaleOutTest.client("c", "127.0.0.1:" + edge.port())) {
      await().atMost(WAIT).until(capture::leading);
      staleWhileUnanswered(
          p, client, proxy, "NATS", () -> Health.at("127.0.0.1:" + endpoints.port()));
    }
  }

  /**
   * A server's connection to NATS goes silent without closing, while new connections pass: the
   * server asks NATS for a round trip after a quiet spell, makes the connection again, and reads on
   * (the row written meanwhile arrives). Then NATS cannot be reached at all: the reads fail, and
   * every mirror says it is stale until NATS is back. Before, the client's own pings gave the
   * connection up only after minutes, and the mirrors looked current throughout (the row did not
   * arrive within 30 s, and the test failed).
   */
  @Test
  void withNatsAServerWhoseStreamConnectionWentSilentReadsAgainOnANewOne() throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "silent_nats", DDL, "items", "others");
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD);
        StreamCapture capture = NatsScaleOutTest.capture(n, p);
        CuttableProxy proxy = CuttableProxy.raw("127.0.0.1", URI.create(n.url()).getPort());
        TablecastServer edge =
            TablecastServer.start(
                ServerConfig.builder()
                    .set("server_name", "edge")
                    .listen("127.0.0.1", 0)
                    .set(
                        "nats",
                        new NatsSettings(
                            List.of("nats://" + proxy.address()),
                            NatsScaleOutTest.nats(n, p).stream(),
                            null,
                            null,
                            null))
                    .build());
        TablecastClient client = NatsScaleOutTest.client("c", "127.0.0.1:" + edge.port())) {
      TableMirror<Map<String, Object>> items = p.readyMirror(client, "items");
      p.sql("INSERT INTO items VALUES (1, 'a')");
      await().atMost(WAIT).until(() -> items.get(1) != null);

      proxy.stall(); // the edge's connection to NATS goes silent; new connections pass
      long stalled = System.currentTimeMillis();
      p.sql("INSERT INTO items VALUES (2, 'b')");
      await()
          .atMost(WAIT)
          .alias("read again on a new connection")
          .until(() -> items.get(2) != null);
      System.out.printf(
          "UnansweredReadTest NATS silent: read again after %d ms%n",
          System.currentTimeMillis() - stalled);

      proxy.stall(); // silent again, and now NATS cannot be reached at all
      proxy.block(true);
      long blocked = System.currentTimeMillis();
      p.sql("INSERT INTO items VALUES (3, 'c')");
      await().atMost(WAIT).until(() -> items.staleReason() != null);
      System.out.printf(
          "UnansweredReadTest NATS unreachable: stale after %d ms (%s)%n",
          System.currentTimeMillis() - blocked, items.staleReason());
      assertThat(items.get(3)).isNull();
      assertThat(items.get(2)).containsEntry("v", "b");

      proxy.block(false);
      await().atMost(WAIT).until(() -> items.get(3) != null);
      await().atMost(WAIT).until(() -> items.staleReason() == null);
    }
  }

  /**
   * Stops the database's answers through {@code proxy} after a first row reached the mirrors, and
   * lets them flow again once every mirror said it is stale and the reader's {@code /health}
   * ({@code health}: status code and body) turned DOWN (after three times {@code
   * source.answer_timeout}: before, it said UP for as long as the read waited).
   */
  private static void staleWhileUnanswered(
      Pipeline p, TablecastClient client, CuttableProxy proxy, String what, Callable<String> health)
      throws Exception {
    TableMirror<Map<String, Object>> items = p.readyMirror(client, "items");
    TableMirror<Map<String, Object>> others = p.readyMirror(client, "others");
    p.sql("INSERT INTO items VALUES (1, 'a')");
    await().atMost(WAIT).until(() -> items.get(1) != null);

    proxy.pause(true); // the database's answers stop reaching the server
    long paused = System.currentTimeMillis();
    p.sql("INSERT INTO items VALUES (2, 'b')"); // the writers reach it directly
    await().atMost(WAIT).until(() -> items.staleReason() != null);
    Duration staleAfter = Duration.ofMillis(System.currentTimeMillis() - paused);
    System.out.printf("UnansweredReadTest %s: stale after %d ms%n", what, staleAfter.toMillis());
    assertThat(staleAfter)
        .as(
            "said once the read went source.answer_timeout (%s) unanswered, not the default %s",
            ServerSetups.ANSWER_TIMEOUT, SourceConfig.DEFAULT_ANSWER_TIMEOUT)
        .isLessThan(SourceConfig.DEFAULT_ANSWER_TIMEOUT);
    assertThat(items.staleReason())
        .contains("the server's read of changes from the database has not returned since")
        .contains("keeps the rows it has");
    await().atMost(WAIT).alias("every table").until(() -> others.staleReason() != null);
    assertThat(items.get(1)).containsEntry("v", "a");
    assertThat(items.get(2)).isNull();
    await().atMost(WAIT).until(() -> health.call().startsWith("503 "));
    long down = System.currentTimeMillis() - paused;
    System.out.printf("UnansweredReadTest %s: /health DOWN after %d ms%n", what, down);
    assertThat(down) // three times the setting from the read's start, which may precede the pause
        .isGreaterThan(2 * ServerSetups.ANSWER_TIMEOUT.toMillis());
    assertThat(health.call())
        .contains("\"status\":\"DOWN\"")
        .contains("a read of changes from the database has not returned for")
        .doesNotContain(p.db.table("items"));

    proxy.pause(false);
    await().atMost(WAIT).until(() -> items.get(2) != null);
    await().atMost(WAIT).until(() -> items.staleReason() == null);
    await().atMost(WAIT).until(() -> others.staleReason() == null);
    assertThat(health.call()).startsWith("200 {\"status\":\"UP\"");
  }
}

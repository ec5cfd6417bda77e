package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.client.TableMirror;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.ConsumerRegistry;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.testing.TestDatabases.Isolated;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server's background statements on a connection that goes silent while they wait for their
 * answer (the database's host gone without a word, a firewall that forgot the connection): each is
 * given up and made again on another connection, rather than its thread waiting for ever while the
 * server serves on. To put the silence on a statement deterministically, the test holds a lock the
 * statement needs, silences the connections while it waits, then lets it go: the database runs it,
 * and its answer is lost. The tail's own statements besides its read: {@code
 * SilentTailStatementsTest}.
 */
class SilentBackgroundConnectionsTest {
  private static final Duration HEARTBEAT = Duration.ofSeconds(2);
  private static final List<String> DDL =
      List.of("CREATE TABLE items (id int PRIMARY KEY, v int NOT NULL)");

  /**
   * The registration's heartbeat: had its thread waited for ever, the registration would expire
   * unseen after {@link ConsumerRegistry#LIVENESS}, and with it the hold it puts on other servers'
   * pruning and on another configuration's uninstall.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aHeartbeatWhoseAnswerWasLostIsMadeAgainOnAnotherConnection(Kind kind) throws Exception {
    Isolated db = kind.isolated("silent_heartbeat");
    CapturePlan plan = installed(db);
    try (CuttableProxy proxy = proxyOf(db);
        HikariDataSource pool = poolThrough(db, proxy);
        ConsumerRegistry registry =
            ConsumerRegistry.register(plan, pool, "silenced", HEARTBEAT, OptionalLong::empty);
        Connection holder = db.connect()) {
      holder.setAutoCommit(false);
      try (Statement s = holder.createStatement()) {
        s.executeUpdate( // the registration's row, held: the next heartbeat waits for it
            "UPDATE tablecast_consumers SET host = host WHERE server_name = 'silenced'");
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> waitingForALock(db, "UPDATE %tablecast_consumers%"));
      proxy.stall(); // the pool's connections go silent, the heartbeat's among them
      holder.commit(); // the heartbeat's UPDATE runs now; its answer is lost on the way
      Thread.sleep(500);
      Object lost = heartbeatAt(db);
      await()
          .alias("a heartbeat after the one whose answer was lost")
          .atMost(Duration.ofSeconds(30))
          .until(() -> !Objects.equals(heartbeatAt(db), lost));
      assertThat(proxy.connections()).as("made on a new connection").isGreaterThan(2);
    }
  }

  /**
   * The registration at start: had it waited for ever, the server would never have started. It is
   * given up after the heartbeat's period, and the next heartbeat makes it (the registration was
   * missing meanwhile, so the source is told to read every table again, as after an expiry).
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRegistrationWhoseAnswerWasLostLetsTheServerStartAndAHeartbeatMakesIt(Kind kind)
      throws Exception {
    Isolated db = kind.isolated("silent_register");
    CapturePlan plan = installed(db);
    try (CuttableProxy proxy = proxyOf(db);
        HikariDataSource pool = poolThrough(db, proxy)) {
      CountDownLatch silenced = proxy.stallAfterSending("INSERT INTO ");
      try (ConsumerRegistry registry =
          assertTimeoutPreemptively(
              Duration.ofSeconds(30),
              () ->
                  ConsumerRegistry.register(
                      plan, pool, "silenced", HEARTBEAT, OptionalLong::empty))) {
        assertThat(silenced.getCount()).as("the registration silenced").isZero();
        Object lost = heartbeatAt(db); // its INSERT ran: only the answer was lost
        await()
            .alias("the registration made by a heartbeat")
            .atMost(Duration.ofSeconds(30))
            .until(registry::takeExpired);
        assertThat(heartbeatAt(db)).isNotEqualTo(lost);
      }
    }
  }

  /**
   * PostgreSQL's repair of a capture made beside the tail, when an application's transaction holds
   * a lock it needs (a child joined a cached table, and the transaction wrote to it first): had its
   * thread waited for ever, the table would have stayed stale, said to wait for the transaction
   * long gone, its rows never arriving, and no other repair made. Given up after 15 s without an
   * answer, it is made again at the next check.
   */
  @Test
  void withPostgresqlARepairBesideTheTailWhoseAnswerWasLostIsGivenUpAndMadeAgain()
      throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "silent_bg_repair", DDL, "items");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      ServerSetups.atUrl(p, ServerSetups.urlThrough(p, proxy), Duration.ZERO);
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("silent_bg_repair"), "items");
      p.db.execute("CREATE TABLE items_more () INHERITS (items)");
      try (Connection writer = p.db.connect();
          Statement s = writer.createStatement()) {
        writer.setAutoCommit(false);
        s.execute("INSERT INTO items_more VALUES (1, 1)"); // holds the lock the repair needs
        await()
            .alias("the repair waits beside the tail")
            .atMost(Duration.ofSeconds(30))
            .until(() -> String.valueOf(items.staleReason()).contains("being repaired"));
        CountDownLatch silenced = proxy.stallAfterSending("CREATE TRIGGER"); // its next try
        assertThat(silenced.await(30, TimeUnit.SECONDS)).as("the repair silenced").isTrue();
        writer.commit();
      }
      long began = System.nanoTime();
      await()
          .alias("the row written before the repair whose answer was lost")
          .atMost(Duration.ofSeconds(75))
          .until(() -> items.get(1) != null);
      System.out.printf(
          "SilentBackgroundConnectionsTest: the row arrived %d ms after the repair went silent%n",
          (System.nanoTime() - began) / 1_000_000);
      p.db.execute("INSERT INTO items_more VALUES (2, 2)");
      await().atMost(Duration.ofSeconds(30)).until(() -> items.get(2) != null); // captured
    }
  }

  /** A proxy in front of {@code db}'s database. */
  private static CuttableProxy proxyOf(Isolated db) throws IOException {
    URI address = URI.create(db.jdbcUrl().substring("jdbc:".length()));
    return CuttableProxy.raw(address.getHost(), address.getPort());
  }

  /** A pool of connections to {@code db} through {@code proxy}. */
  private static HikariDataSource poolThrough(Isolated db, CuttableProxy proxy) {
    URI address = URI.create(db.jdbcUrl().substring("jdbc:".length()));
    return pool(db.jdbcUrl().replace(address.getHost() + ":" + address.getPort(), proxy.address()));
  }

  /** {@code db} with a table {@code ta}, its capture installed. */
  private static CapturePlan installed(Isolated db) throws SQLException {
    db.execute("CREATE TABLE ta (id INT PRIMARY KEY)");
    try (TriggerInstaller installer =
        TriggerInstaller.connect(
            new SourceConfig(db.jdbcUrl(), null, null, List.of("ta"), true, null, null))) {
      installer.install();
      return installer.plan();
    }
  }

  /**
   * The outbox pruner's round: had its thread waited for ever, the outbox would grow from then on
   * without a word while the server serves on. PostgreSQL only (each run waits out the 30 s bound):
   * the pruner's thread is the same for both, and the heartbeat's test shows each driver giving a
   * statement up.
   */
  @Test
  void withPostgresqlAPruningRoundWhoseAnswerWasLostIsMadeAgainAndTheOutboxIsPrunedOn()
      throws Exception {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "silent_prune", DDL, "items");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      SourceConfig through = ServerSetups.sourceAt(p, ServerSetups.urlThrough(p, proxy), null);
      p.startServer(
          b ->
              b.source(
                  new SourceConfig(
                          through.jdbcUrl(),
                          null,
                          null,
                          through.tableNames(),
                          true,
                          Duration.ofMillis(1), // every row read is prunable at once
                          null,
                          Duration.ZERO,
                          Pipeline.CAPTURE_CHECK_EVERY)
                      .withAnswerTimeout(through.answerTimeout())));
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("silent_prune"), "items");
      p.db.execute("INSERT INTO items VALUES (1, 1)");
      await().atMost(Duration.ofSeconds(30)).until(() -> items.size() == 1);
      try (Connection holder = p.db.connect();
          Statement s = holder.createStatement()) {
        holder.setAutoCommit(false);
        s.execute( // the outbox, held: the pruner's next round waits for it
            "LOCK TABLE tablecast_outbox IN ACCESS EXCLUSIVE MODE");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> waitingForALock(p.db, "SELECT COUNT(*)%pending%")); // its backlog count
        proxy.stall(); // every connection of the server goes silent, the pruner's among them
        holder.commit(); // its count runs now, the answer is lost
      }
      p.db.execute("INSERT INTO items VALUES (2, 2)");
      await().atMost(Duration.ofSeconds(60)).until(() -> items.size() == 2);
      await()
          .alias("the outbox pruned after the round whose answer was lost")
          .atMost(Duration.ofSeconds(75))
          .until(() -> outboxRows(p.db) == 0);
    }
  }

  /**
   * MySQL/MariaDB's capture check, on a thread of its own: had it waited for ever, a trigger
   * dropped afterwards would never be found, and the rows it did not record never arrive.
   */
  @Test
  void withMysqlACaptureCheckWhoseAnswerWasLostIsGivenUpAndAMissingTriggerFoundAfter()
      throws Exception {
    try (Pipeline p = Pipeline.create(Kind.MYSQL, "silent_my_check", DDL, "items");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      ServerSetups.atUrl(p, ServerSetups.urlThrough(p, proxy), Duration.ZERO);
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("silent_my_check"), "items");
      CountDownLatch silenced =
          proxy.stallAfterSending("FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA IN");
      assertThat(silenced.await(30, TimeUnit.SECONDS)).as("a capture check silenced").isTrue();
      try (Connection c = p.db.connect();
          Statement s = c.createStatement()) {
        List<String> triggers = new ArrayList<>();
        try (ResultSet rs =
            s.executeQuery(
                "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS"
                    + " WHERE EVENT_OBJECT_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE = 'items'")) {
          while (rs.next()) {
            triggers.add(rs.getString(1));
          }
        }
        assertThat(triggers).isNotEmpty();
        for (String t : triggers) {
          s.execute("DROP TRIGGER `" + t + "`");
        }
        s.execute("INSERT INTO items VALUES (1, 1)"); // recorded by no trigger
      }
      await()
          .alias("the row no trigger recorded, found once the missing trigger was")
          .atMost(Duration.ofSeconds(60))
          .until(() -> items.size() == 1);
    }
  }

  /**
   * The probe that asks every second for the lock of a table whose read waits for DDL (its own
   * thread): had it waited for ever, the table would never be read again once the lock was let go,
   * its rows never arriving.
   */
  @Test
  void withMysqlALockWaitProbeWhoseAnswerWasLostIsGivenUpAndTheTableReadOnceFree()
      throws Exception {
    try (Pipeline p = Pipeline.create(Kind.MYSQL, "silent_lock_wait", DDL, "items");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      ServerSetups.atUrl(p, ServerSetups.urlThrough(p, proxy), Duration.ZERO);
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("silent_lock_wait"), "items");
      CountDownLatch silenced =
          proxy.stallAfterSending("SELECT 1 FROM `" + p.db.schema() + "`.`items` LIMIT 0");
      try (Connection reader = p.db.connect();
          Connection writer = p.db.connect();
          Connection ddl = p.db.connect();
          Statement r = reader.createStatement();
          Statement w = writer.createStatement()) {
        reader.setAutoCommit(false);
        r.executeQuery("SELECT * FROM items").close(); // a transaction that read the table, open
        writer.setAutoCommit(false);
        w.execute("INSERT INTO items VALUES (1, 1)");
        CompletableFuture<Void> alter =
            CompletableFuture.runAsync(
                () -> {
                  try (Statement d = ddl.createStatement()) {
                    d.execute("ALTER TABLE items COMMENT 'waits for the reader'");
                  } catch (SQLException e) {
                    throw new IllegalStateException(e);
                  }
                });
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> waitingForALock(p.db, "ALTER TABLE items%"));
        writer.commit(); // the tail's read of its row queues behind the ALTER, then is held
        assertThat(silenced.await(30, TimeUnit.SECONDS)).as("a lock probe silenced").isTrue();
        reader.commit(); // the ALTER runs: the table's lock is free
        alter.get(30, TimeUnit.SECONDS);
      }
      await()
          .alias("the row read once its table's lock was let go")
          .atMost(Duration.ofSeconds(40))
          .until(() -> items.size() == 1);
    }
  }

  private static long outboxRows(Isolated db) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM tablecast_outbox")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Whether another session waits for a lock in a statement like {@code like}. */
  static boolean waitingForALock(Isolated db, String like) throws SQLException {
    String sql =
        db.kind() == Kind.POSTGRESQL
            ? "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                + " AND pid <> pg_backend_pid() AND query LIKE ?"
            : "SELECT COUNT(*) FROM information_schema.processlist"
                + " WHERE id <> CONNECTION_ID() AND (state LIKE 'Waiting for%' OR state = 'Updating') AND info LIKE ?";
    try (Connection c = db.connect();
        java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, like);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    }
  }

  private static Object heartbeatAt(Isolated db) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT heartbeat_at FROM tablecast_consumers WHERE server_name = 'silenced'")) {
      return rs.next() ? rs.getTimestamp(1) : null;
    }
  }

  private static HikariDataSource pool(String url) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(url);
    hc.setMaximumPoolSize(2);
    return new HikariDataSource(hc);
  }
}

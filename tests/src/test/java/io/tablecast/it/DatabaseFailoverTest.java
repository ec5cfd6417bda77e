package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The database behind the server's address becomes another instance while it serves: a standby
 * promoted after the primary crashed, without the primary's last transactions (PostgreSQL), or a
 * server restored from a backup taken before the last writes (MariaDB). The new instance lacks
 * changes the mirrors already show and hands their transaction ids or outbox ids to new ones: the
 * server must take the mirrors to the new instance's tables, not keep the lost rows and skip the
 * new changes. Reconciliation is off, so that only the tail can bring them there.
 */
class DatabaseFailoverTest {
  private static final String CREATE =
      "CREATE TABLE failover.items (id int PRIMARY KEY, name varchar(20))";

  @Test
  void aPromotedStandbyThatLacksTheLastTransactionsIsWhatMirrorsShow() throws Exception {
    try (LocalDatabases.Postgres primary = LocalDatabases.Postgres.start("failover-primary")) {
      primary.execute(
          "CREATE SCHEMA failover", CREATE, "INSERT INTO failover.items VALUES (1, 'a'), (2, 'b')");
      try (CuttableProxy address = CuttableProxy.raw("127.0.0.1", primary.port);
          TablecastServer server = LocalDatabases.serve(pgUrl(address), "failover.items");
          TablecastClient client = LocalDatabases.client(server)) {
        TableMirror<Map<String, Object>> mirror = client.mirror("failover.items");
        assertThat(mirror.awaitReady(Duration.ofSeconds(30))).isTrue();
        primary.execute("INSERT INTO failover.items VALUES (3, 'c')");
        try (LocalDatabases.Postgres standby = primary.standby("failover-standby")) {
          standby.stop(); // it falls behind: what follows never reaches it
          primary.execute(
              "INSERT INTO failover.items VALUES (4, 'lost')",
              "UPDATE failover.items SET name = 'lost' WHERE id = 1",
              "DELETE FROM failover.items WHERE id = 2");
          awaitMirror(mirror, LocalDatabases.rows(primary.jdbcUrl(), "failover.items"));

          primary.crash();
          standby.startProcess();
          standby.promote();
          address.retarget("127.0.0.1", standby.port);
          address.cut();
          // the standby's next transaction ids are the ones the lost transactions had
          standby.execute(
              "INSERT INTO failover.items VALUES (5, 'new')",
              "UPDATE failover.items SET name = 'new' WHERE id = 3");

          awaitMirror(mirror, LocalDatabases.rows(standby.jdbcUrl(), "failover.items"));
          standby.execute("INSERT INTO failover.items VALUES (6, 'after')");
          awaitMirror(mirror, LocalDatabases.rows(standby.jdbcUrl(), "failover.items"));
        }
      }
    }
  }

  /**
   * The primary's host goes silent (powered off: its connections neither answer nor close) and a
   * standby is promoted behind the same address. The server's read waits on a connection that will
   * never answer, while new connections reach the standby: the server finds that out on a
   * connection of its own, abandons the read, and the mirrors show the standby's table. Before, the
   * read waited for ever: the mirror said it was stale, and stayed so. The whole read that follows
   * on the standby goes silent too, once it has locked its tables: it is given up as the read was.
   */
  @Test
  void aStandbyPromotedWhileThePrimaryWentSilentIsWhatMirrorsShow() throws Exception {
    try (LocalDatabases.Postgres primary = LocalDatabases.Postgres.start("silent-primary")) {
      primary.execute(
          "CREATE SCHEMA failover", CREATE, "INSERT INTO failover.items VALUES (1, 'a'), (2, 'b')");
      try (CuttableProxy address = CuttableProxy.raw("127.0.0.1", primary.port);
          TablecastServer server =
              LocalDatabases.serve(pgUrl(address), "failover.items", ServerSetups.ANSWER_TIMEOUT);
          TablecastClient client = LocalDatabases.client(server)) {
        TableMirror<Map<String, Object>> mirror = client.mirror("failover.items");
        assertThat(mirror.awaitReady(Duration.ofSeconds(30))).isTrue();
        try (LocalDatabases.Postgres standby = primary.standby("silent-standby")) {
          standby.stop(); // it falls behind: what follows never reaches it
          AtomicBoolean stop = new AtomicBoolean();
          Thread writer = lostRowsInto(primary, stop);
          try { // rows keep coming: the tail takes its connection again at once, unchecked
            await().atMost(Duration.ofSeconds(30)).until(() -> mirror.size() >= 10);
            address.stall(); // the primary's host goes silent
          } finally {
            stop.set(true);
            writer.join();
          }
          primary.crash();
          standby.startProcess();
          standby.promote();
          // the whole read on the standby goes silent too, once its tables are locked
          CountDownLatch wholeReadSilenced = address.stallAfterSending("IN ACCESS SHARE MODE");
          address.retarget("127.0.0.1", standby.port); // new connections reach the standby
          standby.execute("INSERT INTO failover.items VALUES (5, 'new')");

          await()
              .atMost(Duration.ofSeconds(60))
              .untilAsserted(
                  () ->
                      assertThat(contents(mirror))
                          .isEqualTo(LocalDatabases.rows(standby.jdbcUrl(), "failover.items")));
          await().atMost(Duration.ofSeconds(30)).until(() -> mirror.staleReason() == null);
          assertThat(wholeReadSilenced.getCount()).as("the whole read silenced").isZero();
        }
      }
    }
  }

  /** A thread that inserts rows into {@code db} every 20 ms until {@code stop}. */
  private static Thread lostRowsInto(LocalDatabases.Postgres db, AtomicBoolean stop) {
    Thread writer =
        new Thread(
            () -> {
              try {
                for (int id = 100; !stop.get(); id++) {
                  db.execute("INSERT INTO failover.items VALUES (" + id + ", 'lost')");
                  Thread.sleep(20);
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            "writer");
    writer.start();
    return writer;
  }

  /**
   * The same failover behind PgBouncer in transaction mode, moved as operators move it ({@code
   * PAUSE}, the new server configured, {@code RELOAD}, {@code RESUME}): the server's connections to
   * PgBouncer stay open throughout, so no connection of the server is new when it first reaches the
   * promoted standby (the old code read on there: {@code expected {1=lost, 3=new, 4=lost, 5=after}
   * but was ...}); the server start time read with each outbox read tells it.
   */
  @Test
  void aPromotedStandbyBehindPgBouncerIsWhatMirrorsShow() throws Exception {
    try (LocalDatabases.Postgres primary = LocalDatabases.Postgres.start("bouncer-primary")) {
      primary.execute(
          "CREATE SCHEMA failover", CREATE, "INSERT INTO failover.items VALUES (1, 'a'), (2, 'b')");
      try (LocalPgBouncer bouncer = LocalPgBouncer.start("bouncer", "127.0.0.1", primary.port);
          TablecastServer server = LocalDatabases.serve(bouncer.jdbcUrl(), "failover.items");
          TablecastClient client = LocalDatabases.client(server)) {
        TableMirror<Map<String, Object>> mirror = client.mirror("failover.items");
        assertThat(mirror.awaitReady(Duration.ofSeconds(30))).isTrue();
        try (LocalDatabases.Postgres standby = primary.standby("bouncer-standby")) {
          standby.stop();
          primary.execute(
              "INSERT INTO failover.items VALUES (4, 'lost')",
              "UPDATE failover.items SET name = 'lost' WHERE id = 1");
          awaitMirror(mirror, LocalDatabases.rows(primary.jdbcUrl(), "failover.items"));

          bouncer.switchTo(
              "127.0.0.1",
              standby.port,
              () -> {
                try {
                  primary.crash();
                  standby.startProcess();
                  standby.promote();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
          standby.execute(
              "INSERT INTO failover.items VALUES (5, 'new')",
              "UPDATE failover.items SET name = 'new' WHERE id = 2");

          awaitMirror(mirror, LocalDatabases.rows(standby.jdbcUrl(), "failover.items"));
          standby.execute("INSERT INTO failover.items VALUES (6, 'after')");
          awaitMirror(mirror, LocalDatabases.rows(standby.jdbcUrl(), "failover.items"));
        }
      }
    }
  }

  @Test
  void anUnloggedTableThatACrashEmptiedIsEmptyInMirrorsOnceTheDatabaseIsBack() throws Exception {
    try (LocalDatabases.Postgres db = LocalDatabases.Postgres.start("failover-unlogged")) {
      followAnUnloggedTableThrough(
          db,
          db.jdbcUrl(),
          () -> {
            db.crash(); // crash recovery empties unlogged tables; no trigger fires
            db.startProcess();
            assertThat(LocalDatabases.rows(db.jdbcUrl(), "failover.items")).isEmpty();
          });
    }
  }

  /**
   * A backend killed (the OOM killer's way) has the postmaster end every session and recover from
   * the crash without restarting: its start time stays, unlogged tables are emptied, commits made
   * with {@code synchronous_commit = off} may be lost. Before the shared statistics' reset time
   * (which crash recovery sets) was part of the instance, the tail read on and the mirror kept the
   * emptied table's rows.
   */
  @Test
  void anUnloggedTableEmptiedWhenABackendCrashedIsEmptyInMirrors() throws Exception {
    try (LocalDatabases.Postgres db = LocalDatabases.Postgres.start("failover-backend")) {
      followAnUnloggedTableThrough(db, db.jdbcUrl(), () -> killABackend(db));
    }
  }

  /**
   * The same behind PgBouncer in transaction mode: it reconnects to the recovered server behind the
   * tail's open connections, so only what each read returns can tell.
   */
  @Test
  void anUnloggedTableEmptiedWhenABackendCrashedBehindPgBouncerIsEmptyInMirrors() throws Exception {
    try (LocalDatabases.Postgres db = LocalDatabases.Postgres.start("bouncer-backend");
        LocalPgBouncer bouncer = LocalPgBouncer.start("bouncer-b", "127.0.0.1", db.port)) {
      followAnUnloggedTableThrough(db, bouncer.jdbcUrl(), () -> killABackend(db));
    }
  }

  /** Something the test does to the database, which may throw. */
  private interface Step {
    void run() throws Exception;
  }

  /**
   * A server on {@code serverUrl} caching an unlogged table of {@code db} with three rows, which
   * {@code empty} empties without a trigger: the mirror must follow it to empty, then on.
   */
  private static void followAnUnloggedTableThrough(
      LocalDatabases.Postgres db, String serverUrl, Step empty) throws Exception {
    db.execute(
        "CREATE SCHEMA failover",
        CREATE.replace("CREATE TABLE", "CREATE UNLOGGED TABLE"),
        "INSERT INTO failover.items VALUES (1, 'a'), (2, 'b')");
    try (TablecastServer server = LocalDatabases.serve(serverUrl, "failover.items");
        TablecastClient client = LocalDatabases.client(server)) {
      TableMirror<Map<String, Object>> mirror = client.mirror("failover.items");
      assertThat(mirror.awaitReady(Duration.ofSeconds(30))).isTrue();
      db.execute("INSERT INTO failover.items VALUES (3, 'c')");
      awaitMirror(mirror, Map.of(1, "a", 2, "b", 3, "c"));
      empty.run();
      awaitMirror(mirror, Map.of());
      db.execute("INSERT INTO failover.items VALUES (4, 'd')");
      awaitMirror(mirror, Map.of(4, "d"));
    }
  }

  /** Kills one backend of {@code db} and waits until the postmaster has recovered. */
  private static void killABackend(LocalDatabases.Postgres db) throws Exception {
    String startedBefore = db.query("SELECT pg_postmaster_start_time()::text");
    try (Connection victim = DriverManager.getConnection(db.jdbcUrl());
        Statement s = victim.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      ProcessHandle.of(rs.getLong(1)).orElseThrow().destroyForcibly(); // SIGKILL
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> LocalDatabases.rows(db.jdbcUrl(), "failover.items").isEmpty());
    assertThat(db.query("SELECT pg_postmaster_start_time()::text")).isEqualTo(startedBefore);
  }

  @Test
  void aServerRestoredFromABackupTakenBeforeTheLastWritesIsWhatMirrorsShow() throws Exception {
    try (LocalMariadb primary = LocalMariadb.start("failover-m1", 11);
        LocalMariadb restored = LocalMariadb.start("failover-m2", 12);
        CuttableProxy address = CuttableProxy.raw("127.0.0.1", primary.port)) {
      failOverToARestoredBackup(
          primary,
          restored,
          mariadbUrl(address),
          () -> {
            primary.crash();
            address.retarget("127.0.0.1", restored.port);
            address.cut();
          });
    }
  }

  /**
   * MariaDB Connector/J's failover URL ({@code jdbc:mariadb:sequential://primary,standby/}) keeps
   * the pool's connections open and reconnects them to the next server when the first goes away: no
   * connection of the tail is new when it first reaches the other server, as behind a pooler that
   * multiplexes (ProxySQL, MaxScale). Before every read carried the server it ran on, the tail read
   * on there after its old position: the lost rows stayed in the mirror and the restored server's
   * new changes, under the ids the lost ones had, never arrived.
   */
  @Test
  void aServerRestoredFromABackupBehindTheDriversFailoverIsWhatMirrorsShow() throws Exception {
    try (LocalMariadb primary = LocalMariadb.start("failover-m3", 13);
        LocalMariadb restored = LocalMariadb.start("failover-m4", 14)) {
      String failoverUrl =
          "jdbc:mariadb:sequential://127.0.0.1:"
              + primary.port
              + ",127.0.0.1:"
              + restored.port
              + "/failover?user=root&password=";
      // the driver moves every connection to the restored server
      failOverToARestoredBackup(primary, restored, failoverUrl, primary::crash);
    }
  }

  /**
   * A server on {@code serverUrl} caching a table of {@code primary}, which is copied to {@code
   * restored} (the backup: outbox, triggers and all) before its last writes; {@code failOver} puts
   * {@code restored} behind {@code serverUrl}, whose outbox gives its next changes the ids the lost
   * ones had. The mirror must show the restored server's table.
   */
  private static void failOverToARestoredBackup(
      LocalMariadb primary, LocalMariadb restored, String serverUrl, Step failOver)
      throws Exception {
    primary.execute(
        "CREATE DATABASE failover", CREATE, "INSERT INTO failover.items VALUES (1, 'a'), (2, 'b')");
    try (TablecastServer server = LocalDatabases.serve(serverUrl, "failover.items");
        TablecastClient client = LocalDatabases.client(server)) {
      TableMirror<Map<String, Object>> mirror = client.mirror("failover.items");
      assertThat(mirror.awaitReady(Duration.ofSeconds(30))).isTrue();
      primary.execute("INSERT INTO failover.items VALUES (3, 'c')");
      primary.copyTo(restored, "failover");
      primary.execute(
          "INSERT INTO failover.items VALUES (4, 'lost')",
          "UPDATE failover.items SET name = 'lost' WHERE id = 1",
          "DELETE FROM failover.items WHERE id = 2");
      awaitMirror(mirror, LocalDatabases.rows(primary.jdbcUrl("failover"), "items"));

      failOver.run();
      restored.execute(
          "INSERT INTO failover.items VALUES (5, 'new')",
          "UPDATE failover.items SET name = 'new' WHERE id = 3");

      String restoredUrl = restored.jdbcUrl("failover");
      awaitMirror(mirror, LocalDatabases.rows(restoredUrl, "items"));
      restored.execute("INSERT INTO failover.items VALUES (6, 'after')");
      awaitMirror(mirror, LocalDatabases.rows(restoredUrl, "items"));
    }
  }

  private static String pgUrl(CuttableProxy address) {
    return "jdbc:postgresql://" + address.address() + "/postgres?user=postgres";
  }

  private static String mariadbUrl(CuttableProxy address) {
    return "jdbc:mariadb://" + address.address() + "/failover?user=root&password=";
  }

  private static void awaitMirror(
      TableMirror<Map<String, Object>> mirror, Map<Object, Object> table) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(contents(mirror)).isEqualTo(table));
  }

  private static Map<Object, Object> contents(TableMirror<Map<String, Object>> mirror) {
    Map<Object, Object> rows = new TreeMap<>();
    for (Map<String, Object> r : mirror.rows()) {
      rows.put(((Number) r.get("id")).intValue(), r.get("name"));
    }
    return rows;
  }
}

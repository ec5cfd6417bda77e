package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.ChangeType;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Database → triggers → outbox → server → Java mirror, on both database families. */
class CorePipelineTest {

  private static final List<String> ACCOUNTS =
      List.of(
          "CREATE TABLE accounts (id int PRIMARY KEY, owner varchar(40) NOT NULL, balance decimal(12,2) NOT NULL)",
          "INSERT INTO accounts VALUES (1, 'ann', 100.00), (2, 'bob', 50.50)");

  @ParameterizedTest
  @EnumSource(Kind.class)
  void insertUpdateAndDeleteReachTheMirror(Kind kind) {
    try (Pipeline p = Pipeline.start(kind, "crud", ACCOUNTS, "accounts")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("crud"), "accounts");
      assertThat(m.size()).isEqualTo(2);
      assertThat(m.get(1)).containsEntry("owner", "ann").containsEntry("balance", "100.00");

      List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
      m.addListener(events::add);
      p.sql("INSERT INTO accounts VALUES (3, 'cy', 7.00)");
      p.sql("UPDATE accounts SET balance = 60.25 WHERE id = 2");
      p.sql("DELETE FROM accounts WHERE id = 1");
      p.awaitMirrorEqualsTable(m, "accounts");
      await().atMost(Duration.ofSeconds(5)).until(() -> events.size() == 3);
      assertThat(events)
          .extracting(ChangeEvent::op)
          .containsExactly(ChangeType.INSERT, ChangeType.UPDATE, ChangeType.DELETE);
      assertThat(events.get(1).oldRow()).containsEntry("balance", "50.50");
      assertThat(events.get(1).newRow()).containsEntry("balance", "60.25");
      assertThat(events.get(2).oldRow()).containsEntry("owner", "ann");
      assertThat(m.get(1)).isNull();
      assertThat(m.get(3L)).containsEntry("owner", "cy");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void multiRowTransactionIsAppliedWhole(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "txn", ACCOUNTS, "accounts")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("txn"), "accounts");
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger torn = new AtomicInteger();
      AtomicInteger scans = new AtomicInteger();
      AtomicReference<Throwable> readerFailure = new AtomicReference<>();
      Thread reader =
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    long total = 0;
                    for (Map<String, Object> r : m.rows()) {
                      total +=
                          new java.math.BigDecimal((String) r.get("balance"))
                              .movePointRight(2)
                              .longValueExact();
                    }
                    if (total != 15050) {
                      torn.incrementAndGet();
                    }
                    scans.incrementAndGet();
                  }
                } catch (Throwable t) { // a failing reader must fail the test, not end it quietly
                  readerFailure.set(t);
                }
              });
      reader.start();
      for (int i = 0; i < 40; i++) {
        p.transaction(
            "UPDATE accounts SET balance = balance - 1.25 WHERE id = 1",
            "UPDATE accounts SET balance = balance + 1.25 WHERE id = 2");
      }
      p.awaitMirrorEqualsTable(m, "accounts");
      stop.set(true);
      reader.join();
      assertThat(readerFailure.get()).as("the reader thread's failure").isNull();
      assertThat(scans.get())
          .as("scans while the transfers were applied")
          .isGreaterThanOrEqualTo(40);
      assertThat(m.get(1)).containsEntry("balance", "50.00");
      assertThat(torn.get()).as("scans that saw half a transfer").isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void rolledBackTransactionIsNeverDelivered(Kind kind) {
    try (Pipeline p = Pipeline.start(kind, "rollback", ACCOUNTS, "accounts")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("rollback"), "accounts");
      List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
      m.addListener(events::add);
      p.rolledBack(
          "INSERT INTO accounts VALUES (66, 'ghost', 1.00)",
          "UPDATE accounts SET owner = 'nobody' WHERE id = 1",
          "DELETE FROM accounts WHERE id = 2");
      p.sql("INSERT INTO accounts VALUES (67, 'marker', 2.00)");
      await().atMost(Duration.ofSeconds(20)).until(() -> m.get(67) != null);
      p.awaitMirrorEqualsTable(m, "accounts");
      assertThat(m.get(66)).isNull();
      assertThat(m.get(1)).containsEntry("owner", "ann");
      assertThat(events).extracting(e -> e.key()).containsExactly(67L);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void compositePrimaryKeysWork(Kind kind) {
    List<String> ddl =
        List.of(
            "CREATE TABLE prices (region char(2) NOT NULL, sku int NOT NULL, amount decimal(10,3) NOT NULL, "
                + "PRIMARY KEY (region, sku))",
            "INSERT INTO prices VALUES ('FR', 1, 1.500), ('DE', 1, 1.750), ('FR', 2, 9.000)");
    try (Pipeline p = Pipeline.start(kind, "composite", ddl, "prices")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("composite"), "prices");
      assertThat(m.primaryKey()).containsExactly("region", "sku");
      assertThat(m.get("FR", 2)).containsEntry("amount", "9.000");
      p.sql("UPDATE prices SET amount = 2.000 WHERE region = 'DE' AND sku = 1");
      p.sql("DELETE FROM prices WHERE region = 'FR' AND sku = 1");
      p.sql("INSERT INTO prices VALUES ('DE', 2, 0.125)");
      p.awaitMirrorEqualsTable(m, "prices");
      assertThat(m.get("DE", 1)).containsEntry("amount", "2.000");
      assertThat(m.get("FR", 1)).isNull();
      assertThat(m.get("DE", 2L)).containsEntry("amount", "0.125");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void secondClientJoiningMidStreamEqualsTheTable(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "midstream", ACCOUNTS, "accounts")) {
      TableMirror<Map<String, Object>> first = p.readyMirror(p.client("first"), "accounts");
      AtomicBoolean stop = new AtomicBoolean();
      Thread writer =
          new Thread(
              () -> {
                int id = 100;
                while (!stop.get()) {
                  p.transaction(
                      "INSERT INTO accounts VALUES (" + id + ", 'w', 1.00)",
                      "UPDATE accounts SET balance = balance + 1 WHERE id = 1");
                  if (id % 3 == 0) {
                    p.sql("DELETE FROM accounts WHERE id = " + (id - 1));
                  }
                  id++;
                }
              });
      writer.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> first.size() > 20);
      TableMirror<Map<String, Object>> second = p.readyMirror(p.client("second"), "accounts");
      await().atMost(Duration.ofSeconds(10)).until(() -> first.size() > 40);
      stop.set(true);
      writer.join();
      p.awaitMirrorEqualsTable(first, "accounts");
      p.awaitMirrorEqualsTable(second, "accounts");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void restartedClientConvergesToTheTable(Kind kind) {
    try (Pipeline p = Pipeline.start(kind, "restart", ACCOUNTS, "accounts")) {
      TablecastClient c1 = p.client("before-restart");
      TableMirror<Map<String, Object>> m1 = p.readyMirror(c1, "accounts");
      p.sql("INSERT INTO accounts VALUES (10, 'ten', 10.00)");
      p.awaitMirrorEqualsTable(m1, "accounts");
      c1.close();
      p.sql("UPDATE accounts SET owner = 'changed while away' WHERE id = 10");
      p.sql("DELETE FROM accounts WHERE id = 2");
      TableMirror<Map<String, Object>> m2 = p.readyMirror(p.client("after-restart"), "accounts");
      p.awaitMirrorEqualsTable(m2, "accounts");
      assertThat(m2.get(10)).containsEntry("owner", "changed while away");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void serverRestartKeepsClientsConverging(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "srvrestart", ACCOUNTS, "accounts")) {
      int port = p.server().port();
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("survivor"), "accounts");
      p.stopServer();
      p.sql(
          "INSERT INTO accounts VALUES (20, 'while server down', 1.00)",
          "DELETE FROM accounts WHERE id = 1");
      TablecastServer restarted =
          TablecastServer.start(
              io.tablecast.server.ServerConfig.builder()
                  .set("server_name", "it-restarted")
                  .listen("127.0.0.1", port)
                  .source(p.sourceConfig())
                  .build());
      try {
        p.awaitMirrorEqualsTable(m, "accounts");
        p.sql("UPDATE accounts SET owner = 'after restart' WHERE id = 20");
        p.awaitMirrorEqualsTable(m, "accounts");
      } finally {
        restarted.close();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void unknownTableSubscriptionFailsWithTheTableNamed(Kind kind) {
    try (Pipeline p = Pipeline.start(kind, "unknown", ACCOUNTS, "accounts")) {
      TablecastClient c = p.client("unknown");
      TableMirror<Map<String, Object>> bad = c.mirror(p.db.table("no_such_table"));
      assertThatThrownBy(() -> bad.awaitReady(Pipeline.READY))
          .hasMessageContaining("no_such_table");
      // the connection and other mirrors keep working
      TableMirror<Map<String, Object>> good = p.readyMirror(c, "accounts");
      assertThat(good.size()).isEqualTo(2);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void tableWithoutPrimaryKeyIsRefusedNamingTheTable(Kind kind) {
    Pipeline p =
        Pipeline.create(
            kind, "nopk", List.of("CREATE TABLE loose (a int, b varchar(10))"), "loose");
    try (p) {
      assertThatThrownBy(p::startServer)
          .hasStackTraceContaining("loose")
          .hasStackTraceContaining("primary key");
    }
  }
}

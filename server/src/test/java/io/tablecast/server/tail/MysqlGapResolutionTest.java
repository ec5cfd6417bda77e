package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MySQL/MariaDB: how skipped outbox ids are resolved from facts. With innodb_trx, only writing
 * transactions that began before a gap hold it (readers never do); without the PROCESS privilege,
 * lock probes keep an id open for as long as its transaction holds the row.
 */
class MysqlGapResolutionTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static String noProcessUser;

  @BeforeAll
  static void createUserWithoutProcess() {
    noProcessUser = "tc_noproc_" + ProcessHandle.current().pid();
    Kind.MYSQL
        .isolated("gaps_user")
        .execute(
            "DROP USER IF EXISTS '" + noProcessUser + "'@'%'",
            "CREATE USER '" + noProcessUser + "'@'%' IDENTIFIED BY 'np-pw'");
  }

  @AfterAll
  static void dropUser() {
    Kind.MYSQL.isolated("gaps_user").execute("DROP USER IF EXISTS '" + noProcessUser + "'@'%'");
  }

  private static double openGaps(MicrometerServerMetrics metrics) {
    return metrics.registry().find("tablecast.outbox.gaps").gauge().value();
  }

  private static List<RowEvent> pollFor(ChangeSource source, Duration d) throws Exception {
    List<RowEvent> events = new ArrayList<>();
    long until = System.nanoTime() + d.toNanos();
    while (System.nanoTime() < until) {
      events.addAll(source.poll(Duration.ofMillis(50)).events());
    }
    return events;
  }

  @Test
  void openReadOnlyTransactionsDoNotKeepARolledBackIdUnresolved() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("gaps_readers"); // an outbox of its own
    db.execute("CREATE TABLE readers (id INT PRIMARY KEY, v INT)");
    MicrometerServerMetrics metrics = MicrometerServerMetrics.inMemory();
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("readers"), true, null, null);
    try (ChangeSource source = ChangeSources.open(config, metrics);
        Connection reader = db.connect();
        Connection writer = db.connect();
        Statement r = reader.createStatement();
        Statement w = writer.createStatement()) {
      source.snapshot((t, row) -> {});
      reader.setAutoCommit(false);
      try (ResultSet rs =
          r.executeQuery("SELECT COUNT(*) FROM readers")) { // stays open: listed in innodb_trx
        rs.next();
      }
      writer.setAutoCommit(false);
      w.execute("INSERT INTO readers VALUES (1, 1)");
      writer.rollback(); // a permanent hole in the outbox ids
      db.execute("INSERT INTO readers VALUES (2, 1)");
      List<RowEvent> events = new ArrayList<>();
      await()
          .atMost(WAIT)
          .until(
              () -> {
                events.addAll(source.poll(Duration.ofMillis(50)).events());
                return !events.isEmpty() && openGaps(metrics) == 0;
              });
      assertThat(events).extracting(e -> Rows.after(e).get("id").asInt()).containsExactly(2);
      reader.rollback();
    }
  }

  @Test
  void anotherReaderFreezingTheTransactionCacheNeverMakesAnOpenTransactionsIdDropped()
      throws Exception {
    // InnoDB refreshes innodb_trx only after 100 ms without readers: a monitor polling it every
    // 10 ms freezes it, and a frozen cache never lists the transaction that holds the lower id
    TestDatabases.Isolated db = Kind.MYSQL.isolated("gaps_frozen");
    db.execute("CREATE TABLE frozen (id INT PRIMARY KEY, v INT)");
    MicrometerServerMetrics metrics = MicrometerServerMetrics.inMemory();
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("frozen"), true, null, null);
    AtomicBoolean monitoring = new AtomicBoolean(true);
    Thread monitor =
        new Thread(
            () -> {
              try (Connection c = db.connect();
                  Statement s = c.createStatement()) {
                while (monitoring.get()) {
                  s.executeQuery("SELECT COUNT(*) FROM information_schema.innodb_trx").close();
                  java.util.concurrent.locks.LockSupport.parkNanos(
                      10_000_000L); // the monitor's own pace
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            "innodb-trx-monitor");
    try (ChangeSource source = ChangeSources.open(config, metrics);
        Connection slow = db.connect();
        Connection doomed = db.connect();
        Statement s = slow.createStatement();
        Statement d = doomed.createStatement()) {
      source.snapshot((t, row) -> {});
      monitor.start();
      pollFor(source, Duration.ofMillis(300)); // the cache is frozen from here on
      slow.setAutoCommit(false);
      s.execute("INSERT INTO frozen VALUES (1, 1)"); // holds the lowest id
      doomed.setAutoCommit(false);
      d.execute("INSERT INTO frozen VALUES (2, 1)");
      doomed.rollback();
      db.execute("INSERT INTO frozen VALUES (3, 1)");
      List<RowEvent> events = pollFor(source, Duration.ofSeconds(3));
      assertThat(events).extracting(e -> Rows.after(e).get("id").asInt()).containsExactly(3);
      assertThat(openGaps(metrics))
          .as("both skipped ids stay awaited while the cache is frozen")
          .isEqualTo(2);
      slow.commit();
      await()
          .atMost(WAIT)
          .until(
              () -> {
                events.addAll(source.poll(Duration.ofMillis(50)).events());
                return events.size() >= 2;
              });
      assertThat(events).extracting(e -> Rows.after(e).get("id").asInt()).containsExactly(3, 1);
      monitoring.set(false);
      monitor.join();
      await()
          .atMost(WAIT)
          .until(
              () -> {
                source.poll(Duration.ofMillis(50));
                return openGaps(metrics) == 0; // the rolled-back id, once a look is fresh again
              });
    } finally {
      monitoring.set(false);
      monitor.join();
    }
  }

  @Test
  void withoutProcessPrivilegeATransactionOpenLongerThanTheProbeWaitIsStillDelivered()
      throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("gaps_noproc");
    db.execute("GRANT ALL ON `" + db.schema() + "`.* TO '" + noProcessUser + "'@'%'");
    db.execute("CREATE TABLE noproc (id INT PRIMARY KEY, v INT)");
    String url =
        db.jdbcUrl()
            .replaceAll("user=[^&]*", "user=" + noProcessUser)
            .replaceAll("password=[^&]*", "password=np-pw");
    MicrometerServerMetrics metrics = MicrometerServerMetrics.inMemory();
    SourceConfig config = new SourceConfig(url, null, null, List.of("noproc"), true, null, null);
    Duration probeWait = Duration.ofMillis(500);
    ChangeSources.Tuning tuning = ChangeSources.Tuning.DEFAULT.withProbeWait(probeWait);
    try (ChangeSource source = ChangeSources.open(config, metrics, tuning);
        Connection slow = db.connect();
        Connection doomed = db.connect();
        Statement s = slow.createStatement();
        Statement d = doomed.createStatement()) {
      source.snapshot((t, row) -> {});
      slow.setAutoCommit(false);
      s.execute("INSERT INTO noproc VALUES (1, 1)"); // takes the lowest id and holds it
      doomed.setAutoCommit(false);
      d.execute("INSERT INTO noproc VALUES (2, 1)");
      doomed.rollback(); // a permanent hole
      db.execute("INSERT INTO noproc VALUES (3, 1)");
      List<RowEvent> events =
          pollFor(source, probeWait.multipliedBy(6)); // six times the probe wait
      assertThat(events).extracting(e -> Rows.after(e).get("id").asInt()).containsExactly(3);
      assertThat(metrics.gapsExpired()).as("the rolled-back id, dropped on probes").isEqualTo(1);
      assertThat(openGaps(metrics)).as("the open transaction's id is still awaited").isEqualTo(1);
      slow.commit();
      await()
          .atMost(WAIT)
          .until(
              () -> {
                events.addAll(source.poll(Duration.ofMillis(50)).events());
                return events.size() >= 2;
              });
      assertThat(events).extracting(e -> Rows.after(e).get("id").asInt()).containsExactly(3, 1);
      assertThat(metrics.gapsExpired()).isEqualTo(1);
    }
  }
}

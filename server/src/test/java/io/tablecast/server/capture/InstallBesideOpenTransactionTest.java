package io.tablecast.server.capture;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Install beside a long transaction on a cached table ({@link PatientDdl}). Capture DDL needs a
 * lock that an open transaction on the table holds until it ends. Before, the install waited for it
 * in the lock queue, and every writer of the table waited behind the install (on MySQL, with
 * lock_wait_timeout's default of a year, readers too): one idle transaction left open by an
 * application stopped all writes to the table for as long as it stayed open. Now the install waits
 * in short tries, says whose transaction it waits for, and the writers go on meanwhile.
 */
class InstallBesideOpenTransactionTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void installWaitsForAnOpenTransactionWithoutHoldingUpTheTablesWriters(Kind kind)
      throws Exception {
    TestDatabases.Isolated db = kind.isolated("patient_ddl");
    db.execute(
        "CREATE TABLE busy (id INT PRIMARY KEY, v VARCHAR(10))",
        "INSERT INTO busy VALUES (1, 'a')");
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of(db.table("busy")), true, null, null);
    ExecutorService threads = Executors.newCachedThreadPool();
    // closed in reverse: the open transaction ends first, so that a failure cannot leave the
    // writer's close waiting for its insert behind it
    try (Connection writer = db.connect();
        Connection open = db.connect()) {
      open.setAutoCommit(false);
      long holder;
      try (Statement s = open.createStatement()) {
        s.executeUpdate("UPDATE busy SET v = 'b' WHERE id = 1");
        try (ResultSet rs =
            s.executeQuery(
                kind == Kind.POSTGRESQL ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()")) {
          rs.next();
          holder = rs.getLong(1);
        }
      }
      Future<?> install =
          threads.submit(
              () -> {
                try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
                  installer.install();
                }
                return null;
              });

      String told =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () ->
                      RecentEvents.global().newestFirst().stream()
                          .map(RecentEvents.Event::message)
                          .filter(m -> m.contains("waits for a lock on [" + db.table("busy")))
                          .findFirst()
                          .orElse(null),
                  m -> m != null);
      assertThat(told)
          .as("the wait names the open transaction")
          .contains((kind == Kind.POSTGRESQL ? "pid " : "thread ") + holder + " ");
      Future<Integer> insert =
          threads.submit(
              () -> {
                try (Statement s = writer.createStatement()) {
                  return s.executeUpdate("INSERT INTO busy VALUES (2, 'c')");
                }
              });
      assertThat(insert.get(30, SECONDS))
          .as("a writer of the table, while the install waits for the open transaction")
          .isEqualTo(1);
      assertThat(install.isDone()).as("the install still waits").isFalse();

      open.commit();
      install.get(60, SECONDS);
      try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
        installer.verifyInstalled();
      }
    } finally {
      threads.shutdownNow();
    }
  }
}

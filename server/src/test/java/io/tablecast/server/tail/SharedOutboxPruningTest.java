package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.ConsumerRegistry;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Several servers on one outbox: each prunes it, and none deletes a row that another running server
 * has not read yet (each says in the consumer registry what it still needs). A server whose
 * registration expired (no heartbeat for {@link ConsumerRegistry#LIVENESS}) may have had rows
 * pruned under it: it re-reads every cached table instead of serving without them.
 */
class SharedOutboxPruningTest {
  private static final ChangeSources.Tuning QUICK =
      ChangeSources.Tuning.DEFAULT
          .withPruneRest(Duration.ofMillis(100))
          .withHeartbeat(Duration.ofMillis(200));

  private static SourceConfig config(TestDatabases.Isolated db) {
    return new SourceConfig(
        db.jdbcUrl(), null, null, List.of("shared"), true, Duration.ofMillis(1), null);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerBehindAnotherMissesNoRowThatTheOtherPrunes(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("shared_prune");
    db.execute("CREATE TABLE shared (id INT PRIMARY KEY, v INT)");
    try (ChangeSource ahead = open(db, "ahead");
        ChangeSource behind = open(db, "behind")) {
      ahead.snapshot((t, row) -> {});
      behind.snapshot((t, row) -> {});
      for (int i = 1; i <= 50; i++) {
        db.execute("INSERT INTO shared VALUES (" + i + ", 0)");
      }
      Set<Integer> readAhead = new TreeSet<>();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                ahead.poll(Duration.ofMillis(50)).events().forEach(e -> readAhead.add(id(e)));
                return readAhead.size() == 50;
              });
      // "ahead" has read every row: its pruner (a round every 100 ms, retention 1 ms) would
      // delete them all now; "behind" has read none
      Thread.sleep(1500);
      Set<Integer> readBehind = new TreeSet<>();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                behind.poll(Duration.ofMillis(50)).events().forEach(e -> readBehind.add(id(e)));
                return readBehind.size() == 50;
              });
      assertThat(readBehind).hasSize(50);
      // once both have read them, the rows go: pruning is held back, not stopped
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                behind.poll(Duration.ofMillis(50));
                ahead.poll(Duration.ofMillis(50));
                return outboxRows(db) <= 1;
              });
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerWhoseRegistrationExpiredReReadsItsTables(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("shared_expired");
    db.execute("CREATE TABLE shared (id INT PRIMARY KEY, v INT)");
    db.execute("INSERT INTO shared VALUES (1, 0)");
    try (ChangeSource stalled = open(db, "stalled")) {
      stalled.snapshot((t, row) -> {});
      // as if the server had stopped for over a minute (a pause, a cut from the database):
      // others no longer kept the rows it needs
      db.execute(
          "UPDATE tablecast_consumers SET heartbeat_at = heartbeat_at - INTERVAL '"
              + (ConsumerRegistry.LIVENESS.toSeconds() + 1)
              + "' SECOND");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  stalled.poll(Duration.ofMillis(50)).tableReads().stream()
                      .anyMatch(r -> r.purpose() == CommittedBatch.Purpose.RESYNC));
      await() // registered as live again
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  count(
                          db,
                          "SELECT COUNT(*) FROM tablecast_consumers WHERE server_name = 'stalled'"
                              + " AND heartbeat_at > CURRENT_TIMESTAMP(6) - INTERVAL '"
                              + ConsumerRegistry.LIVENESS.toSeconds()
                              + "' SECOND")
                      == 1);
    }
  }

  private static ChangeSource open(TestDatabases.Isolated db, String serverName) throws Exception {
    return ChangeSources.open(config(db), MicrometerServerMetrics.inMemory(), QUICK, serverName);
  }

  private static int id(RowEvent e) {
    return Rows.after(e).get("id").asInt();
  }

  private static long outboxRows(TestDatabases.Isolated db) throws Exception {
    return count(db, "SELECT COUNT(*) FROM tablecast_outbox");
  }

  private static long count(TestDatabases.Isolated db, String sql) throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}

package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Read-your-writes ({@code TablecastClient.sync}): a writer commits through JDBC, calls {@code
 * sync}, and its mirror holds the write, every time, thousands of times, while another writer
 * commits to the same table and a third transaction stays open with an uncommitted change (on MySQL
 * an outbox gap the tail must keep looking at): sync waits for what was committed, never for what
 * was not. Prints the latency of {@code sync} (the figure of docs/BENCHMARKS.md).
 */
class ReadYourWritesTest {
  private static final int WRITES = Integer.getInteger("tablecast.ryw.writes", 2000);

  /** Writes watched in the mirror instead, for comparison: one after every fourth synced. */
  private static final int WATCHED = WRITES / 4;

  private static final int ROWS = 100;
  private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(30);

  /** {@code accounts (id, balance)} with {@code rows} rows of balance 0. */
  static List<String> ddl(int rows) {
    List<String> ddl = new ArrayList<>();
    ddl.add("CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL)");
    for (int id = 1; id <= rows; id++) {
      ddl.add("INSERT INTO accounts VALUES (" + id + ", 0)");
    }
    return ddl;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aWriteCommittedBeforeSyncIsInTheMirrorWhenSyncReturns(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "ryw", ddl(ROWS), "accounts")) {
      String table = p.db.table("accounts");
      TablecastClient client = p.client("ryw");
      TableMirror<Map<String, Object>> m = p.readyMirror(client, "accounts");
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong otherWrites = new AtomicLong();
      // another service writes to rows of its own (ids above ROWS / 2) all along
      Thread other =
          new Thread(
              () -> {
                Random r = new Random(7);
                try (Connection c = p.db.connect();
                    PreparedStatement u =
                        c.prepareStatement("UPDATE " + table + " SET balance = ? WHERE id = ?")) {
                  while (!stop.get()) {
                    u.setLong(1, r.nextInt(1_000_000));
                    u.setInt(
                        2,
                        ROWS / 2 + 1 + r.nextInt(ROWS / 2 - 1)); // not ROWS: the open one holds it
                    u.executeUpdate();
                    otherWrites.incrementAndGet();
                    LockSupport.parkNanos(500_000); // a busy service, not a bulk load
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              },
              "other-writer");
      long[] nanos = new long[WRITES];
      long[] watched = new long[WATCHED];
      try (Connection open = p.db.connect();
          Connection c = p.db.connect();
          PreparedStatement u =
              c.prepareStatement("UPDATE " + table + " SET balance = ? WHERE id = ?")) {
        // a transaction that stays open with a change of its own, never committed while we sync
        open.setAutoCommit(false);
        try (Statement s = open.createStatement()) {
          s.executeUpdate("UPDATE " + table + " SET balance = -1 WHERE id = " + ROWS);
        }
        other.start();
        Random r = new Random(11);
        for (int i = 0, synced = 0, seen = 0; i < WRITES + WATCHED; i++) {
          int id = 1 + r.nextInt(ROWS / 2);
          long balance = i + 1;
          u.setLong(1, balance);
          u.setInt(2, id);
          assertThat(u.executeUpdate()).isEqualTo(1); // committed: autocommit
          long t0 = System.nanoTime();
          if (i % (WRITES / WATCHED + 1) == 1) {
            // for comparison, without sync: watch the mirror until the write shows
            long deadline = t0 + SYNC_TIMEOUT.toNanos();
            while (((Number) m.get(id).get("balance")).longValue() != balance) {
              assertThat(System.nanoTime() - deadline).as("write %d shows", i + 1).isNegative();
              LockSupport.parkNanos(20_000);
            }
            watched[seen++] = System.nanoTime() - t0;
            continue;
          }
          client.sync(SYNC_TIMEOUT);
          nanos[synced++] = System.nanoTime() - t0;
          Map<String, Object> row = m.get(id);
          assertThat(((Number) row.get("balance")).longValue())
              .as("write %d (id %d) read back after sync", i + 1, id)
              .isEqualTo(balance);
        }
        assertThat(((Number) m.get(ROWS).get("balance")).longValue())
            .as("the open transaction's change is not in the mirror")
            .isZero();
        open.rollback();
      } finally {
        stop.set(true);
        other.join();
      }
      Arrays.sort(nanos);
      Arrays.sort(watched);
      System.out.printf(
          Locale.ROOT,
          "ReadYourWritesTest %s: %d writes read back after sync (other writer: %d commits);"
              + " commit to return of sync p50 %.2f ms, p99 %.2f ms, max %.2f ms;"
              + " %d other writes watched until they showed in the mirror, without sync:"
              + " p50 %.2f ms, p99 %.2f ms, max %.2f ms%n",
          kind,
          WRITES,
          otherWrites.get(),
          nanos[WRITES / 2] / 1e6,
          nanos[WRITES * 99 / 100] / 1e6,
          nanos[WRITES - 1] / 1e6,
          WATCHED,
          watched[WATCHED / 2] / 1e6,
          watched[WATCHED * 99 / 100] / 1e6,
          watched[WATCHED - 1] / 1e6);
      assertThat(syncsAnswered(p))
          .as("tablecast_syncs_seconds_count{outcome=answered} on /metrics")
          .isGreaterThanOrEqualTo(WRITES);
    }
  }

  /** The server's count of answered sync requests, read from its /metrics. */
  private static long syncsAnswered(Pipeline p) throws Exception {
    String metrics =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + p.address() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Matcher m =
        Pattern.compile("tablecast_syncs_seconds_count\\{outcome=\"answered\",?\\} ([0-9.E]+)")
            .matcher(metrics);
    assertThat(m.find()).as("the sync timer on /metrics:%n%s", metrics).isTrue();
    return (long) Double.parseDouble(m.group(1));
  }
}

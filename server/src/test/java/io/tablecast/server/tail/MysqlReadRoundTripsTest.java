package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * What the MySQL/MariaDB tail sends per read, statement by statement (docs/BENCHMARKS.md,
 * "MariaDB's busy read"): idle, one probe of the outbox; when it finds rows, the snapshot's begin
 * and the outbox read again as one multi-statement, then the changed rows; while busy (the last
 * read found rows) no probe, the read begins in its snapshot. A snapshot is committed by the next
 * read's first statement, never in a round trip of its own.
 */
class MysqlReadRoundTripsTest {
  private static final String BEGIN = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ";

  @Test
  void aBusyReadTakesTwoRoundTripsAndEverySnapshotIsCommittedByTheNextRead() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("roundtrips");
    db.execute("CREATE TABLE items (id INT PRIMARY KEY, v INT NOT NULL)");
    List<String> sent = Collections.synchronizedList(new ArrayList<>());
    try (ChangeSource source =
        ChangeSources.open(
            new SourceConfig( // no reconciliation ranges: they would read in a snapshot too
                db.jdbcUrl(), null, null, List.of("items"), true, null, null, Duration.ZERO, null),
            MicrometerServerMetrics.inMemory(),
            ChangeSources.Tuning.DEFAULT.withPools(hc -> new RecordingPool(hc, sent)))) {
      source.snapshot((t, row) -> {});
      source.poll(Duration.ofMillis(30));
      sent.clear();
      source.poll(Duration.ofMillis(30));
      assertThat(kinds(sent)).as("idle: probes only").isNotEmpty().containsOnly("probe");

      sent.clear();
      db.execute("INSERT INTO items VALUES (1, 1)");
      pollUntilRows(source);
      List<String> found = kinds(sent);
      assertThat(found.subList(found.size() - 3, found.size()))
          .as("the read that found the row, its snapshot not committed yet")
          .containsExactly("probe", "begin+outbox", "rows");

      sent.clear();
      db.execute("INSERT INTO items VALUES (2, 2)");
      pollUntilRows(source);
      assertThat(kinds(sent))
          .as(
              "busy: the read begins in its snapshot, committing the last one in the same statement")
          .containsExactly("commit+begin+outbox", "rows");

      sent.clear();
      source.poll(Duration.ofMillis(200)); // long enough for a read after the pause, under load
      List<String> after = kinds(sent);
      assertThat(after)
          .as("still busy, then idle again: each snapshot committed by the next read")
          .startsWith("commit+begin+outbox", "commit+probe");
      assertThat(after.subList(2, after.size())).containsOnly("probe");
    }
  }

  private static void pollUntilRows(ChangeSource source) {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> !source.poll(Duration.ofMillis(50)).events().isEmpty());
  }

  /**
   * Each statement sent as what it is to the read; without the instance watch's identification of a
   * connection (its server and start time, two statements), which comes at most once a second
   * ({@code InstanceWatch.CHECK_NANOS}) on whichever read falls due, not on every read.
   */
  private static List<String> kinds(List<String> sent) {
    List<String> kinds = new ArrayList<>();
    synchronized (sent) {
      for (String sql : sent) {
        String s = sql.trim().toUpperCase(Locale.ROOT);
        if (s.startsWith("SELECT @@SERVER_ID, @@HOSTNAME")
            || s.startsWith("SHOW GLOBAL STATUS LIKE 'UPTIME'")) {
          continue;
        }
        String commit = "";
        if (s.startsWith("COMMIT; ")) {
          commit = "commit+";
          s = s.substring("COMMIT; ".length());
        }
        if (s.startsWith(BEGIN) && s.contains("TABLECAST_OUTBOX")) {
          kinds.add(commit + "begin+outbox");
        } else if (s.startsWith("SELECT") && s.contains("TABLECAST_OUTBOX")) {
          kinds.add(commit + "probe");
        } else if (!commit.isEmpty()) {
          kinds.add(sql);
        } else if (s.startsWith(BEGIN) && s.contains("TABLECAST_OUTBOX")) {
          kinds.add("begin+outbox");
        } else if (s.startsWith("SELECT") && s.contains("TABLECAST_OUTBOX")) {
          kinds.add("probe");
        } else if (s.equals("COMMIT")) {
          kinds.add("commit");
        } else if (s.startsWith("SET STATEMENT LOCK_WAIT_TIMEOUT = 1 FOR SELECT")
            && s.contains("ITEMS")) {
          kinds.add("rows"); // waiting a second at most for the table's metadata lock
        } else {
          kinds.add(sql);
        }
      }
    }
    return kinds;
  }

  /** A pool that records the SQL the polling thread sends (not the source's own threads'). */
  private static final class RecordingPool extends HikariDataSource {
    private final List<String> sent;

    RecordingPool(HikariConfig config, List<String> sent) {
      super(config);
      this.sent = sent;
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection real = super.getConnection();
      return proxy(
          Connection.class,
          real,
          (method, args) -> {
            if (method.startsWith("prepareStatement")) {
              record((String) args[0]);
            }
          });
    }

    private void record(String sql) {
      if (!Thread.currentThread().getName().startsWith("tablecast-")) {
        sent.add(sql);
      }
    }

    private <T> T proxy(Class<T> type, T real, Recorder recorder) {
      return type.cast(
          Proxy.newProxyInstance(
              type.getClassLoader(),
              new Class<?>[] {type},
              (p, method, args) -> {
                recorder.call(method.getName(), args);
                Object result;
                try {
                  result = method.invoke(real, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
                if (method.getName().equals("createStatement")) {
                  return proxy(
                      Statement.class,
                      (Statement) result,
                      (m, a) -> {
                        if (m.startsWith("execute") && a != null && a.length > 0) {
                          record((String) a[0]);
                        }
                      });
                }
                return result;
              }));
    }
  }

  private interface Recorder {
    void call(String method, Object[] args);
  }
}

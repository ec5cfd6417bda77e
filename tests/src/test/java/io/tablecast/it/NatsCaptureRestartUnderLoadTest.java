package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scale-out under rows and DDL written at random ({@link DdlWorkload}), while capture is restarted
 * (every 2-5 s, or as soon as a table is stale) or a client joins one of the two servers of the
 * stream, for {@code tablecast.soak.seconds} (15 s) with the random choices of {@code
 * tablecast.seed} (2). Then every mirror equals its table and none is stale, on both servers and
 * for a client that joins last. Its first runs found a capture restarted while a table was stale (a
 * read of it waiting for a lock that DDL waited for; triggers being reinstalled for a new primary
 * key) leave the table stale on every server for good ({@code NatsCaptureResumeTest} has the case
 * on its own); on that code it fails with the default seed.
 */
class NatsCaptureRestartUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 15);
  private static final Duration READY = Duration.ofSeconds(60);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void mirrorsOfEveryServerEqualTheTablesAfterCaptureRestartsUnderRowsAndDdl(Kind kind)
      throws Exception {
    System.out.printf("NatsCaptureRestartUnderLoadTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    List<String> tables = DdlWorkload.TABLES;
    try (Pipeline p =
            Pipeline.create(
                kind, "nats_restarts", DdlWorkload.ddl(), tables.toArray(new String[0]));
        NatsServerProcess n = NatsServerProcess.start(NatsScaleOutTest.MAX_PAYLOAD)) {
      StreamCapture capture = NatsScaleOutTest.capture(n, p);
      try (TablecastServer one = NatsScaleOutTest.serve(n, p, "one");
          TablecastServer two = NatsScaleOutTest.serve(n, p, "two");
          TablecastClient c1 = NatsScaleOutTest.client("c1", "127.0.0.1:" + one.port());
          TablecastClient c2 = NatsScaleOutTest.client("c2", "127.0.0.1:" + two.port())) {
        List<TableMirror<Map<String, Object>>> mirrors = new ArrayList<>();
        for (String t : tables) {
          mirrors.add(p.readyMirror(c1, t, READY));
          mirrors.add(p.readyMirror(c2, t, READY));
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Thread> threads = DdlWorkload.threads(p, kind, SEED, stop, errors);
        threads.forEach(Thread::start);
        long end = System.currentTimeMillis() + SECONDS * 1000;
        Random r = new Random(SEED + 3);
        for (int round = 0; System.currentTimeMillis() < end; round++) {
          // 2-5 s, or (two rounds in three) until a table is stale: a restart then is the case
          long next = System.currentTimeMillis() + 2000 + r.nextInt(3000);
          boolean whenStale = r.nextInt(3) > 0;
          while (System.currentTimeMillis() < next && !(whenStale && anyStale(mirrors))) {
            Thread.sleep(20); // pacing between looks
          }
          if (whenStale || r.nextBoolean()) {
            capture.close();
            capture = NatsScaleOutTest.capture(n, p);
          } else {
            try (TablecastClient joining =
                NatsScaleOutTest.client(
                    "joining-" + round, "127.0.0.1:" + (round % 2 == 0 ? one : two).port())) {
              for (String t : tables) {
                p.readyMirror(joining, t, READY);
              }
            }
          }
        }
        stop.set(true);
        for (Thread t : threads) {
          t.join();
        }
        assertThat(errors).isEmpty();
        try (TablecastClient last = NatsScaleOutTest.client("last", "127.0.0.1:" + one.port())) {
          for (String t : tables) {
            mirrors.add(p.readyMirror(last, t, READY));
          }
          for (TableMirror<Map<String, Object>> m : mirrors) {
            String table = m.table().substring(m.table().indexOf('.') + 1);
            p.awaitMirrorEqualsTable(m, table);
            assertThat(m.staleReason()).as(m.table() + " stale (seed " + SEED + ")").isNull();
          }
        }
      } finally {
        capture.close();
      }
    }
  }

  private static boolean anyStale(List<TableMirror<Map<String, Object>>> mirrors) {
    return mirrors.stream().anyMatch(m -> m.staleReason() != null);
  }
}

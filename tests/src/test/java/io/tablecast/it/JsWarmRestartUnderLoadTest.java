package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Warm restart of the JavaScript client in Node while money moves between accounts ({@link
 * TransferWorkload}: the total never changes), for {@code tablecast.soak.seconds} (8 s) with the
 * random choices of {@code tablecast.seed} (2): one Node process after another starts from the
 * files the last one left ({@code tests/src/test/node/warm-restart-load.mjs}, saving every second),
 * the last closed cleanly or killed ({@code SIGKILL}, a real crash), behind a proxy that cuts the
 * WebSocket every 0.3-1.5 s while the server restarts now and then. Every mirror restored from a
 * file holds the total, every batch its listeners hear keeps it, and at the end the mirror equals
 * the table and its change events replayed over the rows it was created with give its rows.
 */
class JsWarmRestartUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How much longer than its seconds the soak may run for a process to start from files. */
  private static final Duration LONGER = Duration.ofSeconds(60);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void nodeClientsRestartedFromTheirFilesWhileMoneyMovesEndEqualToTheTable(
      Kind kind, @TempDir Path dir) throws Exception {
    System.out.printf("JsWarmRestartUnderLoadTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    try (Pipeline p = Pipeline.create(kind, "jswarm_load", TransferWorkload.ddl(), "accounts")) {
      startServer(p);
      String table = p.db.table("accounts");
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      List<NodeScript> last = new CopyOnWriteArrayList<>();
      AtomicInteger fromFiles = new AtomicInteger();
      AtomicInteger crashes = new AtomicInteger();
      try (CuttableProxy proxy = CuttableProxy.raw("127.0.0.1", p.server().port());
          TransferWorkload transfers = new TransferWorkload(p, SEED)) {
        String url = "ws://" + proxy.address() + "/ws";
        AtomicBoolean stop = new AtomicBoolean();
        Random r = new Random(SEED * 17);
        List<Thread> threads = new ArrayList<>();
        threads.add(
            UnderLoad.thread(
                errors,
                () -> {
                  while (true) {
                    NodeScript node =
                        NodeScript.start("warm-restart-load.mjs", url, table, dir.toString());
                    String[] created = line(node, "CREATED", errors).split(" ");
                    if (created[1].equals("true")) {
                      fromFiles.incrementAndGet();
                      assertThat(Long.parseLong(created[2]))
                          .as("the total of the rows restored (seed %d)", SEED)
                          .isEqualTo(TransferWorkload.TOTAL);
                    }
                    line(node, "READY", errors);
                    Thread.sleep(500 + r.nextInt(2000)); // serving, saving every second
                    if (stop.get()) {
                      last.add(node);
                      return;
                    }
                    if (r.nextBoolean()) {
                      node.close(); // SIGKILL: the next process finds the files as they are
                      crashes.incrementAndGet();
                    } else {
                      node.send("CLOSE"); // saves the mirror
                      line(node, "CLOSED", errors);
                    }
                  }
                }));
        threads.add(
            UnderLoad.thread(
                errors,
                UnderLoad.cutsAndRestarts(
                    p, proxy, new Random(SEED + 5), stop, () -> startServer(p))));
        transfers.start(2, true);
        // a mirror is saved only while it is current, which the cuts and restarts may deny for
        // seconds on a loaded machine: the soak goes on until a process has started from files
        UnderLoad.runFor(SECONDS, threads, stop, errors, () -> fromFiles.get() > 0, LONGER);
        transfers.stop();
        System.out.printf(
            "JsWarmRestartUnderLoadTest %s: %d transfers committed, %d connections through the"
                + " proxy, %d processes started from files, %d killed%n",
            kind, transfers.committed.get(), proxy.connections(), fromFiles.get(), crashes.get());
        assertThat(fromFiles.get()).as("processes started from files").isPositive();
        try (NodeScript node = last.get(0)) {
          node.send("SYNC");
          assertThat(line(node, "HEARD", errors)).isEqualTo("HEARD same");
          JsonNode rows = JSON.readTree(line(node, "ROWS", errors).substring("ROWS ".length()));
          Map<Long, String> mirrored = new TreeMap<>();
          rows.forEach(
              row ->
                  mirrored.put(
                      row.get("id").asLong(),
                      row.get("owner").asText() + "|" + row.get("balance").asText()));
          assertThat(UnderLoad.differences(mirrored, "mirrored", accounts(p), "in the table"))
              .as("the Node mirror (seed %d)", SEED)
              .isEmpty();
          node.send("CLOSE");
          line(node, "CLOSED", errors);
        }
      } finally {
        assertThat(errors).as("what the threads and the Node processes said").isEmpty();
      }
    }
  }

  private static void startServer(Pipeline p) {
    p.startServer(); // the default resume buffer: a process started from files resumes
  }

  /**
   * The next line of {@code node} that starts with {@code prefix}; a "PROBLEM" line before it goes
   * to {@code errors}, any other fails.
   */
  private static String line(NodeScript node, String prefix, List<Throwable> errors)
      throws InterruptedException {
    while (true) {
      String line = node.next();
      assertThat(line).as("a line starting with %s", prefix).isNotNull();
      if (line.startsWith(prefix)) {
        return line;
      }
      if (line.startsWith("PROBLEM")) {
        errors.add(new AssertionError(line + " (seed " + SEED + ")"));
      } else {
        throw new AssertionError("expected " + prefix + ", got: " + line);
      }
    }
  }

  private static Map<Long, String> accounts(Pipeline p) throws Exception {
    Map<Long, String> out = new TreeMap<>();
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, owner, balance FROM accounts")) {
      while (rs.next()) {
        out.put(rs.getLong(1), rs.getString(2) + "|" + rs.getLong(3));
      }
    }
    return out;
  }
}

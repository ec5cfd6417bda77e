package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ChangeType;
import io.tablecast.client.TableMirror;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rows inserted one at a time into the table {@link #DDL} creates (ids from 1, one every 5 ms, or
 * by the test), and the inserts a mirror's listener saw of them: after a failure of some part of
 * the pipeline, each must have arrived exactly once.
 */
final class InsertsOnce implements AutoCloseable {
  static final String DDL = "CREATE TABLE wide (id int PRIMARY KEY, pad text)";

  private final Map<Object, AtomicInteger> inserts = new ConcurrentHashMap<>();
  private final ExecutorService writer = Executors.newSingleThreadExecutor();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicInteger written = new AtomicInteger();
  private Future<?> writes;

  /** Counts the inserts {@code mirror} fires from now on. */
  void listen(TableMirror<Map<String, Object>> mirror) {
    mirror.addListener(
        e -> {
          if (e.op() == ChangeType.INSERT) {
            inserts.computeIfAbsent(e.key(), k -> new AtomicInteger()).incrementAndGet();
          }
        });
  }

  /** Starts inserting rows {@code firstId}, {@code firstId + 1}, ... into {@code wide}. */
  void start(Pipeline p, int firstId) {
    writes =
        writer.submit(
            () -> {
              for (int id = firstId; !stop.get(); id++) {
                p.sql("INSERT INTO wide VALUES (" + id + ", 'row " + id + "')");
                written.incrementAndGet();
                TimeUnit.MILLISECONDS.sleep(5);
              }
              return null;
            });
  }

  /** How many distinct rows the mirror saw inserted so far. */
  int seen() {
    return inserts.size();
  }

  /** Waits until the mirror saw {@code more} rows inserted beyond those it saw so far. */
  void awaitMore(int more, Duration atMost) {
    int before = seen();
    await().atMost(atMost).until(() -> seen() >= before + more);
  }

  /** Stops inserting; returns how many rows were inserted. */
  int stop() throws Exception {
    stop.set(true);
    writes.get();
    return written.get();
  }

  /**
   * Waits until {@code mirror} holds {@code rows} rows and equals its table, then checks that each
   * was seen inserted exactly once.
   */
  void awaitEveryRowOnce(
      Pipeline p, TableMirror<Map<String, Object>> mirror, int rows, Duration atMost, String after)
      throws Exception {
    await().atMost(atMost).until(() -> seen() == rows && mirror.size() == rows);
    try (MirrorsVersusTables tables = new MirrorsVersusTables(p.db)) {
      tables.awaitEqual(after, Map.of("wide", mirror), atMost);
    }
    assertThat(inserts.values())
        .as("every insert reached the client exactly once " + after)
        .allMatch(c -> c.get() == 1);
  }

  @Override
  public void close() {
    stop.set(true);
    writer.shutdownNow();
  }
}

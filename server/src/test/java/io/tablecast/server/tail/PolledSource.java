package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A change source polled on a thread of its own, as the tail loop polls it: its non-empty batches
 * collected, a failed poll tried again 100 ms later, the slowest poll timed.
 */
final class PolledSource implements AutoCloseable {
  final ChangeSource source;
  final List<CommittedBatch> batches = new CopyOnWriteArrayList<>();
  final List<String> failures = new CopyOnWriteArrayList<>();
  private final AtomicLong slowestPollNanos = new AtomicLong();
  private final ExecutorService thread = Executors.newSingleThreadExecutor();
  private final AtomicReference<Runnable> beforeNextPoll = new AtomicReference<>();

  private PolledSource(ChangeSource source) {
    this.source = source;
  }

  /**
   * The source of {@code tables} of {@code db}, installing triggers, with a capture check every
   * {@code captureCheck} and reconciliation every {@code reconcile} (null: the default).
   */
  static SourceConfig config(
      TestDatabases.Isolated db, List<String> tables, Duration reconcile, Duration captureCheck) {
    return new SourceConfig(
        db.jdbcUrl(), null, null, tables, true, null, null, reconcile, captureCheck);
  }

  /** Opens the source of {@code config} and reads its snapshot; {@link #poll} starts polling. */
  static PolledSource open(SourceConfig config, MicrometerServerMetrics metrics) throws Exception {
    ChangeSource source = ChangeSources.open(config, metrics);
    try {
      source.snapshot((t, row) -> {});
    } catch (Exception | Error e) {
      source.close();
      throw e;
    }
    return new PolledSource(source);
  }

  /** Polls from now on, until closed. */
  @SuppressWarnings("FutureReturnValueIgnored") // ends when closed; failures are collected
  PolledSource poll() {
    thread.submit(
        () -> {
          while (!Thread.currentThread().isInterrupted()) {
            Runnable task = beforeNextPoll.getAndSet(null);
            if (task != null) {
              task.run();
            }
            long start = System.nanoTime();
            try {
              CommittedBatch b = source.poll(Duration.ofMillis(50));
              if (!b.isEmpty()) {
                batches.add(b);
              }
            } catch (SQLException | RuntimeException e) { // as the tail loop: tried again
              failures.add(e.toString());
              Thread.sleep(100);
            }
            slowestPollNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
          }
          return null;
        });
    return this;
  }

  /**
   * Has the source's next read meet another database instance than the one it read from, as after a
   * failover, a restore or a restart of the database: it reads every table whole again there
   * ({@link PollingChangeSource#readWholeAgain}). Only this source sees it, where a real restart
   * (or PostgreSQL's {@code pg_stat_reset_shared}) would make every test's source read whole too.
   * Done on the polling thread, which owns the source's {@link InstanceWatch}.
   */
  void meetAnotherInstance() {
    beforeNextPoll.set(
        () ->
            ((PollingChangeSource) source)
                .instance()
                .positioned(
                    new DatabaseInstance("another instance", Instant.EPOCH, Duration.ZERO)));
  }

  /** The longest one poll took so far. */
  Duration slowestPoll() {
    return Duration.ofNanos(slowestPollNanos.get());
  }

  /** How many events of {@code table} (its unqualified name) were read. */
  long events(String table) {
    return batches.stream()
        .flatMap(b -> b.events().stream())
        .filter(e -> e.table().endsWith("." + table))
        .count();
  }

  /** Whether a batch said {@code table} (unqualified) stale ({@code stale}) or followed again. */
  boolean saidStale(String table, boolean stale) {
    return batches.stream()
        .flatMap(b -> b.staleness().stream())
        .anyMatch(s -> s.table().endsWith("." + table) && (s.reason() != null) == stale);
  }

  /**
   * Whether {@code table} (unqualified) is stale for any cause after the batches read so far, each
   * cause's last word counting.
   */
  boolean staleNow(String table) {
    Map<String, String> byCause = new HashMap<>();
    batches.stream()
        .flatMap(b -> b.staleness().stream())
        .filter(s -> s.table().endsWith("." + table))
        .forEachOrdered(s -> byCause.put(s.cause(), s.reason()));
    return byCause.values().stream().anyMatch(Objects::nonNull);
  }

  /**
   * Whether a batch said {@code table} (unqualified) stale for a reason containing {@code text}.
   */
  boolean saidStaleFor(String table, String text) {
    return batches.stream()
        .flatMap(b -> b.staleness().stream())
        .anyMatch(
            s ->
                s.table().endsWith("." + table) && s.reason() != null && s.reason().contains(text));
  }

  /**
   * Whether {@code table} (unqualified) was read whole for {@code purpose}, with rows for which
   * {@code rows} holds.
   */
  boolean readWhole(
      String table, CommittedBatch.Purpose purpose, Predicate<List<ObjectNode>> rows) {
    return batches.stream()
        .flatMap(b -> b.tableReads().stream())
        .filter(r -> r.schema().id().qualified().endsWith("." + table) && r.purpose() == purpose)
        .anyMatch(r -> rows.test(Rows.json(r.schema(), r.rows())));
  }

  @Override
  public void close() throws InterruptedException {
    thread.shutdownNow();
    try {
      assertThat(thread.awaitTermination(30, TimeUnit.SECONDS)).as("polls ended").isTrue();
    } finally {
      source.close();
    }
  }
}

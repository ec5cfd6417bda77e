package io.tablecast.bench;

import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The tail alone, no hub and no client: how long a committed change takes to come out of {@code
 * ChangeSource.poll} while reconciliation ranges are read, on a 10,000-row table of the benchmark's
 * shape ({@code tc_tail.bench_rows}, made afresh; PostgreSQL or MySQL/MariaDB by the URL). One
 * writer updates one row every 5 ms; the ranges come every {@code reconcile_interval / 10}. Prints
 * {@code tail n=… ranges=… p50=… p99=… p99.9=… max=…} (ms, after 5 s of warm-up). To compare
 * builds, put the other build's jar first on the class path: {@code java -cp
 * OLD-bench.jar:tablecast-bench.jar io.tablecast.bench.TailOnce JDBC_URL [SECONDS]
 * [RECONCILE_INTERVAL_MS]}.
 */
public final class TailOnce {
  private static final int ROWS = 10_000; // the INSERT's four digits

  private TailOnce() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: TailOnce JDBC_URL [SECONDS (30)] [RECONCILE_INTERVAL_MS (3000)]");
      System.exit(2);
    }
    String url = args[0];
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    long reconcileMillis = args.length > 2 ? Long.parseLong(args[2]) : 3000;
    boolean mysql = url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(
          mysql ? "DROP DATABASE IF EXISTS tc_tail" : "DROP SCHEMA IF EXISTS tc_tail CASCADE");
      s.execute(mysql ? "CREATE DATABASE tc_tail" : "CREATE SCHEMA tc_tail");
      s.execute(
          "CREATE TABLE tc_tail.bench_rows (id bigint PRIMARY KEY, version bigint, "
              + "name varchar(32), price decimal(10,2), qty int)");
      s.execute( // ids 1..10,000 from four digits (no series function, no deep recursion)
          "INSERT INTO tc_tail.bench_rows WITH RECURSIVE d(n) AS (SELECT 0 UNION ALL "
              + "SELECT n + 1 FROM d WHERE n < 9), g(n) AS (SELECT a.n * 1000 + b.n * 100 + c.n * 10 "
              + "+ e.n + 1 FROM d a, d b, d c, d e) "
              + "SELECT n, 0, CONCAT('name-', n), n * 1.25, n % 100 FROM g");
    }
    SourceConfig config =
        new SourceConfig(
            url,
            null,
            null,
            List.of("tc_tail.bench_rows"),
            true,
            null,
            null,
            Duration.ofMillis(reconcileMillis),
            null,
            Map.of());
    Map<Long, Long> committed = new ConcurrentHashMap<>();
    List<Double> latencies = new ArrayList<>();
    int ranges = 0;
    try (ChangeSource source = ChangeSources.open(config)) {
      source.snapshot((t, row) -> {});
      AtomicBoolean stop = new AtomicBoolean();
      Thread writer = new Thread(() -> write(url, committed, stop), "writer");
      writer.start();
      long warm = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      long end = warm + Duration.ofSeconds(seconds).toNanos();
      while (System.nanoTime() < end) {
        CommittedBatch batch = source.poll(Duration.ofMillis(20));
        long now = System.nanoTime();
        ranges += batch.tableReads().size();
        for (RowEvent e : batch.events()) {
          if (e instanceof RowEvent.Upsert u) {
            RowForm form = new RowForm(u.schema().columns(), u.schema().primaryKey());
            Long at = committed.remove(((Number) form.valueToJava(u.row(), 0)).longValue());
            if (at != null && now > warm) {
              latencies.add((now - at) / 1e6);
            }
          }
        }
      }
      stop.set(true);
      writer.join();
    }
    Collections.sort(latencies);
    int n = latencies.size();
    System.out.println(
        String.format(
            Locale.ROOT,
            "tail n=%d ranges=%d p50=%.2f p99=%.2f p99.9=%.2f max=%.2f",
            n,
            ranges,
            latencies.get(n / 2),
            latencies.get(n * 99 / 100),
            latencies.get(Math.min(n - 1, n * 999 / 1000)),
            latencies.get(n - 1)));
  }

  private static void write(String url, Map<Long, Long> committed, AtomicBoolean stop) {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE tc_tail.bench_rows SET version = version + 1 WHERE id = ?")) {
      for (long v = 0; !stop.get(); v++) {
        long id = 1 + v % ROWS;
        ps.setLong(1, id);
        ps.executeUpdate();
        committed.put(id, System.nanoTime());
        Thread.sleep(5);
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}

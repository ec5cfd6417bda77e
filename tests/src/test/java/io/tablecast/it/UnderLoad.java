package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/** What the randomized tests under load share: their threads, and DDL queued behind a reader. */
final class UnderLoad {

  private UnderLoad() {}

  /** Work of one thread of a test under load. */
  interface Work {
    void run() throws Exception;
  }

  /** A thread (not started) that runs {@code work} and adds what it throws to {@code errors}. */
  static Thread thread(List<Throwable> errors, Work work) {
    return new Thread(
        () -> {
          try {
            work.run();
          } catch (Exception | Error e) {
            errors.add(e);
            e.printStackTrace(); // with its causes, which the failure's message leaves out
          }
        });
  }

  /**
   * {@code count} writer threads (not started) of {@link #writeAtRandom}, each with its own random
   * choices of {@code seed}; the first in READ COMMITTED when {@code firstReadCommitted}.
   */
  static List<Thread> writers(
      Pipeline p,
      long seed,
      int count,
      boolean firstReadCommitted,
      AtomicBoolean stop,
      AtomicLong committed,
      List<Throwable> errors,
      Function<Random, String> statement) {
    List<Thread> threads = new java.util.ArrayList<>();
    for (int w = 0; w < count; w++) {
      Random r = new Random(seed * 31 + w);
      boolean readCommitted = firstReadCommitted && w == 0;
      threads.add(
          thread(errors, () -> writeAtRandom(p, r, readCommitted, stop, committed, statement)));
    }
    return threads;
  }

  /**
   * Writes until {@code stop} on a connection of its own: single statements of {@code statement},
   * and transactions of two to four of which a quarter roll back, a few milliseconds apart. A
   * statement the database refuses (a duplicate key, a missing parent, a deadlock) ends its
   * transaction. Each commit counts in {@code committed}.
   *
   * @param readCommitted whether the connection's transactions run in READ COMMITTED rather than
   *     the database's default
   */
  static void writeAtRandom(
      Pipeline p,
      Random r,
      boolean readCommitted,
      AtomicBoolean stop,
      AtomicLong committed,
      Function<Random, String> statement)
      throws Exception {
    try (Connection c = p.connect();
        Statement s = c.createStatement()) {
      if (readCommitted) {
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      }
      while (!stop.get()) {
        int statements = r.nextInt(3) == 0 ? 2 + r.nextInt(3) : 1;
        c.setAutoCommit(statements == 1);
        try {
          for (int i = 0; i < statements; i++) {
            s.executeUpdate(statement.apply(r));
          }
          if (statements > 1 && r.nextInt(4) == 0) {
            c.rollback();
          } else {
            if (statements > 1) {
              c.commit();
            }
            committed.incrementAndGet();
          }
        } catch (SQLException refused) {
          if (statements > 1) {
            c.rollback();
          }
        }
        Thread.sleep(r.nextInt(3)); // pacing only
      }
    }
  }

  /**
   * Starts {@code threads}, lets them run for {@code seconds}, sets {@code stop}, waits for them to
   * end, and fails with what they threw.
   */
  static void runFor(long seconds, List<Thread> threads, AtomicBoolean stop, List<Throwable> errors)
      throws InterruptedException {
    runFor(seconds, threads, stop, errors, () -> true, Duration.ZERO);
  }

  /**
   * As {@link #runFor(long, List, AtomicBoolean, List)}, the soak going on after {@code seconds}
   * until {@code until} holds, for at most {@code longer} more: for a soak whose point is an event
   * the machine's pace may delay past its seconds (the caller asserts it happened).
   */
  static void runFor(
      long seconds,
      List<Thread> threads,
      AtomicBoolean stop,
      List<Throwable> errors,
      BooleanSupplier until,
      Duration longer)
      throws InterruptedException {
    threads.forEach(Thread::start);
    Thread.sleep(seconds * 1000); // the soak
    long deadline = System.nanoTime() + longer.toNanos();
    while (!until.getAsBoolean() && System.nanoTime() - deadline < 0 && errors.isEmpty()) {
      Thread.sleep(100);
    }
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    assertThat(errors).as("what the threads threw").isEmpty();
  }

  /**
   * Runs {@code ddl} while an open transaction that has read {@code table} holds it for {@code
   * holdMillis}: the DDL waits meanwhile, and every later read of the table waits behind it. A DDL
   * statement the database refuses is left.
   */
  static void ddlQueuedBehindAReader(Pipeline p, String table, String ddl, long holdMillis)
      throws Exception {
    try (Connection reader = p.connect()) {
      reader.setAutoCommit(false);
      try (Statement s = reader.createStatement()) {
        s.executeQuery("SELECT * FROM " + table).close();
      }
      Thread queued =
          new Thread(
              () -> {
                try {
                  p.sql(ddl);
                } catch (IllegalStateException refused) {
                  // the state was not what the statement needs
                }
              });
      queued.start();
      Thread.sleep(holdMillis); // the DDL waits meanwhile
      reader.commit();
      queued.join();
    }
  }

  /**
   * Cuts every connection through {@code proxy} every 0.3-1.5 s until {@code stop} and, one time in
   * six, first restarts the server with {@code startServer} (a new epoch), leading the proxy to it.
   */
  static Work cutsAndRestarts(
      Pipeline p, CuttableProxy proxy, Random r, AtomicBoolean stop, Runnable startServer) {
    return () -> {
      while (!stop.get()) {
        Thread.sleep(300 + r.nextInt(1200));
        if (r.nextInt(6) == 0) {
          p.stopServer();
          startServer.run();
          proxy.retarget("127.0.0.1", p.server().port());
        }
        proxy.cut();
      }
    };
  }

  /**
   * The first keys (at most five) whose values differ between {@code a} and {@code b}, each with
   * both values: a short failure message where the whole maps would be thousands of lines.
   */
  static <K, V> List<String> differences(Map<K, V> a, String aName, Map<K, V> b, String bName) {
    Set<K> keys = new HashSet<>(a.keySet());
    keys.addAll(b.keySet());
    return keys.stream()
        .filter(k -> !Objects.equals(a.get(k), b.get(k)))
        .limit(5)
        .map(k -> k + ": " + aName + " " + a.get(k) + ", " + bName + " " + b.get(k))
        .toList();
  }

  /** The server's counts of coalesced changes and of slow consumers dropped, from /metrics. */
  static String slowConsumerMeters(Pipeline p) throws Exception {
    String text =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + p.address() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return text.lines()
        .filter(l -> l.startsWith("tablecast_slow_"))
        .reduce((a, b) -> a + "; " + b)
        .orElse("no tablecast_slow_* meters");
  }
}

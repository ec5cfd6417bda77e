package io.tablecast.it;

import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writers doing what an online shop does ({@link Shop#actions()}), each action one transaction,
 * about one in five rolled back at its end on purpose. A transaction that loses a deadlock, a
 * serialization check or a lock wait is retried; one that breaks a constraint because another
 * writer got there first (a row picked a moment ago was deleted, a renamed key) is rolled back and
 * counted as a conflict, as an application would report it to its user. Any other error (one raised
 * by a capture trigger, for instance) stops the writer and fails the test.
 */
final class ShopWorkload {

  /**
   * One thing the application does, in one transaction; {@code weight} is its relative frequency.
   */
  record Action(String name, int weight, Body body) {}

  /** The statements of an action. */
  interface Body {
    void run(ShopSession s) throws SQLException;
  }

  /** Counts of one action. */
  static final class Stats {
    final AtomicLong committed = new AtomicLong();
    final AtomicLong committedEmpty = new AtomicLong();
    final AtomicLong rolledBack = new AtomicLong();
    final AtomicLong conflicts = new AtomicLong();
    final AtomicLong retries = new AtomicLong();

    @Override
    public String toString() {
      return committed
          + " committed ("
          + committedEmpty
          + " changed nothing), "
          + rolledBack
          + " rolled back, "
          + conflicts
          + " conflicts, "
          + retries
          + " retries";
    }
  }

  private static final int MAX_ATTEMPTS = 30;

  private final TestDatabases.Isolated db;
  private final Shop shop;
  private final long seed;
  private final Map<String, Stats> stats = new ConcurrentHashMap<>();
  private final List<Thread> threads = new ArrayList<>();
  final List<Throwable> errors = new CopyOnWriteArrayList<>();

  ShopWorkload(TestDatabases.Isolated db, Shop shop, long seed) {
    this.db = db;
    this.shop = shop;
    this.seed = seed;
    shop.actions().forEach(a -> stats.put(a.name(), new Stats()));
  }

  /** Seeds the shop's tables (one transaction). */
  void seed() throws SQLException {
    try (Connection c = db.connect()) {
      shop.prepareSession(c);
      c.setAutoCommit(false);
      shop.seed(new ShopSession(c, new Random(seed), 99));
      c.commit();
    }
  }

  /** Starts {@code writers} writer threads that write for {@code duration}. */
  void start(int writers, Duration duration) {
    long end = System.nanoTime() + duration.toNanos();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      Thread t =
          new Thread(
              () -> {
                try (Connection c = db.connect()) {
                  shop.prepareSession(c);
                  c.setAutoCommit(false);
                  ShopSession s = new ShopSession(c, new Random(seed * 31 + writer), writer);
                  while (System.nanoTime() < end && errors.isEmpty()) {
                    runOnce(c, s);
                  }
                } catch (Throwable e) {
                  errors.add(e);
                }
              },
              "shop-writer-" + w);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  /** True while a writer runs. */
  boolean running() {
    return threads.stream().anyMatch(Thread::isAlive);
  }

  /**
   * Waits for the writers to stop (they stop at the end of their duration, or at the first error).
   */
  void join() throws InterruptedException {
    for (Thread t : threads) {
      t.join(180_000);
    }
  }

  private void runOnce(Connection c, ShopSession s) throws SQLException {
    Action action = pick(s.rnd);
    Stats st = stats.get(action.name());
    boolean rollback = s.rnd.nextInt(5) == 0;
    for (int attempt = 1; ; attempt++) {
      s.beginTransaction();
      try {
        action.body().run(s);
        if (rollback) {
          c.rollback();
          st.rolledBack.incrementAndGet();
        } else {
          c.commit();
          (s.rowsWritten() > 0 ? st.committed : st.committedEmpty).incrementAndGet();
        }
        return;
      } catch (SQLException e) {
        c.rollback();
        if (retryable(e) && attempt < MAX_ATTEMPTS) {
          st.retries.incrementAndGet();
        } else if (conflict(e)) {
          st.conflicts.incrementAndGet();
          return;
        } else {
          throw new SQLException(
              "shop action " + action.name() + " failed: " + e.getMessage(),
              e.getSQLState(),
              e.getErrorCode(),
              e);
        }
      }
    }
  }

  private Action pick(Random rnd) {
    List<Action> actions = shop.actions();
    int total = actions.stream().mapToInt(Action::weight).sum();
    int r = rnd.nextInt(total);
    for (Action a : actions) {
      r -= a.weight();
      if (r < 0) {
        return a;
      }
    }
    throw new IllegalStateException("weights");
  }

  private static boolean retryable(SQLException e) {
    String state = String.valueOf(e.getSQLState());
    // 40001 serialization failure / MariaDB deadlock, 40P01 PostgreSQL deadlock,
    // 55P03 PostgreSQL lock_timeout, 1213 / 1205 MariaDB deadlock / lock wait timeout, 1467 MariaDB
    // "Failed to read auto-increment value": a deadlock on an INSERT ... SELECT's AUTO-INC lock
    // (MDEV-33593), the transaction is rolled back like any deadlock victim
    int code = e.getErrorCode();
    return state.startsWith("40")
        || state.equals("55P03")
        || code == 1213
        || code == 1205
        || code == 1467;
  }

  /** Integrity constraint violations: a row another writer changed a moment ago. */
  private static boolean conflict(SQLException e) {
    return String.valueOf(e.getSQLState()).startsWith("23");
  }

  /** Per action, its counts, one line each. */
  String report() {
    StringBuilder sb = new StringBuilder();
    new TreeMap<>(stats).forEach((name, st) -> sb.append(String.format("  %-24s %s%n", name, st)));
    return sb.toString();
  }

  /** Actions that never committed a transaction that changed a row. */
  List<String> actionsThatNeverChangedARow() {
    List<String> out = new ArrayList<>();
    new TreeMap<>(stats)
        .forEach(
            (name, st) -> {
              if (st.committed.get() == 0) {
                out.add(name);
              }
            });
    return out;
  }

  long committed() {
    return stats.values().stream().mapToLong(st -> st.committed.get()).sum();
  }

  long rolledBack() {
    return stats.values().stream().mapToLong(st -> st.rolledBack.get()).sum();
  }
}

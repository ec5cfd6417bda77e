package io.tablecast.it;

import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.Assertions;

/**
 * Money transfers between the rows of an {@code accounts} table: each transfer is one transaction
 * that moves an amount from one random account to another, so the total never changes. Writers keep
 * their own connection (their database session ids are recorded, so fault injection can spare them)
 * and retry transactions that lose a deadlock or lock wait. Optional churn inserts and deletes
 * empty accounts (balance 0) outside the transfer range, which keeps the total while changing the
 * row set.
 */
final class TransferWorkload implements AutoCloseable {
  static final int ACCOUNTS = 20;
  static final long INITIAL = 1000;
  static final long TOTAL = ACCOUNTS * INITIAL;

  private final Pipeline p;
  private final long seed;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();
  final List<Throwable> errors = new CopyOnWriteArrayList<>();
  final AtomicLong committed = new AtomicLong();
  final AtomicLong retries = new AtomicLong();

  /** MariaDB CONNECTION_ID() / PostgreSQL pg_backend_pid() of the writers' sessions. */
  final Set<Long> sessionIds = ConcurrentHashMap.newKeySet();

  static List<String> ddl() {
    List<String> ddl = new ArrayList<>();
    ddl.add(
        "CREATE TABLE accounts (id int PRIMARY KEY, owner varchar(40) NOT NULL, balance bigint NOT NULL)");
    StringBuilder insert = new StringBuilder("INSERT INTO accounts VALUES ");
    for (int id = 1; id <= ACCOUNTS; id++) {
      insert
          .append(id == 1 ? "" : ", ")
          .append("(")
          .append(id)
          .append(", 'owner-")
          .append(id)
          .append("', ")
          .append(INITIAL)
          .append(")");
    }
    ddl.add(insert.toString());
    return ddl;
  }

  TransferWorkload(Pipeline p, long seed) {
    this.p = p;
    this.seed = seed;
  }

  /** Starts {@code writers} transfer threads and, if {@code churn}, one insert/delete thread. */
  TransferWorkload start(int writers, boolean churn) {
    for (int w = 0; w < writers; w++) {
      Random rnd = new Random(seed * 31 + w);
      threads.add(thread("transfer-" + w, (c, s) -> transfers(rnd, c, s)));
    }
    if (churn) {
      Random rnd = new Random(seed * 31 + 99);
      threads.add(thread("churn", (c, s) -> churn(rnd, c, s)));
    }
    threads.forEach(Thread::start);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> sessionIds.size() == threads.size() || !errors.isEmpty());
    return this;
  }

  /** Waits until at least {@code n} more transactions committed than when called. */
  void awaitCommitted(long n) {
    long target = committed.get() + n;
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> committed.get() >= target || !errors.isEmpty());
    Assertions.assertThat(errors).as("writer errors").isEmpty();
  }

  /** Stops the writers and waits for them; fails on any writer error. */
  void stop() throws InterruptedException {
    stop.set(true);
    for (Thread t : threads) {
      t.join(60_000);
    }
    Assertions.assertThat(errors).as("writer errors").isEmpty();
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    for (Thread t : threads) {
      t.join(60_000);
    }
  }

  private Thread thread(String name, Body body) {
    Thread t =
        new Thread(
            () -> {
              try (Connection c = p.db.connect();
                  Statement s = c.createStatement()) {
                sessionIds.add(sessionId(c, s));
                c.setAutoCommit(false);
                body.run(c, s);
              } catch (Throwable e) {
                errors.add(e);
              }
            },
            name);
    t.setDaemon(true);
    return t;
  }

  private long sessionId(Connection c, Statement s) throws SQLException {
    String q =
        p.db.kind() == io.tablecast.server.testing.TestDatabases.Kind.MYSQL
            ? "SELECT CONNECTION_ID()"
            : "SELECT pg_backend_pid()";
    try (ResultSet rs = s.executeQuery(q)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void transfers(Random rnd, Connection c, Statement s) throws SQLException {
    while (!stop.get()) {
      int from = 1 + rnd.nextInt(ACCOUNTS);
      int to = 1 + rnd.nextInt(ACCOUNTS - 1);
      if (to >= from) {
        to++;
      }
      long amount = 1 + rnd.nextInt(50);
      run(
          c,
          s,
          "UPDATE accounts SET balance = balance - " + amount + " WHERE id = " + from,
          "UPDATE accounts SET balance = balance + " + amount + " WHERE id = " + to);
    }
  }

  private void churn(Random rnd, Connection c, Statement s) throws SQLException {
    int next = 1000;
    while (!stop.get()) {
      run(c, s, "INSERT INTO accounts VALUES (" + next + ", 'new-" + next + "', 0)");
      if (rnd.nextBoolean()) {
        run(c, s, "DELETE FROM accounts WHERE id = " + (1000 + rnd.nextInt(next - 999)));
      }
      next++;
    }
  }

  /** Runs the statements as one transaction, retrying it when it loses a deadlock or lock wait. */
  private void run(Connection c, Statement s, String... statements) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        for (String q : statements) {
          s.execute(q);
        }
        c.commit();
        committed.incrementAndGet();
        return;
      } catch (SQLException e) {
        c.rollback();
        if (!retryable(e) || attempt >= 50) {
          throw e;
        }
        retries.incrementAndGet();
      }
    }
  }

  private static boolean retryable(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    // 40001 serialization failure / MariaDB deadlock, 40P01 PostgreSQL deadlock, 1205 lock wait
    // timeout
    return state.startsWith("40") || e.getErrorCode() == 1213 || e.getErrorCode() == 1205;
  }

  /** Sum of the balances of a consistent copy of the mirror. */
  static long total(TableMirror<Map<String, Object>> m) {
    long total = 0;
    for (Map<String, Object> r : m.rows()) {
      total += new BigDecimal(String.valueOf(r.get("balance"))).longValueExact();
    }
    return total;
  }

  /** Waits (up to {@code atMost}) until the mirror equals {@code SELECT *} of {@code accounts}. */
  static void awaitConverged(Pipeline p, TableMirror<Map<String, Object>> m, Duration atMost) {
    await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(
            () ->
                Assertions.assertThat(Pipeline.mirrorContents(m))
                    .isEqualTo(p.tableContents("accounts", m)));
  }

  private interface Body {
    void run(Connection c, Statement s) throws Exception;
  }
}

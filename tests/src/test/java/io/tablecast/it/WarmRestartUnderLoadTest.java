package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.ConnectionListener;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.file.Files;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Warm restart while the tables change, for {@code tablecast.soak.seconds} (8 s) with the random
 * choices of {@code tablecast.seed} (2): money moves between accounts ({@link TransferWorkload},
 * the total never changes) and {@link OrdersWorkload} writes customers and orders. Two services
 * restart again and again, each from the files its previous run left: after a clean close, or after
 * a crash (the files as they were at a random moment while it ran, saving every second), behind a
 * proxy that cuts their connections, while the server itself restarts now and then (a new epoch:
 * the files are compared with a snapshot). Every mirror restored from a file holds the accounts'
 * total, so it was saved at a transaction boundary; every batch its listeners hear, resumed or a
 * snapshot's differences, keeps the total; at the end every mirror equals its table or its {@code
 * SELECT}, what its listeners heard replayed over its rows gives its rows, and no server repaired a
 * row by reconciliation.
 */
class WarmRestartUnderLoadTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);
  private static final Duration READY = Duration.ofSeconds(30);

  /** A typed row with some of the columns: the file holds those. */
  record Balance(long id, long balance) {}

  @TempDir Path dir;

  /** What one service's runs saw. */
  private static final class Runs implements ConnectionListener {
    final AtomicInteger restored = new AtomicInteger();
    final AtomicInteger crashes = new AtomicInteger();
    final AtomicInteger resumed = new AtomicInteger();
    final AtomicInteger resumedFromFiles = new AtomicInteger();

    /** Set when a run starts from files, until its first connection resumed or took a snapshot. */
    final AtomicBoolean fromFiles = new AtomicBoolean();

    final AtomicInteger resnapshotted = new AtomicInteger();

    @Override
    public void resumed(List<String> tables, long position) {
      resumed.incrementAndGet();
      if (fromFiles.getAndSet(false)) {
        resumedFromFiles.incrementAndGet();
      }
    }

    @Override
    public void resnapshotted(String table, int inserted, int updated, int deleted) {
      resnapshotted.incrementAndGet();
      fromFiles.set(false);
    }

    @Override
    public String toString() {
      return String.format(
          "%d runs from files (%d after a crash, %d resumed from them), %d resumes, %d tables"
              + " compared with a snapshot",
          restored.get(),
          crashes.get(),
          resumedFromFiles.get(),
          resumed.get(),
          resnapshotted.get());
    }
  }

  /**
   * One run of a service: its client and its mirrors; the orders and customers whole, or in {@code
   * shapes} (a table has one shape per client).
   */
  private record Run(
      TablecastClient client,
      TableMirror<Map<String, Object>> accounts,
      TableMirror<Balance> balances,
      TableMirror<Map<String, Object>> orders,
      TableMirror<Map<String, Object>> customers,
      List<OrdersWorkload.Shaped> shapes,
      List<HeardRows<?>> heard) {

    List<TableMirror<?>> all() {
      return List.of(accounts, balances, orders, customers);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void servicesRestartedFromTheirFilesWhileTablesChangeEndEqualToTheTables(Kind kind)
      throws Exception {
    System.out.printf("WarmRestartUnderLoadTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    List<String> ddl = new ArrayList<>(TransferWorkload.ddl());
    ddl.addAll(ShapedMirrorEndToEndTest.ordersDdl());
    try (Pipeline p = Pipeline.create(kind, "warm_load", ddl, "accounts", "customers", "orders")) {
      startServer(p);
      List<OrdersWorkload.Shaped> shapes = OrdersWorkload.shapes(p);
      List<List<OrdersWorkload.Shaped>> shapesOf = List.of(List.of(), shapes.subList(1, 3));
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      try (CuttableProxy proxy = new CuttableProxy("127.0.0.1", p.server().port());
          TransferWorkload transfers = new TransferWorkload(p, SEED)) {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong committed = new AtomicLong();
        List<Thread> threads =
            new ArrayList<>(OrdersWorkload.writers(p, SEED, stop, committed, errors));
        List<Runs> runs = List.of(new Runs(), new Runs());
        List<Run[]> last = List.of(new Run[1], new Run[1]);
        for (int s = 0; s < runs.size(); s++) {
          int service = s;
          Random r = new Random(SEED * 17 + s);
          threads.add(
              UnderLoad.thread(
                  errors,
                  () ->
                      last.get(service)[0] =
                          restarts(
                              p,
                              shapesOf.get(service),
                              proxy,
                              service,
                              r,
                              stop,
                              runs.get(service),
                              errors)));
        }
        threads.add(
            UnderLoad.thread(
                errors,
                UnderLoad.cutsAndRestarts(
                    p, proxy, new Random(SEED + 5), stop, () -> startServer(p))));
        transfers.start(2, true);
        UnderLoad.runFor(SECONDS, threads, stop, errors);
        transfers.stop();
        System.out.printf(
            "WarmRestartUnderLoadTest %s: %d order writes and %d transfers committed, %d"
                + " connections through the proxy; %s; %s%n",
            kind,
            committed.get(),
            transfers.committed.get(),
            proxy.connections(),
            runs.get(0),
            runs.get(1));
        for (Runs each : runs) {
          assertThat(each.restored.get()).as("runs from files: %s", each).isPositive();
        }
        assertThat(runs.get(0).resumedFromFiles.get() + runs.get(1).resumedFromFiles.get())
            .as("runs resumed from their files: %s; %s", runs.get(0), runs.get(1))
            .isPositive();
        for (Run[] each : last) {
          Run run = each[0];
          try {
            run.client().sync(READY);
            p.awaitMirrorEqualsTable(run.accounts(), "accounts");
            if (run.shapes().isEmpty()) {
              p.awaitMirrorEqualsTable(run.orders(), "orders");
              p.awaitMirrorEqualsTable(run.customers(), "customers");
            } else {
              for (int i = 0; i < 2; i++) {
                OrdersWorkload.Shaped s = run.shapes().get(i);
                assertThat(OrdersWorkload.contents(i == 0 ? run.orders() : run.customers()))
                    .as("shaped %s (seed %d)", s.shape(), SEED)
                    .isEqualTo(OrdersWorkload.selected(p, s.query()));
              }
            }
            assertThat(new TreeMap<>(run.balances().copyToMap()))
                .as("typed accounts (seed %d)", SEED)
                .isEqualTo(balances(p));
            for (TableMirror<?> m : run.all()) {
              assertThat(m.staleReason()).as(m.table()).isNull();
            }
            for (HeardRows<?> h : run.heard()) {
              h.awaitEqualToTheMirror();
            }
          } finally {
            run.client().close();
          }
        }
      } finally {
        assertThat(errors).as("what the threads threw").isEmpty();
      }
    }
  }

  private static void startServer(Pipeline p) {
    // reconciliation on: each server's stop fails the test if it repaired a row
    p.startServer(b -> b.set("resume_buffer.batches", 50));
  }

  /**
   * Runs service {@code service} again and again until {@code stop}, each run from the files of the
   * one before; returns the last run, still open.
   */
  private Run restarts(
      Pipeline p,
      List<OrdersWorkload.Shaped> shapes,
      CuttableProxy proxy,
      int service,
      Random r,
      AtomicBoolean stop,
      Runs runs,
      List<Throwable> errors)
      throws Exception {
    Path files = dir.resolve("service-" + service + "-0");
    for (int generation = 1; ; generation++) {
      Run run = open(p, shapes, proxy, service, files, runs, errors);
      Thread.sleep(500 + r.nextInt(2000)); // serving, saving every second
      if (stop.get()) {
        return run;
      }
      if (r.nextBoolean()) { // a crash: the next run finds the files as they are now
        Path copy = dir.resolve("service-" + service + "-" + generation);
        Files.createDirectories(copy);
        Files.createDirectories(files); // a run that crashed before its first save wrote none
        try (Stream<Path> saved = Files.list(files)) {
          for (Path f : saved.filter(f -> f.toString().endsWith(".mirror")).toList()) {
            Files.copy(f, copy.resolve(f.getFileName()));
          }
        }
        runs.crashes.incrementAndGet();
        run.client().close(); // saves to the old directory, which no run reads again
        files = copy;
      } else {
        run.client().close(); // saves the mirrors
      }
    }
  }

  private Run open(
      Pipeline p,
      List<OrdersWorkload.Shaped> shapes,
      CuttableProxy proxy,
      int service,
      Path files,
      Runs runs,
      List<Throwable> errors)
      throws Exception {
    try (Stream<Path> saved = Files.exists(files) ? Files.list(files) : Stream.empty()) {
      runs.fromFiles.set(saved.findAny().isPresent());
    }
    TablecastClient client =
        TablecastClient.builder()
            .servers(proxy.address())
            .clientName("warm-" + service)
            .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
            .warmRestart(files, Duration.ofSeconds(1)) // the shortest interval
            .connectionListener(runs)
            .build();
    Run run =
        new Run(
            client,
            client.mirror(p.db.table("accounts")),
            client.mirror(p.db.table("accounts"), Balance.class),
            shapes.isEmpty()
                ? client.mirror(p.db.table("orders"))
                : client.mirror(p.db.table("orders"), shapes.get(0).shape()),
            shapes.isEmpty()
                ? client.mirror(p.db.table("customers"))
                : client.mirror(p.db.table("customers"), shapes.get(1).shape()),
            shapes,
            new ArrayList<>());
    for (TableMirror<?> m : run.all()) {
      run.heard().add(new HeardRows<>(m, SEED));
    }
    if (run.accounts().isReady()) {
      runs.restored.incrementAndGet();
      assertThat(TransferWorkload.total(run.accounts()))
          .as("accounts restored from %s (seed %d)", files, SEED)
          .isEqualTo(TransferWorkload.TOTAL);
    }
    if (run.balances().isReady()) {
      assertThat(run.balances().rows().stream().mapToLong(Balance::balance).sum())
          .as("typed accounts restored from %s (seed %d)", files, SEED)
          .isEqualTo(TransferWorkload.TOTAL);
    }
    keepsTheTotal(run.accounts(), row -> ((Number) row.get("balance")).longValue(), errors);
    keepsTheTotal(run.balances(), Balance::balance, errors);
    for (TableMirror<?> m : run.all()) {
      assertThat(m.awaitReady(READY)).as("ready: %s", m.table()).isTrue();
    }
    return run;
  }

  /** Fails the test when a batch the mirror's listeners hear changes the accounts' total. */
  private static <V> void keepsTheTotal(
      TableMirror<V> mirror, ToLongFunction<V> balance, List<Throwable> errors) {
    mirror.addBatchListener(
        changes -> {
          long net = 0;
          for (ChangeEvent<V> e : changes) {
            net += (e.newRow() == null ? 0 : balance.applyAsLong(e.newRow()));
            net -= (e.oldRow() == null ? 0 : balance.applyAsLong(e.oldRow()));
          }
          if (net != 0) {
            errors.add(
                new AssertionError(
                    "a batch of "
                        + changes.size()
                        + " changes to "
                        + mirror.table()
                        + " moved the total by "
                        + net
                        + " (seed "
                        + SEED
                        + ")"));
          }
        });
  }

  /** The accounts as typed rows, from the database. */
  private static Map<Object, Balance> balances(Pipeline p) throws Exception {
    Map<Object, Balance> out = new TreeMap<>();
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, balance FROM accounts")) {
      while (rs.next()) {
        out.put(rs.getLong(1), new Balance(rs.getLong(1), rs.getLong(2)));
      }
    }
    return out;
  }
}

package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
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

  /** How much longer than its seconds the soak may run for the runs from files to happen. */
  private static final Duration LONGER = Duration.ofSeconds(60);

  /** A typed row with some of the columns: the file holds those. */
  record Balance(long id, long balance) {}

  @TempDir Path dir;

  /**
   * The mirrors of one run of a service; the orders and customers whole, or in {@code shapes} (a
   * table has one shape per client).
   */
  private record Mirrors(
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
        List<RestartingService> services = new ArrayList<>();
        List<List<RestartingService.Run<Mirrors>>> last =
            List.of(new ArrayList<>(), new ArrayList<>());
        for (int s = 0; s < 2; s++) {
          RestartingService service =
              new RestartingService("warm-" + s, dir, new Random(SEED * 17 + s));
          services.add(service);
          List<OrdersWorkload.Shaped> shaped = shapesOf.get(s);
          List<RestartingService.Run<Mirrors>> lastRun = last.get(s);
          threads.add(
              UnderLoad.thread(
                  errors,
                  () ->
                      lastRun.add(
                          service.run(
                              proxy.address(),
                              stop,
                              (client, files) -> open(p, shaped, client, files, errors)))));
        }
        threads.add(
            UnderLoad.thread(
                errors,
                UnderLoad.cutsAndRestarts(
                    p, proxy, new Random(SEED + 5), stop, () -> startServer(p))));
        transfers.start(2, true);
        // on a loaded machine the cuts and restarts may deny the runs a file for seconds: the
        // soak goes on until each service has run from its files and one run has resumed
        UnderLoad.runFor(
            SECONDS,
            threads,
            stop,
            errors,
            () ->
                services.stream().allMatch(s -> s.fromFiles.get() > 0)
                    && services.stream().anyMatch(s -> s.resumedFromFiles.get() > 0),
            LONGER);
        transfers.stop();
        System.out.printf(
            "WarmRestartUnderLoadTest %s: %d order writes and %d transfers committed, %d"
                + " connections through the proxy; %s; %s%n",
            kind,
            committed.get(),
            transfers.committed.get(),
            proxy.connections(),
            services.get(0),
            services.get(1));
        for (RestartingService each : services) {
          assertThat(each.fromFiles.get()).as("runs from files: %s", each).isPositive();
        }
        assertThat(services.get(0).resumedFromFiles.get() + services.get(1).resumedFromFiles.get())
            .as("runs resumed from their files: %s; %s", services.get(0), services.get(1))
            .isPositive();
        for (List<RestartingService.Run<Mirrors>> each : last) {
          Mirrors run = each.get(0).mirrors();
          try {
            each.get(0).client().sync(READY);
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
            each.get(0).client().close();
          }
        }
      } finally {
        assertThat(errors).as("what the threads threw").isEmpty();
      }
    }
  }

  /**
   * The same restarts while {@link DdlWorkload} writes and alters two tables: columns added,
   * dropped, renamed and retyped, the primary key widened and narrowed back, between a run's last
   * save and the next run's start too (a file in the old layout, resumed into the new one or
   * compared with a snapshot in it). Generic mirrors of both tables, equal to them at the end.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void servicesRestartedFromTheirFilesWhileTablesAreAlteredEndEqualToTheTables(Kind kind)
      throws Exception {
    System.out.printf("WarmRestartUnderLoadTest %s (DDL): -Dtablecast.seed=%d%n", kind, SEED);
    List<String> tables = DdlWorkload.TABLES;
    try (Pipeline p =
        Pipeline.create(kind, "warm_ddl", DdlWorkload.ddl(), tables.toArray(new String[0]))) {
      startServer(p);
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      try (CuttableProxy proxy = new CuttableProxy("127.0.0.1", p.server().port())) {
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = DdlWorkload.threads(p, kind, SEED, stop, errors);
        List<RestartingService> services = new ArrayList<>();
        List<RestartingService.Run<List<TableMirror<Map<String, Object>>>>> last =
            new CopyOnWriteArrayList<>();
        for (int s = 0; s < 2; s++) {
          RestartingService service =
              new RestartingService("warm-ddl-" + s, dir, new Random(SEED * 17 + s));
          services.add(service);
          threads.add(
              UnderLoad.thread(
                  errors,
                  () ->
                      last.add(
                          service.run(
                              proxy.address(),
                              stop,
                              (client, files) -> {
                                List<TableMirror<Map<String, Object>>> mirrors = new ArrayList<>();
                                for (String t : tables) {
                                  mirrors.add(client.mirror(p.db.table(t)));
                                }
                                for (TableMirror<?> m : mirrors) {
                                  assertThat(m.awaitReady(READY)).as(m.table()).isTrue();
                                }
                                return mirrors;
                              }))));
        }
        threads.add(
            UnderLoad.thread(
                errors,
                UnderLoad.cutsAndRestarts(
                    p, proxy, new Random(SEED + 5), stop, () -> startServer(p))));
        UnderLoad.runFor(
            SECONDS,
            threads,
            stop,
            errors,
            () -> services.stream().allMatch(s -> s.fromFiles.get() > 0),
            LONGER);
        System.out.printf(
            "WarmRestartUnderLoadTest %s (DDL): %d connections through the proxy; %s; %s%n",
            kind, proxy.connections(), services.get(0), services.get(1));
        for (RestartingService each : services) {
          assertThat(each.fromFiles.get()).as("runs from files: %s", each).isPositive();
        }
        for (RestartingService.Run<List<TableMirror<Map<String, Object>>>> run : last) {
          try {
            run.client().sync(READY);
            for (int t = 0; t < tables.size(); t++) {
              p.awaitMirrorEqualsTable(run.mirrors().get(t), tables.get(t));
              assertThat(run.mirrors().get(t).staleReason()).isNull();
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

  /** Opens a run's mirrors and checks those restored from {@code files}. */
  private static Mirrors open(
      Pipeline p,
      List<OrdersWorkload.Shaped> shapes,
      TablecastClient client,
      Path files,
      List<Throwable> errors)
      throws Exception {
    Mirrors run =
        new Mirrors(
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

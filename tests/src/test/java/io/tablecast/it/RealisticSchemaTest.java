package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The acceptance test of issue 10: an online shop's schema written the way applications define them
 * ({@code realistic/mariadb.sql}, {@code realistic/postgresql.sql}: foreign keys cascading three
 * levels deep into composite keys, a self-referencing tree, SET NULL and SET DEFAULT, partitioned
 * tables with sub-partitions and default partitions, an inheritance parent fed by rules, spatial,
 * full-text, ENUM/SET/YEAR, BLOB, JSON, arrays, ranges, hstore, composite and domain types, ...) is
 * cached whole: every table is accepted at start. Writers then do what the shop does ({@link
 * MariadbShop}, {@link PostgresShop}), in concurrent transactions of which about one in five is
 * rolled back, while one client mirrors every table from the start and another joins halfway. When
 * the writes stop, every mirror equals {@code SELECT *} of its table value by value ({@link
 * MirrorsVersusTables} prints what differs), every table received live changes, and reconciliation
 * repaired nothing ({@link Pipeline#stopServer}).
 *
 * <p>Settings: {@code -Dtablecast.realistic.seconds} (writing time, default 20), {@code
 * -Dtablecast.realistic.writers} (default 4), {@code -Dtablecast.seed}, and for work on one capture
 * feature {@code -Dtablecast.realistic.tables=orders,order_items} (caches only those of the names
 * that the database's schema has; the writers still write everything).
 */
class RealisticSchemaTest {
  private static final long SEED = Long.getLong("tablecast.seed", 20261123L);
  private static final long SECONDS = Long.getLong("tablecast.realistic.seconds", 12L);
  private static final int WRITERS = Integer.getInteger("tablecast.realistic.writers", 4);
  private static final String ONLY = System.getProperty("tablecast.realistic.tables", "");
  private static final Duration CONVERGENCE = Duration.ofSeconds(30);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRealSchemaIsCachedWholeAndEveryMirrorEqualsItsTableAfterConcurrentWrites(Kind kind)
      throws Exception {
    Shop shop = Shop.on(kind);
    List<String> tables = cachedTables(shop);
    System.out.printf(
        "RealisticSchemaTest %s: -Dtablecast.seed=%d -Dtablecast.realistic.seconds=%d "
            + "-Dtablecast.realistic.writers=%d, caching %s%n",
        kind, SEED, SECONDS, WRITERS, tables);
    try (Pipeline p =
            Pipeline.create(kind, "realistic", shop.schema(), tables.toArray(new String[0]));
        MirrorsVersusTables compare = new MirrorsVersusTables(p.db)) {
      assertThat(applicationTables(p, shop))
          .as("the tables of the schema script, all cached by this test")
          .containsExactlyInAnyOrderElementsOf(shop.tables());
      ShopWorkload workload = new ShopWorkload(p.db, shop, SEED);
      workload.seed();

      try {
        p.startServer();
      } catch (RuntimeException e) {
        throw new AssertionError(
            "the server refused the realistic schema at start (every table of it must be "
                + "accepted): "
                + e.getMessage(),
            e);
      }
      Map<String, TableMirror<Map<String, Object>>> first =
          mirrors(p, p.client("shop-backend"), tables);
      Map<String, AtomicLong> events = new ConcurrentHashMap<>();
      first.forEach(
          (table, m) -> {
            AtomicLong n = new AtomicLong();
            events.put(table, n);
            m.addListener(e -> n.incrementAndGet());
          });
      compare.awaitEqual(kind + " snapshot", first, CONVERGENCE);

      long started = System.nanoTime();
      Duration writing = Duration.ofSeconds(SECONDS);
      workload.start(WRITERS, writing);
      await()
          .atMost(writing.plusSeconds(60))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> System.nanoTime() - started > writing.toNanos() / 2 || !workload.running());
      Map<String, TableMirror<Map<String, Object>>> late =
          mirrors(p, p.client("late-joiner"), tables);
      workload.join();
      System.out.printf(
          "RealisticSchemaTest %s: %d transactions committed, %d rolled back in %d s by %d writers:%n%s",
          kind, workload.committed(), workload.rolledBack(), SECONDS, WRITERS, workload.report());
      assertThat(workload.errors)
          .as("writer errors (a capture trigger failing a write shows here)")
          .isEmpty();

      compare.awaitEqual(kind + " client connected from the start", first, CONVERGENCE);
      compare.awaitEqual(kind + " client that joined during the writes", late, CONVERGENCE);
      System.out.printf(
          "RealisticSchemaTest %s: live changes per table %s%n", kind, new TreeMap<>(events));
      assertThat(
              events.entrySet().stream()
                  .filter(e -> e.getValue().get() == 0)
                  .map(Map.Entry::getKey)
                  .toList())
          .as("tables whose mirror received no live change during the writes")
          .isEmpty();
      assertThat(workload.actionsThatNeverChangedARow())
          .as("shop actions that never committed a change")
          .isEmpty();
      assertThat(withoutRows(p, shop.partitionsAndChildren()))
          .as("partitions and inheritance children left empty")
          .isEmpty();
    }
  }

  private static List<String> cachedTables(Shop shop) {
    if (ONLY.isBlank()) {
      return shop.tables();
    }
    List<String> only =
        Arrays.stream(ONLY.split(",")).map(String::strip).filter(shop.tables()::contains).toList();
    assertThat(only)
        .as("tables of this database named by -Dtablecast.realistic.tables=%s", ONLY)
        .isNotEmpty();
    System.out.printf(
        "RealisticSchemaTest: -Dtablecast.realistic.tables caches only %s, not the whole schema%n",
        only);
    return only;
  }

  private static Map<String, TableMirror<Map<String, Object>>> mirrors(
      Pipeline p, TablecastClient client, List<String> tables) {
    Map<String, TableMirror<Map<String, Object>>> out = new LinkedHashMap<>();
    for (String table : tables) {
      out.put(table, p.readyMirror(client, table));
    }
    return out;
  }

  private static List<String> withoutRows(Pipeline p, List<String> fromClauses) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = p.db.connect();
        java.sql.Statement s = c.createStatement()) {
      for (String from : fromClauses) {
        try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + from)) {
          rs.next();
          if (rs.getLong(1) == 0) {
            out.add(from);
          }
        }
      }
    }
    return out;
  }

  /**
   * The application's tables as the catalog lists them (partitions and children belong to their
   * parent).
   */
  private static List<String> applicationTables(Pipeline p, Shop shop) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = p.db.connect();
        PreparedStatement ps = c.prepareStatement(shop.topLevelTablesQuery())) {
      ps.setString(1, p.db.schema());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return new ArrayList<>(new TreeSet<>(out));
  }
}

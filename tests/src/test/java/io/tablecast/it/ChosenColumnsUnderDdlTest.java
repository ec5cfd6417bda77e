package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.Column;
import io.tablecast.client.MirrorShape;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.capture.ColumnChoice;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Columns chosen by the configuration and by clients' shapes while the tables are altered, for
 * {@code tablecast.soak.seconds} (8 s) with the random choices of {@code tablecast.seed} (2):
 * {@link DdlWorkload} writes {@code items} and {@code others} and adds, drops, renames and retypes
 * columns and widens the primary key to {@code (id, v)} and back. The server caches {@code items}
 * with {@code columns: [s]} (so {@code v} is cached only while it is part of the key, and no added
 * column ever) and {@code others} with {@code exclude_columns: [s]} (every added column, never
 * {@code s}), and restarts now and then. Clients hold the tables whole, or shaped ({@code items}
 * filtered on {@code s}; {@code others} filtered on {@code v} and narrowed to it), directly and
 * through a proxy that cuts them every 0.3-1.5 s, while shaped clients join. Then every mirror has
 * the columns and key the table and its choices give, and equals the {@code SELECT} of its rows; no
 * server repaired a row.
 */
class ChosenColumnsUnderDdlTest {
  private static final long SEED = Long.getLong("tablecast.seed", 2);
  private static final long SECONDS = Long.getLong("tablecast.soak.seconds", 8);
  private static final Duration READY = Duration.ofSeconds(30);

  private static final Map<String, ColumnChoice> CHOICES =
      Map.of(
          "items", ColumnChoice.only(List.of("s")), "others", ColumnChoice.excluding(List.of("s")));

  /** A mirror's table, its shape's filter (a SQL condition too) and the columns it narrows to. */
  private record Held(
      String table, String filter, List<String> shapeColumns, TableMirror<Map<String, Object>> m) {}

  @ParameterizedTest
  @EnumSource(Kind.class)
  void chosenAndShapedColumnsFollowTheTablesWhileTheyAreAltered(Kind kind) throws Exception {
    System.out.printf("ChosenColumnsUnderDdlTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    try (Pipeline p =
        Pipeline.create(
            kind, "choice_ddl", DdlWorkload.ddl(), DdlWorkload.TABLES.toArray(new String[0]))) {
      startServer(p);
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      List<TablecastClient> clients = new CopyOnWriteArrayList<>();
      try (CuttableProxy proxy = new CuttableProxy("127.0.0.1", p.server().port());
          CuttableProxy steady = new CuttableProxy("127.0.0.1", p.server().port())) {
        List<Held> held = new ArrayList<>();
        for (String address : List.of(steady.address(), proxy.address())) {
          held.addAll(mirrors(p, "whole", address, false, clients));
          held.addAll(mirrors(p, "shaped", address, true, clients));
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = DdlWorkload.threads(p, kind, SEED, stop, errors);
        threads.add(
            UnderLoad.thread(
                errors,
                UnderLoad.cutsAndRestarts(
                    p,
                    proxy,
                    new Random(SEED + 5),
                    stop,
                    () -> {
                      startServer(p);
                      steady.retarget("127.0.0.1", p.server().port());
                    })));
        Random joins = new Random(SEED + 3);
        threads.add(
            UnderLoad.thread(
                errors,
                () -> {
                  for (int round = 0; !stop.get(); round++) {
                    Thread.sleep(1000 + joins.nextInt(2000)); // pacing between joins
                    List<TablecastClient> joining = new ArrayList<>();
                    mirrors(p, "joining-" + round, proxy.address(), true, joining);
                    joining.forEach(TablecastClient::close);
                  }
                }));
        UnderLoad.runFor(SECONDS, threads, stop, errors);
        System.out.printf(
            "ChosenColumnsUnderDdlTest %s: %d connections through the proxy%n",
            kind, proxy.connections());
        for (TablecastClient c : clients) {
          c.sync(READY);
        }
        for (Held h : held) {
          await()
              .atMost(Duration.ofSeconds(20))
              .pollInterval(Duration.ofMillis(50))
              .untilAsserted(
                  () -> {
                    Expected e = expected(p, h);
                    assertThat(h.m().columns())
                        .as("columns of %s (seed %d)", h, SEED)
                        .extracting(Column::name)
                        .containsExactlyElementsOf(e.columns());
                    assertThat(h.m().primaryKey()).as("key of %s", h).isEqualTo(e.key());
                    assertThat(rows(h.m(), e.key()))
                        .as("rows of %s (seed %d)", h, SEED)
                        .isEqualTo(e.rows());
                    // a status heard from a server before a restart is settled by the new one's
                    // first batch, a heartbeat at the latest (PROTOCOL.md, table_status)
                    assertThat(h.m().staleReason()).as("stale: %s", h).isNull();
                  });
        }
      } finally {
        clients.forEach(TablecastClient::close);
        assertThat(errors).as("what the threads threw").isEmpty();
      }
    }
  }

  private static void startServer(Pipeline p) {
    ServerSetups.withColumnChoices(p, CHOICES);
  }

  /**
   * A client at {@code address} (added to {@code clients}) holding both tables, whole or shaped,
   * its mirrors ready.
   */
  private static List<Held> mirrors(
      Pipeline p, String name, String address, boolean shaped, List<TablecastClient> clients)
      throws InterruptedException {
    TablecastClient client = NatsScaleOutTest.client(name, address);
    clients.add(client);
    List<Held> held = new ArrayList<>();
    if (shaped) {
      held.add(shaped(client, p, "items", "s < 'r'", List.of()));
      held.add(shaped(client, p, "others", "v < 500", List.of("v")));
    } else {
      held.add(new Held("items", null, List.of(), client.mirror(p.db.table("items"))));
      held.add(new Held("others", null, List.of(), client.mirror(p.db.table("others"))));
    }
    for (Held h : held) {
      assertThat(h.m().awaitReady(READY)).as("ready: %s", h).isTrue();
    }
    return held;
  }

  private static Held shaped(
      TablecastClient client, Pipeline p, String table, String filter, List<String> columns) {
    MirrorShape shape =
        columns.isEmpty()
            ? MirrorShape.rows(filter)
            : MirrorShape.rows(filter).columns(columns.toArray(new String[0]));
    return new Held(table, filter, columns, client.mirror(p.db.table(table), shape));
  }

  /** The columns, key and rows (key → column → text) a mirror should hold now. */
  private record Expected(
      List<String> columns, List<String> key, Map<String, Map<String, String>> rows) {}

  private static Expected expected(Pipeline p, Held h) throws Exception {
    List<String> key = primaryKey(p, h.table());
    ColumnChoice choice = CHOICES.get(h.table());
    List<String> columns = new ArrayList<>();
    Map<String, Map<String, String>> rows = new TreeMap<>();
    try (Connection c = p.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT * FROM "
                    + h.table()
                    + (h.filter() == null ? "" : " WHERE " + h.filter()))) {
      ResultSetMetaData meta = rs.getMetaData();
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        String name = meta.getColumnLabel(i);
        boolean cached = key.contains(name) || choice.includes(name);
        if (cached && (h.shapeColumns().isEmpty() || key.contains(name))
            || h.shapeColumns().contains(name)) {
          columns.add(name);
        }
      }
      while (rs.next()) {
        Map<String, String> row = new TreeMap<>();
        for (String name : columns) {
          row.put(name, rs.getString(name));
        }
        rows.put(keyOf(row, key), row);
      }
    }
    return new Expected(columns, key, rows);
  }

  private static Map<String, Map<String, String>> rows(
      TableMirror<Map<String, Object>> m, List<String> key) {
    Map<String, Map<String, String>> rows = new TreeMap<>();
    for (Map<String, Object> r : m.rows()) {
      Map<String, String> row = new TreeMap<>();
      r.forEach((k, v) -> row.put(k, v == null ? null : v.toString()));
      rows.put(keyOf(row, key), row);
    }
    return rows;
  }

  private static String keyOf(Map<String, String> row, List<String> key) {
    return Pipeline.keyOf(row, key.toArray(new String[0]));
  }

  /** The table's primary key columns, in key order, from the database's catalog. */
  private static List<String> primaryKey(Pipeline p, String table) throws Exception {
    boolean postgres = p.db.kind() == Kind.POSTGRESQL;
    Map<Integer, String> bySequence = new TreeMap<>();
    try (Connection c = p.connect()) {
      DatabaseMetaData md = c.getMetaData();
      try (ResultSet rs =
          md.getPrimaryKeys(
              postgres ? null : p.db.schema(), postgres ? p.db.schema() : null, table)) {
        while (rs.next()) {
          bySequence.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME"));
        }
      }
    }
    return List.copyOf(bySequence.values());
  }
}

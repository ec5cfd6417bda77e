package io.tablecast.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.client.RowView;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Figure 5 (JMH): a primary-key read from a {@code TableMirror} vs the same read as a JDBC {@code
 * SELECT ... WHERE id = ?} on a HikariCP pooled connection; beside them a typed mirror's get and a
 * generic get that reads three columns of the row, by the map's {@code get(column)} and by the
 * row's typed getters. The trial setup starts a fresh schema, a server and a client; keys are drawn
 * from a fixed pseudo-random sequence.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ReadPathBenchmark {
  static final int ROWS = 10_000;

  @Param({"mariadb", "postgresql"})
  public String db;

  private Rig rig;
  private TableMirror<Map<String, Object>> mirror;
  private TableMirror<BenchTable.Row> typed;
  private HikariDataSource pool;
  private Long[] keys;

  @State(Scope.Thread)
  public static class Cursor {
    int i;
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    rig = Rig.create(Db.parse(db), "reads", ROWS, n -> {});
    rig.startServer();
    TablecastClient client = rig.client("bench-reads");
    mirror = rig.readyMirror(client, Duration.ofSeconds(60));
    typed = client.mirror(rig.table(), BenchTable.Row.class);
    if (!typed.awaitReady(Duration.ofSeconds(60))) {
      throw new IllegalStateException("typed mirror of " + rig.table() + " not ready");
    }
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(rig.schema.jdbcUrl());
    hc.setMaximumPoolSize(4);
    hc.setPoolName("bench-reads");
    pool = new HikariDataSource(hc);
    java.util.Random r = new java.util.Random(42);
    keys = new Long[1 << 14];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = (long) (r.nextInt(ROWS) + 1);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (pool != null) {
      pool.close();
    }
    if (rig != null) {
      rig.close();
    }
  }

  @Benchmark
  public Object mirrorGet(Cursor c) {
    return mirror.get(keys[c.i++ & (keys.length - 1)]);
  }

  /** A typed mirror's get: the record the mirror holds. */
  @Benchmark
  public Object typedMirrorGet(Cursor c) {
    return typed.get(keys[c.i++ & (keys.length - 1)]);
  }

  /** A generic mirror's get and three columns read from the row (name, price, qty). */
  @Benchmark
  public void mirrorGetThreeColumns(Cursor c, Blackhole bh) {
    Map<String, Object> row = mirror.get(keys[c.i++ & (keys.length - 1)]);
    bh.consume(row.get("name"));
    bh.consume(row.get("price"));
    bh.consume(row.get("qty"));
  }

  /**
   * The same three columns by the generic row's typed getters: the name's text, the price as a
   * {@code BigDecimal} (what a caller computes with; {@code get} gives a decimal's text), the
   * quantity as a {@code Long}.
   */
  @Benchmark
  public void mirrorGetThreeTypedColumns(Cursor c, Blackhole bh) {
    RowView row = (RowView) mirror.get(keys[c.i++ & (keys.length - 1)]);
    bh.consume(row.getString("name"));
    bh.consume(row.getDecimal("price"));
    bh.consume(row.getLong("qty"));
  }

  /** The columns' indexes in the table version's rows, taken once, as a caller of them would. */
  @State(Scope.Benchmark)
  public static class ColumnIndexes {
    int name;
    int price;
    int qty;

    @Setup(Level.Trial)
    public void setUp(ReadPathBenchmark b) {
      RowView row = (RowView) b.mirror.get(b.keys[0]);
      name = row.columnIndex("name");
      price = row.columnIndex("price");
      qty = row.columnIndex("qty");
    }
  }

  /** The same three columns by the typed getters by index (indexes taken once). */
  @Benchmark
  public void mirrorGetThreeTypedColumnsByIndex(Cursor c, ColumnIndexes x, Blackhole bh) {
    RowView row = (RowView) mirror.get(keys[c.i++ & (keys.length - 1)]);
    bh.consume(row.getString(x.name));
    bh.consume(row.getDecimal(x.price));
    bh.consume(row.getLong(x.qty));
  }

  @Benchmark
  public void jdbcPkSelect(Cursor c, Blackhole bh) throws SQLException {
    try (Connection conn = pool.getConnection();
        PreparedStatement ps =
            conn.prepareStatement(
                "SELECT id, version, name, price, qty FROM bench_rows WHERE id = ?")) {
      ps.setLong(1, keys[c.i++ & (keys.length - 1)]);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          bh.consume(rs.getLong(1));
          bh.consume(rs.getLong(2));
          bh.consume(rs.getString(3));
          bh.consume(rs.getBigDecimal(4));
          bh.consume(rs.getInt(5));
        }
      }
    }
  }
}

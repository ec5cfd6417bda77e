package io.tablecast.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.client.IndexDefinition;
import io.tablecast.client.MirrorIndex;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
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
 * A secondary-index lookup on a typed mirror of {@code bench_rows} against the same {@code SELECT
 * ... WHERE col = ?} over JDBC (HikariCP, the column indexed in the database too): by the unique
 * {@code name} (one row) and by {@code qty} (100 rows of 10,000). Run it alone with JMH:
 *
 * <pre>
 * java -cp bench/target/tablecast-bench.jar org.openjdk.jmh.Main IndexLookupBenchmark -p db=postgresql
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IndexLookupBenchmark {
  static final int ROWS = 10_000;
  static final String COLUMNS = "SELECT id, version, name, price, qty FROM bench_rows WHERE ";

  @Param({"mariadb", "postgresql"})
  public String db;

  private Rig rig;
  private MirrorIndex<BenchTable.Row> byName;
  private MirrorIndex<BenchTable.Row> byQty;
  private HikariDataSource pool;
  private String[] names;
  private int[] qtys;

  @State(Scope.Thread)
  public static class Cursor {
    int i;
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    rig = Rig.create(Db.parse(db), "indexreads", ROWS, n -> {});
    rig.schema.execute(
        "CREATE INDEX bench_rows_name ON bench_rows (name)",
        "CREATE INDEX bench_rows_qty ON bench_rows (qty)");
    rig.startServer();
    TablecastClient client = rig.client("bench-index-reads");
    TableMirror<BenchTable.Row> typed =
        client.mirror(
            rig.table(),
            BenchTable.Row.class,
            List.of(
                IndexDefinition.hash("by_name", BenchTable.Row::name).unique(),
                IndexDefinition.hash("by_qty", BenchTable.Row::qty)));
    if (!typed.awaitReady(Duration.ofSeconds(60))) {
      throw new IllegalStateException("typed mirror of " + rig.table() + " not ready");
    }
    byName = typed.index("by_name");
    byQty = typed.index("by_qty");
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(rig.schema.jdbcUrl());
    hc.setMaximumPoolSize(4);
    hc.setPoolName("bench-index-reads");
    pool = new HikariDataSource(hc);
    java.util.Random r = new java.util.Random(42);
    names = new String[1 << 14];
    qtys = new int[1 << 14];
    for (int i = 0; i < names.length; i++) {
      names[i] = "row-" + (r.nextInt(ROWS) + 1);
      qtys[i] = r.nextInt(100);
    }
    if (byName.getOne(names[0]) == null || byQty.get(qtys[0]).size() != ROWS / 100) {
      throw new IllegalStateException("the indexes do not find the benchmark's rows");
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

  /** The one row with a name: a unique hash index. */
  @Benchmark
  public Object mirrorIndexGetOne(Cursor c) {
    return byName.getOne(names[c.i++ & (names.length - 1)]);
  }

  /** The 100 rows with a qty: a hash index, 100 rows per key. */
  @Benchmark
  public Object mirrorIndexGetMany(Cursor c) {
    return byQty.get(qtys[c.i++ & (qtys.length - 1)]);
  }

  @Benchmark
  public void jdbcSelectByName(Cursor c, Blackhole bh) throws SQLException {
    select(COLUMNS + "name = ?", names[c.i++ & (names.length - 1)], bh);
  }

  @Benchmark
  public void jdbcSelectByQty(Cursor c, Blackhole bh) throws SQLException {
    select(COLUMNS + "qty = ?", qtys[c.i++ & (qtys.length - 1)], bh);
  }

  private void select(String sql, Object value, Blackhole bh) throws SQLException {
    try (Connection conn = pool.getConnection();
        PreparedStatement ps = conn.prepareStatement(sql)) {
      ps.setObject(1, value);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          bh.consume(
              new BenchTable.Row(
                  rs.getLong(1),
                  rs.getLong(2),
                  rs.getString(3),
                  rs.getBigDecimal(4),
                  rs.getInt(5)));
        }
      }
    }
  }
}

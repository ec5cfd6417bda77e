package io.tablecast.bench;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * Figure 4: a new client mirrors a large table. Measures the server's start (triggers + loading its
 * image of the table), the client's time to a ready mirror (generic rows, then typed records), and
 * heap per row: server image and client mirror, measured as heap after full GC before/after,
 * against the database's own row size.
 */
public final class SnapshotFigure implements Figure {
  record Result(
      Db db,
      long rows,
      double loadSeconds,
      double serverStartSeconds,
      double genericSeconds,
      double typedSeconds,
      double dbRowBytes,
      String dbRowHow,
      double serverBytesPerRow,
      double genericBytesPerRow,
      double typedBytesPerRow) {}

  private final List<Result> results = new ArrayList<>();
  private final List<String> warmLabels = new ArrayList<>();
  private final List<WarmRestartRun.Result> warm = new ArrayList<>();

  @Override
  public String name() {
    return "snapshot";
  }

  @Override
  public double estimateSeconds(Options o) {
    return 20 + o.snapshotRows() / 1_000_000.0 * 120;
  }

  @Override
  public void run(Options o, Db db, Progress progress, Report report) throws Exception {
    long rows = o.snapshotRows();
    String label = db.label() + " snapshot of " + String.format("%,d", rows) + " rows";
    long t0 = System.nanoTime();
    try (Rig rig =
        Rig.create(
            db,
            "snapshot",
            rows,
            n ->
                progress.update(
                    String.format("%s: inserting, %,d of %,d rows", label, n, rows),
                    0.4 * n / rows))) {
      double load = (System.nanoTime() - t0) / 1e9;
      double[] raw = rawRowBytes(rig);
      long heap0 = Machine.heapAfterGc();
      progress.update(label + ": starting the server (loads its image of the table)", 0.45);
      long s0 = System.nanoTime();
      rig.startServer();
      double serverStart = (System.nanoTime() - s0) / 1e9;
      long heap1 = Machine.heapAfterGc();
      double[] generic = mirror(rig, label, "generic", null, rows, progress, 0.5);
      double[] typed = mirror(rig, label, "typed", BenchTable.Row.class, rows, progress, 0.75);
      Result r =
          new Result(
              db,
              rows,
              load,
              serverStart,
              generic[0],
              typed[0],
              raw[0],
              raw[1] == 0 ? "avg_row_length" : "avg(pg_column_size(row))",
              (heap1 - heap0) / (double) rows,
              generic[1] / rows,
              typed[1] / rows);
      results.add(r);
      for (Class<?> type : new Class<?>[] {null, BenchTable.Row.class}) {
        String kind = type == null ? "generic" : "typed";
        progress.update(label + ": " + kind + " mirror restarted from its file", 0.95);
        warm.add(WarmRestartRun.measure(rig, kind, type, rows, progress, label));
        warmLabels.add(db.label());
      }
      progress.note(
          String.format(
              "%s: server start %.1f s, generic mirror ready in %.1f s, typed in %.1f s; bytes/row: "
                  + "database %.0f, server image %.0f, generic mirror %.0f, typed mirror %.0f",
              label,
              serverStart,
              generic[0],
              typed[0],
              r.dbRowBytes,
              r.serverBytesPerRow,
              r.genericBytesPerRow,
              r.typedBytesPerRow));
    }
  }

  /** {seconds to ready, heap bytes held by the mirror}. */
  private static double[] mirror(
      Rig rig,
      String label,
      String kind,
      Class<?> type,
      long rows,
      Progress progress,
      double fractionBase)
      throws Exception {
    long before = Machine.heapAfterGc();
    TablecastClient client = rig.client("bench-snapshot-" + kind);
    long s0 = System.nanoTime();
    TableMirror<?> m = type == null ? client.mirror(rig.table()) : client.mirror(rig.table(), type);
    while (!m.awaitReady(Duration.ofMillis(500))) {
      double t = (System.nanoTime() - s0) / 1e9;
      progress.update(
          String.format(
              "%s: %s mirror loading, %.0f s, heap used %,d MiB",
              label, kind, t, Machine.heapUsed() >> 20),
          fractionBase);
      if (t > 600) {
        throw new IllegalStateException(label + ": " + kind + " mirror not ready after 600 s");
      }
    }
    double secs = (System.nanoTime() - s0) / 1e9;
    if (m.size() != rows) {
      throw new IllegalStateException(
          label + ": mirror has " + m.size() + " rows, expected " + rows);
    }
    long after = Machine.heapAfterGc();
    progress.update(
        String.format("%s: %s mirror ready in %.1f s (%,d rows)", label, kind, secs, m.size()),
        fractionBase + 0.2);
    double held = after - before;
    rig.closeClient(client);
    return new double[] {secs, held};
  }

  /** {bytes per row as the database reports it, 0 = MariaDB / 1 = PostgreSQL}. */
  private static double[] rawRowBytes(Rig rig) throws Exception {
    try (Connection c = rig.schema.connect();
        Statement s = c.createStatement()) {
      if (rig.schema.db().mysqlFamily()) {
        s.execute("ANALYZE TABLE bench_rows");
        try (ResultSet rs =
            s.executeQuery(
                "SELECT avg_row_length FROM information_schema.tables WHERE table_schema = '"
                    + rig.schema.name()
                    + "' AND table_name = 'bench_rows'")) {
          rs.next();
          return new double[] {rs.getDouble(1), 0};
        }
      }
      try (ResultSet rs = s.executeQuery("SELECT avg(pg_column_size(t.*)) FROM bench_rows t")) {
        rs.next();
        return new double[] {rs.getDouble(1), 1};
      }
    }
  }

  @Override
  public void finish(Options o, Report report) {
    if (results.isEmpty()) {
      return;
    }
    Report.Section s = report.section("4. Snapshot of a large table");
    s.text(
        "A table of "
            + String.format("%,d", o.snapshotRows())
            + " rows (`id BIGINT` key, `version BIGINT`, "
            + "`name VARCHAR(32)` ~10 chars, `price DECIMAL(10,2)`, `qty INT`; declared payload ≈ "
            + BenchTable.DECLARED_ROW_BYTES
            + " bytes) is filled before the server starts. **server start** = "
            + "installing triggers and loading the server's in-memory image of the table. **mirror ready** = from "
            + "`client.mirror(...)` to `awaitReady` returning (connect, snapshot over loopback, build the mirror), "
            + "first with generic rows (`Map<String,Object>`), then with a typed record. Bytes per row: heap after "
            + "full GC before/after, divided by rows (server and client share the JVM; each is measured alone). "
            + "The database's size is `avg_row_length` (MariaDB, InnoDB pages included) or "
            + "`avg(pg_column_size(row))` (PostgreSQL, tuple without page overhead).");
    List<List<String>> rows = new ArrayList<>();
    for (Result r : results) {
      rows.add(
          List.of(
              r.db.label(),
              String.format("%,d", r.rows),
              Report.fmt(r.loadSeconds),
              Report.fmt(r.serverStartSeconds),
              Report.fmt(r.genericSeconds),
              Report.fmt(r.rows / r.genericSeconds),
              Report.fmt(r.typedSeconds),
              Report.fmt(r.dbRowBytes),
              Report.fmt(r.serverBytesPerRow),
              Report.fmt(r.genericBytesPerRow),
              Report.fmt(r.typedBytesPerRow),
              Report.fmt(r.genericBytesPerRow / r.dbRowBytes) + "×"));
    }
    s.table(
        List.of(
            "database",
            "rows",
            "fill table s",
            "server start s",
            "generic mirror ready s",
            "rows/s",
            "typed mirror ready s",
            "database bytes/row",
            "server image bytes/row",
            "generic mirror bytes/row",
            "typed mirror bytes/row",
            "generic / database"),
        rows);
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(900)
            .height(500)
            .title("Memory per row")
            .xAxisTitle("database")
            .yAxisTitle("bytes per row")
            .build();
    List<String> x = new ArrayList<>();
    List<Double> dbb = new ArrayList<>();
    List<Double> srv = new ArrayList<>();
    List<Double> gen = new ArrayList<>();
    List<Double> typ = new ArrayList<>();
    for (Result r : results) {
      x.add(r.db.label());
      dbb.add(r.dbRowBytes);
      srv.add(r.serverBytesPerRow);
      gen.add(r.genericBytesPerRow);
      typ.add(r.typedBytesPerRow);
    }
    chart.addSeries("database row", x, dbb);
    chart.addSeries("server image", x, srv);
    chart.addSeries("generic mirror", x, gen);
    chart.addSeries("typed mirror", x, typ);
    s.chart("snapshot-memory", chart);
    warmTable(report);
  }

  private void warmTable(Report report) {
    if (warm.isEmpty()) {
      return;
    }
    Report.Section s = report.section("4b. Warm restart of a client against a fresh snapshot");
    s.text(
        "The same table and server. A client with `warmRestart(dir)` takes a fresh snapshot (timed"
            + " from `mirror(...)` to ready) and is closed (timed: it writes its mirror file); 100 rows"
            + " change; a new client with the same directory creates the mirror: **ready** when"
            + " `mirror(...)` returns (the file read and mapped), **current** once the server resumed"
            + " it and its staleness cleared.");
    List<List<String>> rows = new ArrayList<>();
    for (int i = 0; i < warm.size(); i++) {
      WarmRestartRun.Result w = warm.get(i);
      rows.add(
          List.of(
              warmLabels.get(i),
              w.kind(),
              Report.fmt(w.freshSeconds()),
              Report.fmt(w.closeSeconds()),
              String.format("%,d", w.fileBytes()),
              Report.fmt(w.readySeconds()),
              Report.fmt(w.currentSeconds()),
              w.how()));
    }
    s.table(
        List.of(
            "database",
            "mirror",
            "fresh snapshot: ready s",
            "close with save s",
            "file bytes",
            "from the file: ready s",
            "current s",
            "server"),
        rows);
  }
}

package io.tablecast.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.openjdk.jmh.results.RunResult;

/** Figure 5: runs {@link ReadPathBenchmark} with JMH (one fork) and reports the ratio. */
public final class ReadPathFigure implements Figure {
  record Result(
      Db db,
      double mirrorNs,
      double mirrorErr,
      double jdbcNs,
      double jdbcErr,
      double typedNs,
      double threeColumnsNs,
      double threeTypedColumnsNs) {}

  private final List<Result> results = new ArrayList<>();

  @Override
  public String name() {
    return "reads";
  }

  @Override
  public double estimateSeconds(Options o) {
    int[] it = JmhRuns.iterations(o);
    return 2 * (it[0] + it[1]) + 15;
  }

  @Override
  public void run(Options o, Db db, Progress progress, Report report) throws Exception {
    int[] it = JmhRuns.iterations(o);
    progress.update(db.label() + " read path: JMH fork running (its own output follows)", 0);
    Collection<RunResult> run = JmhRuns.run(ReadPathBenchmark.class, db, it);
    double mirror = Double.NaN;
    double mirrorErr = Double.NaN;
    double jdbc = Double.NaN;
    double jdbcErr = Double.NaN;
    double typed = Double.NaN;
    double threeColumns = Double.NaN;
    double threeTypedColumns = Double.NaN;
    for (RunResult r : run) {
      String label = r.getParams().getBenchmark();
      var p = r.getPrimaryResult();
      if (label.endsWith("mirrorGet")) {
        mirror = p.getScore();
        mirrorErr = p.getScoreError();
      } else if (label.endsWith("jdbcPkSelect")) {
        jdbc = p.getScore();
        jdbcErr = p.getScoreError();
      } else if (label.endsWith("typedMirrorGet")) {
        typed = p.getScore();
      } else if (label.endsWith("mirrorGetThreeColumns")) {
        threeColumns = p.getScore();
      } else if (label.endsWith("mirrorGetThreeTypedColumns")) {
        threeTypedColumns = p.getScore();
      }
    }
    results.add(
        new Result(db, mirror, mirrorErr, jdbc, jdbcErr, typed, threeColumns, threeTypedColumns));
    progress.note(
        String.format(
            "%s read path: mirror.get %.1f ns, JDBC PK SELECT %.0f ns, ratio %.0fx; typed get %.1f"
                + " ns, generic get + three columns %.1f ns (by typed getters %.1f ns)",
            db.label(), mirror, jdbc, jdbc / mirror, typed, threeColumns, threeTypedColumns));
  }

  @Override
  public void finish(Options o, Report report) {
    if (results.isEmpty()) {
      return;
    }
    int[] it = JmhRuns.iterations(o);
    Report.Section s = report.section("5. Read path: TableMirror.get vs a JDBC primary-key SELECT");
    s.text(
        "JMH, average time per operation, 1 fork, 1 thread, "
            + it[0]
            + "×1 s warm-up and "
            + it[1]
            + "×1 s measured iterations (± is JMH's 99.9% error). `mirrorGet` = `TableMirror.get(Long)` on a ready "
            + "generic mirror of "
            + ReadPathBenchmark.ROWS
            + " rows (the same on a typed mirror of records; and a generic get that reads the row's name,"
            + " price and qty, by `get(column)` and by the row's typed getters `getString`, `getDecimal`,"
            + " `getLong`); `jdbcPkSelect` = borrow a HikariCP connection, "
            + "prepare `SELECT id, version, name, price, qty FROM bench_rows WHERE id = ?`, read the row, return the "
            + "connection (loopback, database on the same machine). Random keys.");
    List<List<String>> rows = new ArrayList<>();
    for (Result r : results) {
      rows.add(
          List.of(
              r.db.label(),
              Report.fmt(r.mirrorNs) + " ± " + Report.fmt(r.mirrorErr),
              Report.fmt(r.jdbcNs) + " ± " + Report.fmt(r.jdbcErr),
              String.format("%,.0f×", r.jdbcNs / r.mirrorNs),
              Report.fmt(r.typedNs),
              Report.fmt(r.threeColumnsNs),
              Report.fmt(r.threeTypedColumnsNs)));
    }
    s.table(
        List.of(
            "database",
            "mirror.get ns/op",
            "JDBC PK SELECT ns/op",
            "mirror faster by",
            "typed mirror.get ns/op",
            "generic get + 3 columns ns/op",
            "the same by typed getters ns/op"),
        rows);
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(900)
            .height(500)
            .title("Primary-key read")
            .xAxisTitle("database")
            .yAxisTitle("ns per read (log)")
            .build();
    List<String> x = new ArrayList<>();
    List<Double> m = new ArrayList<>();
    List<Double> j = new ArrayList<>();
    for (Result r : results) {
      x.add(r.db.label());
      m.add(r.mirrorNs);
      j.add(r.jdbcNs);
    }
    chart.addSeries("TableMirror.get", x, m);
    chart.addSeries("JDBC PK SELECT (HikariCP)", x, j);
    Report.logYAxis(chart);
    s.chart("reads", chart);
  }
}

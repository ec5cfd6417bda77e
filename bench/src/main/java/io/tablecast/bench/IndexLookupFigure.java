package io.tablecast.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;

/**
 * Secondary-index lookups on a mirror against the same indexed {@code SELECT ... WHERE col = ?}:
 * runs {@link IndexLookupBenchmark} with JMH (one fork) per database; listed in {@code
 * META-INF/services/io.tablecast.bench.Figure}, so {@code all} runs it and {@code indexreads} names
 * it.
 */
public final class IndexLookupFigure implements Figure {
  private final List<Map.Entry<Db, Map<String, double[]>>> results = new ArrayList<>();

  @Override
  public String name() {
    return "indexreads";
  }

  @Override
  public double estimateSeconds(Options o) {
    int[] it = JmhRuns.iterations(o);
    return 4 * (it[0] + it[1]) + 20;
  }

  @Override
  public void run(Options o, Db db, Progress progress, Report report) throws Exception {
    int[] it = JmhRuns.iterations(o);
    progress.update(db.label() + " index lookups: JMH fork running (its own output follows)", 0);
    Collection<RunResult> run = JmhRuns.run(IndexLookupBenchmark.class, db, it);
    Map<String, double[]> scores = new HashMap<>();
    for (RunResult r : run) {
      String label = r.getParams().getBenchmark();
      var p = r.getPrimaryResult();
      scores.put(
          label.substring(label.lastIndexOf('.') + 1),
          new double[] {p.getScore(), p.getScoreError()});
    }
    results.add(Map.entry(db, scores));
    progress.note(
        String.format(
            "%s index lookups: getOne %.0f ns vs SELECT by name %.0f ns; get (100 rows) %.0f ns vs"
                + " SELECT by qty %.0f ns",
            db.label(),
            score(scores, "mirrorIndexGetOne")[0],
            score(scores, "jdbcSelectByName")[0],
            score(scores, "mirrorIndexGetMany")[0],
            score(scores, "jdbcSelectByQty")[0]));
  }

  private static double[] score(Map<String, double[]> scores, String name) {
    return scores.getOrDefault(name, new double[] {Double.NaN, Double.NaN});
  }

  @Override
  public void finish(Options o, Report report) {
    if (results.isEmpty()) {
      return;
    }
    int[] it = JmhRuns.iterations(o);
    Report.Section s =
        report.section("Secondary-index lookup on a mirror vs the same indexed JDBC SELECT");
    s.text(
        "JMH, average time per operation, 1 fork, 1 thread, "
            + it[0]
            + "×1 s warm-up and "
            + it[1]
            + "×1 s measured iterations (± is JMH's 99.9% error). A typed mirror of "
            + IndexLookupBenchmark.ROWS
            + " rows of bench_rows with a unique hash index on name and a hash index on qty (100"
            + " rows per key), against `SELECT id, version, name, price, qty FROM bench_rows WHERE"
            + " name = ?` (or `qty = ?`) on a HikariCP connection, the column indexed in the"
            + " database too.");
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<Db, Map<String, double[]>> e : results) {
      Map<String, double[]> sc = e.getValue();
      rows.add(
          row(e.getKey(), "one row by a unique key", sc, "mirrorIndexGetOne", "jdbcSelectByName"));
      rows.add(row(e.getKey(), "100 rows by a key", sc, "mirrorIndexGetMany", "jdbcSelectByQty"));
    }
    s.table(
        List.of(
            "database", "lookup", "mirror index ns/op", "JDBC SELECT ns/op", "mirror faster by"),
        rows);
  }

  private static List<String> row(
      Db db, String what, Map<String, double[]> sc, String mirror, String jdbc) {
    double[] m = score(sc, mirror);
    double[] j = score(sc, jdbc);
    return List.of(
        db.label(),
        what,
        Report.fmt(m[0]) + " ± " + Report.fmt(m[1]),
        Report.fmt(j[0]) + " ± " + Report.fmt(j[1]),
        String.format("%,.0f×", j[0] / m[0]));
  }
}

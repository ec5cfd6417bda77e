package io.tablecast.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * Figure 6: write overhead of the capture triggers. Drives {@code
 * bench/sysbench/trigger-overhead.sh} (sysbench {@code oltp_write_only} with and without the
 * triggers, installed and removed by the real CLI, rounds alternating the order) for one database
 * at a time, shows its progress lines and puts its Markdown row into the report.
 */
public final class TriggerOverheadFigure implements Figure {
  static final String SCRIPT = "bench/sysbench/trigger-overhead.sh";

  /** Cells of a result row of the script's table. */
  static final int CELLS = 10;

  static final String CLI_JAR = "cli/target/tablecast.jar";

  /**
   * Cells of the script's table row: database, runs without, runs with, medians, ratio, overhead.
   */
  record Result(Db db, List<String> cells, String setup) {}

  private final List<Result> results = new ArrayList<>();

  @Override
  public String name() {
    return "triggers";
  }

  @Override
  public double estimateSeconds(Options o) {
    return 25
        + Math.min(10, o.sysbenchSeconds())
        + o.sysbenchRounds() * 2.0 * (o.sysbenchSeconds() + 3);
  }

  @Override
  public void run(Options o, Db db, Progress progress, Report report) throws Exception {
    Path root = repoRoot();
    Path script = root.resolve(SCRIPT);
    Path cli = root.resolve(CLI_JAR);
    if (!Files.isRegularFile(cli)) {
      throw new IllegalStateException(cli + " not found: build with ./mvnw -q -DskipTests package");
    }
    String name = db.mysqlFamily() ? "mariadb" : "postgresql";
    Path out = o.out().toAbsolutePath().resolve("trigger-overhead-" + name + ".md");
    ProcessBuilder pb =
        new ProcessBuilder(
                "bash",
                script.toString(),
                "--dbs",
                name,
                "--time",
                Integer.toString(o.sysbenchSeconds()),
                "--rounds",
                Integer.toString(o.sysbenchRounds()),
                "--out",
                out.toString())
            .directory(root.toFile());
    pb.environment().put("TABLECAST_JAR", cli.toString());
    Process p = pb.start();
    List<String> errLines = new ArrayList<>();
    Thread errPump = new Thread(() -> pump(p, errLines, progress, db, o), "bench-sysbench-stderr");
    errPump.setDaemon(true);
    errPump.start();
    String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int rc = p.waitFor();
    errPump.join(5_000);
    if (rc != 0) {
      List<String> tail;
      synchronized (errLines) {
        tail = errLines.subList(Math.max(0, errLines.size() - 8), errLines.size());
      }
      throw new IllegalStateException(
          SCRIPT + " exited with " + rc + ": " + String.join(" / ", tail));
    }
    results.add(parse(db, name, stdout));
    Result r = results.get(results.size() - 1);
    progress.note(
        String.format(
            "%s trigger overhead: TPS without %s, with %s, with/without %s (overhead %s)",
            db.label(), r.cells.get(3), r.cells.get(4), r.cells.get(5), r.cells.get(6)));
  }

  private static void pump(Process p, List<String> lines, Progress progress, Db db, Options o) {
    int runs = 0;
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        synchronized (lines) {
          lines.add(line);
        }
        if (line.contains(" round ")) {
          runs++;
        }
        if (line.startsWith("[trigger-overhead")) {
          progress.update(
              db.label() + " sysbench: " + line.substring(line.indexOf(']') + 1).trim(),
              Math.min(1, runs / (2.0 * o.sysbenchRounds())));
        }
      }
    } catch (IOException e) {
      synchronized (lines) {
        lines.add("reading the script's output failed: " + e);
      }
    }
  }

  static Result parse(Db db, String name, String stdout) {
    String setup = "";
    for (String line : stdout.split("\n", -1)) {
      if (line.startsWith("sysbench ")) {
        setup = line.trim();
      }
      if (line.startsWith("| " + name + " |")) {
        List<String> cells =
            Arrays.stream(line.split("\\|")).map(String::trim).filter(c -> !c.isEmpty()).toList();
        // 10 cells since the script reports CPU per transaction too; 7 from older scripts
        if (cells.size() == 7 || cells.size() == CELLS) {
          return new Result(db, cells, setup);
        }
      }
    }
    throw new IllegalStateException(
        SCRIPT + " printed no result row for " + name + "; output was: " + stdout);
  }

  /**
   * The repository root: from this class's jar ({@code bench/target/...}), else the working
   * directory.
   */
  static Path repoRoot() {
    List<Path> candidates = new ArrayList<>();
    try {
      Path code =
          Path.of(
              TriggerOverheadFigure.class
                  .getProtectionDomain()
                  .getCodeSource()
                  .getLocation()
                  .toURI());
      if (code.getParent() != null && code.getParent().getParent() != null) {
        candidates.add(
            code.getParent().getParent().getParent()); // <root>/bench/target/x.jar or .../classes
      }
    } catch (Exception e) {
      // no code source: fall back to the working directory
    }
    candidates.add(Path.of("").toAbsolutePath());
    for (Path c : candidates) {
      if (c != null && Files.isRegularFile(c.resolve(SCRIPT))) {
        return c;
      }
    }
    throw new IllegalStateException(
        SCRIPT + " not found from " + candidates + ": run from the repository root");
  }

  @Override
  public void finish(Options o, Report report) {
    if (results.isEmpty()) {
      return;
    }
    Report.Section s =
        report.section("6. Write overhead of the triggers (sysbench oltp_write_only)");
    s.text(
        "`"
            + SCRIPT
            + "` runs sysbench `oltp_write_only` against the benchmark's own database instances, in a "
            + "database `sbtest` of its own: one unrecorded warm-up run, then "
            + o.sysbenchRounds()
            + " rounds of "
            + o.sysbenchSeconds()
            + " s with and "
            + o.sysbenchSeconds()
            + " s without the capture triggers (alternating "
            + "which goes first); the triggers and the "
            + "outbox are installed and removed with the real CLI (`tablecast install|uninstall`), so every run with "
            + "triggers starts from an empty outbox. No Tablecast server runs: this is the cost of the triggers alone. "
            + "Target: with/without ≥ 0.90 (overhead under 10 %).");
    for (Result r : results) {
      if (!r.setup.isEmpty()) {
        s.text(r.db.label() + ": " + r.setup);
        break;
      }
    }
    List<List<String>> rows = new ArrayList<>();
    for (Result r : results) {
      List<String> row = new ArrayList<>(r.cells);
      row.set(0, r.db.label());
      while (row.size() < CELLS) {
        row.add("-");
      }
      rows.add(row);
    }
    s.table(
        List.of(
            "database",
            "TPS without (runs)",
            "TPS with (runs)",
            "median without",
            "median with",
            "with / without",
            "overhead",
            "CPU µs/tx without",
            "CPU µs/tx with",
            "CPU ratio"),
        rows);
    s.text(
        "CPU µs/tx: CPU time of the database server (all its processes) and of sysbench per "
            + "transaction, medians; CPU ratio = without / with, what the TPS ratio would be on a "
            + "CPU-bound machine of our own (TPS on shared cores swings with the neighbours' load).");
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(900)
            .height(500)
            .title("Trigger write overhead (sysbench)")
            .xAxisTitle("database")
            .yAxisTitle("median TPS")
            .build();
    List<String> x = new ArrayList<>();
    List<Double> without = new ArrayList<>();
    List<Double> with = new ArrayList<>();
    for (Result r : results) {
      x.add(r.db.label());
      without.add(number(r.cells.get(3)));
      with.add(number(r.cells.get(4)));
    }
    chart.addSeries("without triggers", x, without);
    chart.addSeries("with triggers", x, with);
    s.chart("trigger-overhead", chart);
  }

  private static double number(String s) {
    try {
      return Double.parseDouble(s.replace(",", "").trim().toLowerCase(Locale.ROOT));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}

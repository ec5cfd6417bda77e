package io.tablecast.bench;

/**
 * One figure of the suite, run once per database. Built-in figures are listed in {@link BenchMain};
 * more can be added without editing the runner by listing their class in {@code
 * META-INF/services/io.tablecast.bench.Figure}: they then run in {@code all} and by name.
 */
public interface Figure {
  /** Short name used on the command line, e.g. {@code latency}. */
  String name();

  /** Roughly how long {@link #run} takes for one database, seconds (for progress and ETA). */
  double estimateSeconds(Options options);

  /** Measures on {@code db}, printing progress, and adds its results to the report. */
  void run(Options options, Db db, Progress progress, Report report) throws Exception;

  /** Called once after every database ran: a place to add cross-database tables and charts. */
  default void finish(Options options, Report report) {}
}

package io.tablecast.bench;

import java.io.PrintStream;

/**
 * Progress on stdout while the suite runs: which figure and step, the step's detail (rate, rows
 * loaded...), % of the suite done and an ETA. The plan is the sum of the figures' estimated
 * durations; the ETA rescales the remaining estimate by how fast the run has gone so far.
 */
public final class Progress {
  private final PrintStream out;
  private final long startNanos = System.nanoTime();
  private double totalEstimate;
  private double doneEstimate;
  private double doneActual;
  private String figure = "";
  private double stepEstimate;
  private long stepStartNanos;
  private long lastPrintNanos;
  private double lastFraction;
  private double partFrom;
  private double partTo = 1;

  public Progress(PrintStream out, double totalEstimateSeconds) {
    this.out = out;
    this.totalEstimate = Math.max(1, totalEstimateSeconds);
  }

  /** Starts a figure step that should take about {@code estimateSeconds}. */
  public synchronized void begin(String figure, double estimateSeconds) {
    this.figure = figure;
    this.stepEstimate = estimateSeconds;
    this.stepStartNanos = System.nanoTime();
    this.lastFraction = 0;
    this.partFrom = 0;
    this.partTo = 1;
    print("started", 0, true);
  }

  /**
   * The step's next part runs from fraction {@code from} to {@code to} of it: the fractions its
   * {@link #update}s give (0 to 1) are mapped there, so a figure made of several measurements shows
   * one progress.
   */
  public synchronized void part(double from, double to) {
    this.partFrom = from;
    this.partTo = to;
  }

  /**
   * Reports {@code detail} with the step {@code fraction} done; printed at most every 2 s unless
   * forced.
   */
  public synchronized void update(String detail, double fraction) {
    print(detail, fraction, false);
  }

  public synchronized void note(String detail) {
    print(detail, -1, true);
  }

  public synchronized void end(String detail) {
    part(0, 1);
    print(detail, 1, true);
    doneEstimate += stepEstimate;
    doneActual += (System.nanoTime() - stepStartNanos) / 1e9;
    if (doneEstimate > totalEstimate) {
      totalEstimate = doneEstimate;
    }
  }

  private void print(String detail, double fraction, boolean force) {
    long now = System.nanoTime();
    if (!force && now - lastPrintNanos < 2_000_000_000L) {
      return;
    }
    lastPrintNanos = now;
    double elapsed = (now - startNanos) / 1e9;
    double stepDone =
        fraction < 0 ? lastFraction : Math.min(1, partFrom + (partTo - partFrom) * fraction);
    lastFraction = stepDone;
    double done = Math.min(0.999, (doneEstimate + stepDone * stepEstimate) / totalEstimate);
    double speed =
        doneEstimate > 0 ? doneActual / doneEstimate : 1; // actual seconds per estimated second
    double remaining =
        Math.max(
            0, (totalEstimate - doneEstimate - stepDone * stepEstimate) * Math.max(0.5, speed));
    out.printf(
        "[%s] %-34s %s | suite %3.0f%% done, ETA %s%n",
        duration(elapsed),
        figure,
        fraction >= 0 ? detail + String.format(" (step %.0f%%)", stepDone * 100) : detail,
        done * 100,
        duration(remaining));
    out.flush();
  }

  public static String duration(double seconds) {
    long s = Math.round(seconds);
    return s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : s + "s";
  }

  public double elapsedSeconds() {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}

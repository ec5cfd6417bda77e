package io.tablecast.bench;

import org.HdrHistogram.Histogram;

/** HdrHistogram helpers: nanosecond histograms read in milliseconds. */
final class Hist {
  private Hist() {}

  static Histogram nanos() {
    return new Histogram(java.util.concurrent.TimeUnit.MINUTES.toNanos(10), 3);
  }

  static double ms(Histogram h, double percentile) {
    return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e6;
  }

  static double maxMs(Histogram h) {
    return h.getTotalCount() == 0 ? Double.NaN : h.getMaxValue() / 1e6;
  }
}

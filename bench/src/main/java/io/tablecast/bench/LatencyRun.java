package io.tablecast.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * One measurement of figure 1: an {@link OpenLoopWriter} updates single rows (autocommit) at a
 * fixed rate on the subject's schema; the subject reports when each version became visible in its
 * in-JVM copy. The same code measures Tablecast and Debezium, so their rows compare. Each run's
 * samples are written to {@code OUT/latency-samples/}.
 */
final class LatencyRun {
  static final int KEYS = 10_000;
  static final int MIN_WRITERS = 4;
  static final int MAX_WRITERS = 32;

  /**
   * The first second of writes, reported on its own: operations due less than this long after the
   * writers' start, on a subject just started (its JIT still cold). They are part of the warm-up.
   */
  static final long FIRST_SECOND_NANOS = 1_000_000_000L;

  /**
   * @param cpu CPU used during the measured seconds (JVM threads by group, process, machine)
   * @param firstSecond the operations due in the first second after the writers started
   */
  record Result(
      Db db,
      String system,
      int rate,
      double achieved,
      long samples,
      long missing,
      Histogram fromIntended,
      Histogram fromCommit,
      Histogram write,
      ThreadCpu.Usage cpu,
      FirstSecond firstSecond) {}

  /**
   * Commit→visible latency of the operations due in the first second after the writers started, and
   * how many of them committed but were never seen.
   */
  record FirstSecond(Histogram fromCommit, long missing) {
    long samples() {
      return fromCommit.getTotalCount();
    }
  }

  private LatencyRun() {}

  /**
   * Writer connections for a rate: 4, more at high rates (one per 300 changes/s, at most 32) so
   * that commit latency alone does not cap the rate when the database could go faster.
   */
  static int writers(int rate) {
    return Math.max(MIN_WRITERS, Math.min(MAX_WRITERS, rate / 300));
  }

  static Result measure(Options o, LatencySubject subject, int rate, Progress progress)
      throws Exception {
    Db db = subject.schema().db();
    long warmupOps = (long) rate * o.warmupSeconds();
    long total = warmupOps + (long) rate * o.measureSeconds();
    OpenLoopWriter w = new OpenLoopWriter(subject.schema(), writers(rate), rate, total, 1, KEYS);
    long[] visible = new long[(int) total];
    AtomicLong seen = new AtomicLong();
    AutoCloseable sub =
        subject.onVisible(
            (version, now) -> {
              long i = version - 1;
              if (i >= 0 && i < visible.length && visible[(int) i] == 0) {
                visible[(int) i] = now;
                seen.incrementAndGet();
              }
            });
    String label = db.label() + " " + subject.system() + " latency @" + rate + "/s";
    ThreadCpu cpu = new ThreadCpu();
    ThreadCpu.Usage usage = null;
    try {
      w.start();
      double phase = o.warmupSeconds() + o.measureSeconds();
      boolean measuring = false;
      while (w.done.get() < total && w.failure.get() == null) {
        subject.check();
        double t = (System.nanoTime() - w.t0) / 1e9;
        if (!measuring && t >= o.warmupSeconds()) {
          measuring = true;
          cpu.start();
        }
        if (t > phase * 3 + 30) {
          break; // writers cannot keep up at all; report what was achieved
        }
        progress.update(
            String.format(
                "%s: %.0f s of %.0f s, committed %,d of %,d (%.0f/s), visible %,d",
                label,
                Math.max(0, t),
                phase,
                w.done.get(),
                total,
                w.done.get() / Math.max(0.001, t),
                seen.get()),
            Math.min(1, t / phase));
        Thread.sleep(250);
      }
      if (measuring) {
        usage = cpu.stop();
      }
      w.stop();
      w.join(10_000);
      w.check();
      long committedOps = w.done.get();
      long deadline = System.nanoTime() + 15_000_000_000L;
      while (seen.get() < committedOps && System.nanoTime() < deadline) {
        subject.check();
        Thread.sleep(20);
      }
    } finally {
      sub.close();
    }
    Histogram fromIntended = Hist.nanos();
    Histogram fromCommit = Hist.nanos();
    Histogram write = Hist.nanos();
    long samples = 0;
    long missing = 0;
    long firstDue = Long.MAX_VALUE;
    long lastCommit = 0;
    long measuredCommitted = 0;
    for (int i = (int) warmupOps; i < total; i++) {
      if (w.committed[i] == 0) {
        continue; // never ran (writers stopped)
      }
      measuredCommitted++;
      firstDue = Math.min(firstDue, w.intended[i]);
      lastCommit = Math.max(lastCommit, w.committed[i]);
      write.recordValue(Math.max(0, w.committed[i] - w.intended[i]));
      if (visible[i] == 0) {
        missing++;
        continue;
      }
      samples++;
      fromIntended.recordValue(Math.max(0, visible[i] - w.intended[i]));
      fromCommit.recordValue(Math.max(0, visible[i] - w.committed[i]));
    }
    FirstSecond first = firstSecond(w.t0, w.intended, w.committed, visible);
    writeSamples(o, subject, rate, w, visible, (int) warmupOps, (int) total);
    double achieved = measuredCommitted / Math.max(1e-9, (lastCommit - firstDue) / 1e9);
    progress.note(
        String.format(
            "%s: achieved %.0f/s, commit->visible p50 %.2f ms p99 %.2f ms p99.9 %.2f ms; "
                + "intended->visible p99 %.2f ms (%d samples, %d not seen); "
                + "first second p99 %.2f ms max %.2f ms (%d not seen); JVM CPU %s%s",
            label,
            achieved,
            Hist.ms(fromCommit, 50),
            Hist.ms(fromCommit, 99),
            Hist.ms(fromCommit, 99.9),
            Hist.ms(fromIntended, 99),
            samples,
            missing,
            Hist.ms(first.fromCommit(), 99),
            Hist.maxMs(first.fromCommit()),
            first.missing(),
            usage == null ? "n/a" : ThreadCpu.pct(usage.process()),
            subject.note()));
    return new Result(
        db,
        subject.system(),
        rate,
        achieved,
        samples,
        missing,
        fromIntended,
        fromCommit,
        write,
        usage,
        first);
  }

  /**
   * Selects the operations due in the first second after the writers started ({@code intended[i] -
   * t0 < 1 s}) that committed: their commit→visible latency, and the count of those not visible.
   * Arrays as {@link OpenLoopWriter} fills them (0 = did not happen), {@code visible} indexed
   * alike.
   */
  static FirstSecond firstSecond(long t0, long[] intended, long[] committed, long[] visible) {
    Histogram fromCommit = Hist.nanos();
    long missing = 0;
    for (int i = 0; i < committed.length; i++) {
      if (committed[i] == 0 || intended[i] - t0 >= FIRST_SECOND_NANOS) {
        continue; // never committed, or due later
      }
      if (visible[i] == 0) {
        missing++;
      } else {
        fromCommit.recordValue(Math.max(0, visible[i] - committed[i]));
      }
    }
    return new FirstSecond(fromCommit, missing);
  }

  /**
   * Every measured change as a CSV line, for looking at when the slow ones happened (a periodic
   * pause, a GC): {@code OUT/latency-samples/DB-SYSTEM-RATE.csv}, seconds since the writers started
   * at commit, and commit to visible in ms.
   */
  private static void writeSamples(
      Options o,
      LatencySubject subject,
      int rate,
      OpenLoopWriter w,
      long[] visible,
      int from,
      int to)
      throws IOException {
    Path dir = o.out().resolve("latency-samples");
    Files.createDirectories(dir);
    String name = subject.schema().db().label() + "-" + subject.system() + "-" + rate + ".csv";
    try (BufferedWriter out = Files.newBufferedWriter(dir.resolve(name.replace(' ', '_')))) {
      out.write("committed_s,commit_to_visible_ms\n");
      for (int i = from; i < to; i++) {
        if (w.committed[i] != 0 && visible[i] != 0) {
          out.write(
              String.format(
                  Locale.ROOT,
                  "%.6f,%.3f%n",
                  (w.committed[i] - w.t0) / 1e9,
                  (visible[i] - w.committed[i]) / 1e6));
        }
      }
    }
  }
}

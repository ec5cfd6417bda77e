package io.tablecast.server.progress;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Progress of long work (a snapshot, an install on many tables, a dump): a line with the count, the
 * rate and, when the total is known, the share done and the time left.
 *
 * <pre>
 * snapshot: 412,000 rows, 52,100 rows/s, public.orders (2 of 5 tables)
 * install: 120/400 statements (30%), 41 statements/s, ETA 7s
 * </pre>
 *
 * <p>Where it goes is {@link Output}, from the system property {@value #OUTPUT_PROPERTY}, which
 * {@code bin/tablecast} sets: a line redrawn in place on standard error when that is a terminal
 * ({@code terminal}, first after {@link #TERMINAL_DELAY}, so that short work shows nothing), else a
 * log line at INFO every {@link #LOG_INTERVAL} ({@code log}, the default), or nothing ({@code
 * off}). Counting is a lock-free add, cheap enough for every row; a daemon thread draws the line.
 */
public final class Progress implements AutoCloseable {

  /** The system property that chooses the {@link Output}: terminal, log or off. */
  public static final String OUTPUT_PROPERTY = "tablecast.progress";

  /**
   * The system property with the milliseconds work runs before its first line ({@link
   * #TERMINAL_DELAY} on a terminal, {@link #LOG_INTERVAL} in logs); 0 shows a line at once.
   */
  public static final String DELAY_PROPERTY = "tablecast.progress.delay_ms";

  /**
   * The system property with the milliseconds between lines ({@link #TERMINAL_INTERVAL} on a
   * terminal, {@link #LOG_INTERVAL} in logs).
   */
  public static final String INTERVAL_PROPERTY = "tablecast.progress.interval_ms";

  /** How long work runs before the terminal line appears. */
  public static final Duration TERMINAL_DELAY = Duration.ofSeconds(1);

  /** How often the terminal line is redrawn. */
  public static final Duration TERMINAL_INTERVAL = Duration.ofMillis(250);

  /** How often a log line is written while the work goes on. */
  public static final Duration LOG_INTERVAL = Duration.ofSeconds(10);

  /** Where progress is shown. */
  public enum Output {
    /** A line on standard error, redrawn in place. */
    TERMINAL,
    /** An INFO line of the caller's logger at intervals. */
    LOG,
    /** Nowhere. */
    OFF;

    /** The output the system property asks for; {@link #LOG} when unset or unknown. */
    public static Output configured() {
      String value = System.getProperty(OUTPUT_PROPERTY, "log").trim().toUpperCase(Locale.ROOT);
      for (Output o : values()) {
        if (o.name().equals(value)) {
          return o;
        }
      }
      return LOG;
    }
  }

  private final String task;
  private final String unit;
  private final Output output;
  private final LongSupplier nanoTime;
  private final Consumer<String> terminal;
  private final Consumer<String> log;
  private final long startNanos;
  private final AtomicLong done = new AtomicLong();
  private final AtomicBoolean shown = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile long total;
  private volatile String detail;
  private volatile LongSupplier doneSource;
  private volatile LongSupplier totalSource;
  private ScheduledExecutorService ticker;
  private ScheduledFuture<?> drawing;

  Progress(
      String task,
      String unit,
      long total,
      Output output,
      LongSupplier nanoTime,
      Consumer<String> terminal,
      Consumer<String> log) {
    this.task = task;
    this.unit = unit;
    this.total = total;
    this.output = output;
    this.nanoTime = nanoTime;
    this.terminal = terminal;
    this.log = log;
    this.startNanos = nanoTime.getAsLong();
  }

  /**
   * Starts showing progress of {@code task} (counted in {@code unit}, e.g. "rows") where {@link
   * Output#configured()} says; log lines go to {@code logger}.
   *
   * @param total how many units the work holds, or a negative number when unknown
   */
  public static Progress start(String task, String unit, long total, Logger logger) {
    Output output = Output.configured();
    PrintStream err = System.err;
    Progress p =
        new Progress(
            task,
            unit,
            total,
            output,
            System::nanoTime,
            s -> {
              err.print(s);
              err.flush();
            },
            line -> logger.info("{}", line));
    p.startTicker();
    return p;
  }

  private void startTicker() {
    if (output == Output.OFF) {
      return;
    }
    ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tablecast-progress");
              t.setDaemon(true);
              return t;
            });
    boolean onTerminal = output == Output.TERMINAL;
    long every = millis(INTERVAL_PROPERTY, onTerminal ? TERMINAL_INTERVAL : LOG_INTERVAL);
    long first = millis(DELAY_PROPERTY, onTerminal ? TERMINAL_DELAY : Duration.ofMillis(every));
    if (first == 0) {
      tick(); // before the work starts, whatever its length
    }
    drawing =
        ticker.scheduleAtFixedRate(
            this::tick, first == 0 ? every : first, every, TimeUnit.MILLISECONDS);
  }

  /** A system property in milliseconds (at least 1 for an interval), or the default. */
  private static long millis(String property, Duration byDefault) {
    String value = System.getProperty(property);
    try {
      long ms = value == null ? byDefault.toMillis() : Long.parseLong(value.trim());
      return property.equals(INTERVAL_PROPERTY) ? Math.max(1, ms) : Math.max(0, ms);
    } catch (NumberFormatException e) {
      return byDefault.toMillis();
    }
  }

  /** Counts {@code units} more done. */
  public void advance(long units) {
    done.addAndGet(units);
  }

  /**
   * Reads the count and the total from these instead of {@link #advance} and {@link #total} (e.g.
   * the rows a client received of a snapshot and the rows announced); a negative total: unknown.
   */
  public void countFrom(LongSupplier done, LongSupplier total) {
    this.doneSource = done;
    this.totalSource = total;
  }

  /** Sets the total once known (or when it changes); negative: unknown. */
  public void total(long units) {
    this.total = units;
  }

  /** What is being worked on now, shown after the counts (e.g. a table's name); null: nothing. */
  public void detail(String text) {
    this.detail = text;
  }

  /** The units done so far. */
  public long done() {
    LongSupplier source = doneSource;
    return source != null ? source.getAsLong() : done.get();
  }

  /** Draws the line once: redrawn on a terminal, logged otherwise. */
  void tick() {
    if (closed.get()) {
      return;
    }
    String line = line(nanoTime.getAsLong());
    if (output == Output.TERMINAL) {
      shown.set(true);
      // the cursor goes back to the line's start: a log line written meanwhile overwrites the
      // progress line instead of being glued to its end, and the next draw comes below it
      terminal.accept("\r" + line + "\033[K\r");
    } else if (output == Output.LOG) {
      log.accept(line);
    }
  }

  /**
   * The progress line now without its {@link #detail}: counts and rates only, for anyone who asks
   * (a starting server's {@code /health} names no table).
   */
  public String counts() {
    return line(nanoTime.getAsLong(), false);
  }

  /** The progress line now, with its {@link #detail}, as it is drawn or logged. */
  public String line() {
    return line(nanoTime.getAsLong());
  }

  /** The progress line at {@code nowNanos}. */
  String line(long nowNanos) {
    return line(nowNanos, true);
  }

  private String line(long nowNanos, boolean withDetail) {
    long n = done();
    LongSupplier totalFrom = totalSource;
    long all = totalFrom != null ? totalFrom.getAsLong() : total;
    double seconds = Math.max(1e-9, (nowNanos - startNanos) / 1e9);
    double rate = n / seconds;
    StringBuilder b = new StringBuilder(task).append(": ").append(count(n));
    if (all >= 0) {
      b.append('/').append(count(all)).append(' ').append(unit);
      b.append(" (").append(all == 0 ? 100 : Math.min(100, n * 100 / all)).append("%)");
    } else {
      b.append(' ').append(unit);
    }
    b.append(", ").append(count(Math.round(rate))).append(' ').append(unit).append("/s");
    if (all >= 0 && n < all) {
      b.append(", ETA ").append(rate > 0 ? duration((all - n) / rate) : "?");
    }
    String d = withDetail ? detail : null;
    if (d != null) {
      b.append(", ").append(d);
    }
    return b.toString();
  }

  /**
   * Stops drawing. On a terminal that showed the line, it is replaced by a last one with the count
   * and the time taken, and the cursor moves to the next line.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (ticker != null) {
      drawing.cancel(false);
      ticker.shutdownNow();
      try {
        ticker.awaitTermination(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (shown.get()) {
      terminal.accept("\r" + summary(nanoTime.getAsLong()) + "\033[K\n");
    }
  }

  /** The last line: what was done, in how long. */
  String summary(long nowNanos) {
    long n = done();
    double seconds = Math.max(1e-9, (nowNanos - startNanos) / 1e9);
    return task
        + ": "
        + count(n)
        + ' '
        + unit
        + " in "
        + duration(seconds)
        + " ("
        + count(Math.round(n / seconds))
        + ' '
        + unit
        + "/s)";
  }

  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** 7s, 3m05s, 2h01m. */
  static String duration(double seconds) {
    long s = Math.round(seconds);
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
  }
}

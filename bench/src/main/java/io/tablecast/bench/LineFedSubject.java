package io.tablecast.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Tablecast in figure 1 seen through a client outside this JVM ({@link ExternalClient}: {@code
 * tablecast watch}, the JavaScript client in Node or in a browser): the server as in {@link
 * TablecastSubject}, and a client process whose lines ({@link VersionLine}) reach the bench on its
 * standard output or, from the browser, over {@link VersionWebSocketEndpoint}. A version is visible
 * at the {@code System.nanoTime()} when the bench has read its line, so the way out of the client
 * (pipe or WebSocket) is included; the lines that carry the client's own clock ({@code at}) also
 * measure that way out ({@link #note}).
 */
final class LineFedSubject implements LatencySubject {
  private static final int STDERR_LINES_KEPT = 30;

  private final String system;
  private final Rig rig;
  private final List<Process> processes = new ArrayList<>();
  private final List<AutoCloseable> closeWith = new ArrayList<>();
  private final Deque<String> stderrTail = new ArrayDeque<>();
  private final CountDownLatch ready = new CountDownLatch(1);
  private final AtomicReference<String> failure = new AtomicReference<>();
  private final Histogram wayOut = Hist.nanos();
  private volatile VisibleListener listener;
  private volatile boolean closing;

  LineFedSubject(String system, Rig rig) {
    this.system = system;
    this.rig = rig;
  }

  /**
   * A fresh schema, the server (set up for the client) and the client, returned once the client
   * said its mirror is ready.
   */
  static LineFedSubject start(Db db, int keys, ExternalClient client, Duration readyWithin)
      throws IOException, InterruptedException {
    Rig rig = Rig.create(db, "latency_" + client.name().toLowerCase(Locale.ROOT), keys, n -> {});
    LineFedSubject s = new LineFedSubject(client.label(), rig);
    try {
      rig.startServer(client::configureServer);
      client.launch(rig, s);
      s.awaitReady(readyWithin);
      return s;
    } catch (IOException | InterruptedException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /**
   * Starts {@code command}; its standard output carries lines when {@code linesOnStdout}, and a
   * line of its standard error starting with {@code readyOnStderr} (when not null) marks it ready.
   * Killed, with the processes it started, on {@link #close}.
   */
  void follow(ProcessBuilder command, boolean linesOnStdout, String readyOnStderr)
      throws IOException {
    String name = command.command().get(0);
    Process p = command.start();
    processes.add(p);
    Thread stderr =
        daemon(
            name + "-stderr",
            () ->
                readLines(
                    p.getErrorStream(),
                    line -> {
                      keepStderr(line);
                      if (readyOnStderr != null && line.startsWith(readyOnStderr)) {
                        ready.countDown();
                      }
                    }));
    daemon(
        name + "-stdout",
        () -> {
          readLines(
              p.getInputStream(),
              line -> {
                if (linesOnStdout) {
                  accept(line, System.nanoTime());
                } else {
                  keepStderr(line);
                }
              });
          if (!closing) {
            String code = exitCode(p);
            try {
              stderr.join(2000);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            fail(name + " exited early" + code + "; its last output: " + stderrTail());
          }
        });
  }

  /** Closes {@code part} (an endpoint, a directory) with this subject, before the server. */
  <T extends AutoCloseable> T closeWith(T part) {
    closeWith.add(part);
    return part;
  }

  /** One line from the client, read at {@code nanoTime}. */
  void accept(String line, long nanoTime) {
    long nowMicros = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    VersionLine v;
    try {
      v = VersionLine.parse(line);
    } catch (IllegalArgumentException e) {
      fail(system + ": " + e.getMessage());
      return;
    }
    if (v.ready()) {
      ready.countDown();
      return;
    }
    VisibleListener l = listener;
    if (l != null) {
      l.visible(v.version(), nanoTime);
    }
    if (!Double.isNaN(v.emittedAtMillis())) {
      long delayNanos = Math.max(0, (nowMicros - Math.round(v.emittedAtMillis() * 1000)) * 1000);
      synchronized (wayOut) {
        wayOut.recordValue(Math.min(delayNanos, wayOut.getHighestTrackableValue()));
      }
    }
  }

  void awaitReady(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (!ready.await(100, TimeUnit.MILLISECONDS)) {
      check();
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            system + ": no ready mark within " + within + "; its last output: " + stderrTail());
      }
    }
    check();
  }

  @Override
  public String system() {
    return system;
  }

  @Override
  public Db.Schema schema() {
    return rig.schema;
  }

  @Override
  public AutoCloseable onVisible(VisibleListener l) {
    listener = l;
    return () -> listener = null;
  }

  @Override
  public void check() {
    String f = failure.get();
    if (f != null) {
      throw new IllegalStateException(f);
    }
  }

  /** The way out of the client (its clock at the change listener → the bench read the line). */
  @Override
  public String note() {
    synchronized (wayOut) {
      if (wayOut.getTotalCount() == 0) {
        return "";
      }
      return String.format(
          Locale.ROOT,
          "; way out of the client (its listener -> bench read it, wall clocks) p50 %.2f ms"
              + " p99 %.2f ms (%d lines)",
          Hist.ms(wayOut, 50),
          Hist.ms(wayOut, 99),
          wayOut.getTotalCount());
    }
  }

  @Override
  public void close() {
    closing = true;
    for (Process p : processes) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    for (Process p : processes) {
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (AutoCloseable c : closeWith) {
      try {
        c.close();
      } catch (Exception e) {
        throw new IllegalStateException(system + ": cannot close " + c + ": " + e, e);
      }
    }
    if (rig != null) { // null: a client alone, as in LineFedSubjectTest
      rig.close();
    }
  }

  private void fail(String why) {
    failure.compareAndSet(null, why);
  }

  private void keepStderr(String line) {
    synchronized (stderrTail) {
      if (stderrTail.size() == STDERR_LINES_KEPT) {
        stderrTail.removeFirst();
      }
      stderrTail.addLast(line);
    }
  }

  private String stderrTail() {
    synchronized (stderrTail) {
      return stderrTail.isEmpty() ? "(none)" : String.join(" | ", stderrTail);
    }
  }

  private static String exitCode(Process p) {
    try {
      return p.waitFor(2, TimeUnit.SECONDS) ? " with code " + p.exitValue() : "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  private static void readLines(InputStream in, java.util.function.Consumer<String> each) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        each.accept(line);
      }
    } catch (IOException e) {
      // the process was killed
    }
  }

  private static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
    return t;
  }
}

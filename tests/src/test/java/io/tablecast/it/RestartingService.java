package io.tablecast.it;

import io.tablecast.client.ConnectionListener;
import io.tablecast.client.TablecastClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A service that restarts again and again, each run a new client with warm restart started from the
 * files the run before left: after a clean close (which saves them), or after a crash (the files
 * copied at a random moment while the run served, saving every second, into a directory the next
 * run starts from). Counts what its runs saw, as their connection listener.
 */
final class RestartingService implements ConnectionListener {

  /** Opens a run's mirrors on its new client; what it returns is the run's. */
  interface Mirrors<R> {
    R open(TablecastClient client, Path files) throws Exception;
  }

  /** A run: its client and what {@link Mirrors#open} returned. */
  record Run<R>(TablecastClient client, R mirrors) {}

  private final String name;
  private final Path dir;
  private final Random random;
  final AtomicInteger fromFiles = new AtomicInteger();
  final AtomicInteger crashes = new AtomicInteger();
  final AtomicInteger resumed = new AtomicInteger();
  final AtomicInteger resumedFromFiles = new AtomicInteger();
  final AtomicInteger resnapshotted = new AtomicInteger();

  /** Set when a run starts from files, until its first connection resumed or took a snapshot. */
  private final AtomicBoolean startedFromFiles = new AtomicBoolean();

  /** {@code dir}: where its runs keep their files; {@code random}: how long each serves. */
  RestartingService(String name, Path dir, Random random) {
    this.name = name;
    this.dir = dir;
    this.random = random;
  }

  /**
   * Runs the service through {@code address} until {@code stop}, each run serving 0.5-2.5 s;
   * returns the last run, still open.
   */
  <R> Run<R> run(String address, AtomicBoolean stop, Mirrors<R> mirrors) throws Exception {
    Path files = dir.resolve(name + "-0");
    for (int generation = 1; ; generation++) {
      try (Stream<Path> saved = Files.exists(files) ? Files.list(files) : Stream.empty()) {
        boolean any = saved.findAny().isPresent();
        startedFromFiles.set(any);
        if (any) {
          fromFiles.incrementAndGet();
        }
      }
      TablecastClient client =
          TablecastClient.builder()
              .servers(address)
              .clientName(name)
              .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
              .warmRestart(files, Duration.ofSeconds(1)) // the shortest interval
              .connectionListener(this)
              .build();
      Run<R> run = new Run<>(client, mirrors.open(client, files));
      Thread.sleep(500 + random.nextInt(2000)); // serving, saving every second
      if (stop.get()) {
        return run;
      }
      if (random.nextBoolean()) { // a crash: the next run finds the files as they are now
        Path copy = dir.resolve(name + "-" + generation);
        Files.createDirectories(copy);
        Files.createDirectories(files); // a run that crashed before its first save wrote none
        try (Stream<Path> saved = Files.list(files)) {
          for (Path f : saved.filter(f -> f.toString().endsWith(".mirror")).toList()) {
            Files.copy(f, copy.resolve(f.getFileName()));
          }
        }
        crashes.incrementAndGet();
        client.close(); // saves to the old directory, which no run reads again
        files = copy;
      } else {
        client.close(); // saves the mirrors
      }
    }
  }

  @Override
  public void resumed(List<String> tables, long position) {
    resumed.incrementAndGet();
    if (startedFromFiles.getAndSet(false)) {
      resumedFromFiles.incrementAndGet();
    }
  }

  @Override
  public void resnapshotted(String table, int inserted, int updated, int deleted) {
    resnapshotted.incrementAndGet();
    startedFromFiles.set(false);
  }

  @Override
  public String toString() {
    return String.format(
        "%s: %d runs from files (%d after a crash, %d resumed from them), %d resumes, %d tables"
            + " compared with a snapshot",
        name,
        fromFiles.get(),
        crashes.get(),
        resumedFromFiles.get(),
        resumed.get(),
        resnapshotted.get());
  }
}

package io.tablecast.bench;

import io.tablecast.client.ConnectionListener;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * Part of figure 4: a client restarted with {@code warmRestart} against the same client taking a
 * fresh snapshot, in one run on one table. A client with a state directory takes the fresh snapshot
 * (timed), closes (timed: it saves its mirror), the table changes (100 rows), and a new client with
 * the same directory creates the mirror: timed to ready (read from the file) and to up to date (the
 * server resumed it and the resume's status came).
 */
final class WarmRestartRun {
  private static final Duration LIMIT = Duration.ofMinutes(10);

  /**
   * @param kind generic or typed
   * @param freshSeconds from {@code mirror(...)} to ready by a fresh snapshot
   * @param closeSeconds closing that client, which saves its mirror
   * @param fileBytes the mirror file's size
   * @param readySeconds from {@code mirror(...)} to ready from the file (it returns ready)
   * @param currentSeconds from {@code mirror(...)} to up to date (resumed, not stale)
   * @param how what the server did: resumed, or a resnapshot
   */
  record Result(
      String kind,
      double freshSeconds,
      double closeSeconds,
      long fileBytes,
      double readySeconds,
      double currentSeconds,
      String how) {}

  private WarmRestartRun() {}

  static Result measure(
      Rig rig, String kind, Class<?> type, long rows, Progress progress, String label)
      throws Exception {
    Path dir = Files.createTempDirectory("tablecast-bench-warm");
    try {
      TablecastClient first = client(rig, dir, kind, null);
      long t0 = System.nanoTime();
      TableMirror<?> m = mirror(first, rig, type);
      if (!m.awaitReady(LIMIT)) {
        throw new IllegalStateException(label + ": " + kind + " mirror not ready");
      }
      double fresh = seconds(t0);
      long c0 = System.nanoTime();
      first.close();
      double close = seconds(c0);
      long fileBytes;
      try (Stream<Path> files = Files.list(dir)) {
        fileBytes = files.mapToLong(WarmRestartRun::size).sum();
      }
      try (Connection c = rig.schema.connect();
          Statement s = c.createStatement()) {
        s.executeUpdate("UPDATE bench_rows SET version = version + 1 WHERE id <= 100");
      }
      AtomicReference<String> how = new AtomicReference<>();
      TablecastClient second = client(rig, dir, kind, how);
      try {
        long r0 = System.nanoTime();
        TableMirror<?> again = mirror(second, rig, type);
        double ready = again.isReady() ? seconds(r0) : Double.NaN;
        long deadline = r0 + LIMIT.toNanos();
        while (again.staleReason() != null || how.get() == null) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(label + ": restored " + kind + " mirror not current");
          }
          Thread.onSpinWait();
        }
        double current = seconds(r0);
        if (again.size() != rows) {
          throw new IllegalStateException(
              label + ": restored mirror has " + again.size() + " rows, expected " + rows);
        }
        progress.note(
            String.format(
                "%s: %s mirror fresh snapshot %.2f s; restarted from its file (%,d bytes): ready in"
                    + " %.2f s, current in %.2f s (%s); close with save %.2f s",
                label, kind, fresh, fileBytes, ready, current, how.get(), close));
        return new Result(kind, fresh, close, fileBytes, ready, current, how.get());
      } finally {
        second.close();
      }
    } finally {
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(dir);
    }
  }

  private static TableMirror<?> mirror(TablecastClient client, Rig rig, Class<?> type) {
    return type == null ? client.mirror(rig.table()) : client.mirror(rig.table(), type);
  }

  private static TablecastClient client(
      Rig rig, Path dir, String kind, AtomicReference<String> how) {
    return TablecastClient.builder()
        .servers(rig.address())
        .clientName("bench-warm-" + kind)
        .warmRestart(dir, Duration.ofHours(1))
        .connectionListener(
            new ConnectionListener() {
              @Override
              public void resumed(List<String> tables, long position) {
                if (how != null) {
                  how.compareAndSet(null, "resumed");
                }
              }

              @Override
              public void resnapshotted(String table, int inserted, int updated, int deleted) {
                if (how != null) {
                  how.compareAndSet(null, "resnapshot ~" + updated);
                }
              }
            })
        .build();
  }

  private static long size(Path p) {
    try {
      return Files.size(p);
    } catch (java.io.IOException e) {
      return 0;
    }
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}

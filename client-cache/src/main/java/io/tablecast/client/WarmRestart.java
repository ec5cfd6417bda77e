package io.tablecast.client;

import io.tablecast.client.internal.HeapRoom;
import io.tablecast.client.internal.MirrorFile;
import io.tablecast.client.internal.ServerSession;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Saves a client's mirrors to files in one directory, on a schedule and when the client closes, so
 * that a restarted client starts from them ({@link TablecastClient.Builder#warmRestart}). The rows
 * and position of every mirror are taken together on the connection's event loop (a copy of the row
 * references, no row is copied) and written by a thread of their own, one file per mirror, each
 * replaced in one step.
 */
final class WarmRestart implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WarmRestart.class);

  /** How long {@link #close()} waits for the event loop to hand over the rows. */
  private static final Duration TAKE_TIMEOUT = Duration.ofSeconds(30);

  private final Path directory;
  private final Duration saveEvery;
  private final HeapRoom heap;
  private final int reservePercent;
  private ServerSession session;
  private ClientListeners listeners;
  private ScheduledExecutorService saver;

  /** {@code heap} less {@code reservePercent} of it: what a file may take when it is read. */
  WarmRestart(Path directory, Duration saveEvery, HeapRoom heap, int reservePercent) {
    this.directory = directory;
    this.saveEvery = saveEvery;
    this.heap = heap;
    this.reservePercent = reservePercent;
  }

  /** Where the mirror of {@code table} with rows of {@code rowType} is saved. */
  MirrorPersistence.Place place(String table, Class<?> rowType, MirrorShape shape) {
    String type = rowType == Map.class ? "rows" : rowType.getName();
    // a shaped mirror's file is its shape's own: rows of another shape are never loaded into it
    String shaped = shape == null ? "" : "@" + Integer.toHexString(shape.hashCode());
    return new MirrorPersistence.Place(
        directory.resolve(safe(table) + "@" + safe(type) + shaped + ".mirror"),
        heap,
        reservePercent);
  }

  /** A file name part: letters, digits, {@code . _ -} kept, anything else {@code _}. */
  private static String safe(String name) {
    StringBuilder out = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      out.append(
          (Character.isLetterOrDigit(c) && c < 128) || c == '.' || c == '_' || c == '-' ? c : '_');
    }
    return out.toString();
  }

  /** Starts saving every {@code saveEvery}. */
  @SuppressWarnings("FutureReturnValueIgnored") // saveQuietly reports its own failures
  void start(ServerSession serverSession, ClientListeners clientListeners, String clientName) {
    this.session = serverSession;
    this.listeners = clientListeners;
    saver =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tablecast-mirror-saver-" + clientName);
              t.setDaemon(true);
              return t;
            });
    long every = saveEvery.toMillis();
    saver.scheduleWithFixedDelay(this::saveQuietly, every, every, TimeUnit.MILLISECONDS);
  }

  private void saveQuietly() {
    try {
      save();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.warn("saving the mirrors failed", e);
    }
  }

  /** Takes the rows of every mirror held whole and writes their files. */
  void save() throws InterruptedException {
    List<MirrorFile.ToWrite> writes;
    try {
      writes = session.mirrorsToSave().get(TAKE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      log.warn("mirrors not saved: their rows could not be taken ({})", e.toString());
      return;
    }
    for (MirrorFile.ToWrite w : writes) {
      long start = System.nanoTime();
      try {
        MirrorFile.write(w.file(), w.header(), w.rows());
        log.info(
            "mirror of {} saved to {}: {} rows at position {} in {} ms",
            w.header().table(),
            w.file(),
            w.rows().count(),
            w.header().position(),
            (System.nanoTime() - start) / 1_000_000);
      } catch (Exception e) { // IOException, or a row that cannot be written
        String problem = "the mirror was not saved (the previous file is kept): " + e;
        log.warn("{} ({}): {}", w.header().table(), w.file(), problem);
        listeners.mirrorFileFailed(w.header().table(), w.file(), problem);
      }
    }
  }

  /** Stops the schedule and saves once more; call before the session closes. */
  @Override
  public void close() {
    if (saver == null || saver.isShutdown()) {
      return;
    }
    saver.shutdownNow();
    try {
      saver.awaitTermination(TAKE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      save();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("interrupted: the mirrors were not saved at close");
    }
  }
}

package io.tablecast.server.tail;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.progress.Progress;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * The tail's first read: every table whole from the source ({@link ChangeSource#snapshot}), its
 * progress logged and shown ({@link #progress}), its images sized against the heap as the rows come
 * ({@link ImageSizeCheck}), who holds a lock it waits for said ({@link SnapshotLockWatch}), and
 * each table's rows and time logged once installed. Tail thread, but for {@link #progress}.
 */
final class InitialSnapshot {
  private static final Logger LOG = RecentEvents.logger(InitialSnapshot.class);

  private final ChangeSource source;
  private final TailSink sink;

  /** The heap the snapshot's images are sized against, and the share kept for serving. */
  private final HeapRoom heap;

  private final int heapReservePercent;

  /**
   * The sizing of the snapshot being loaded, to name its table if the heap runs out all the same.
   */
  private volatile ImageSizeCheck sizing;

  /** The snapshot's progress while it is read; null before and after. */
  private volatile Progress loading;

  InitialSnapshot(ChangeSource source, TailSink sink, HeapRoom heap, int heapReservePercent) {
    this.source = source;
    this.sink = sink;
    this.heap = heap;
    this.heapReservePercent = heapReservePercent;
  }

  /** The progress while the snapshot is read, counts only (no table named); null otherwise. */
  String progress() {
    Progress p = loading;
    return p == null ? null : p.counts();
  }

  /**
   * What to say of the heap running out while the snapshot was read: the table it was reading and
   * the heap it needs, when the sizing knows; {@code e} itself otherwise.
   */
  Throwable outOfMemory(OutOfMemoryError e) {
    ImageSizeCheck s = sizing;
    sizing = null;
    return s != null ? s.outOfMemory(e) : e;
  }

  /**
   * Reads every table whole into the sink's images and installs them; returns the tables' names.
   *
   * @throws HeapTooSmallException when the images would not leave the heap's reserve free
   */
  List<String> read() throws SQLException {
    List<TableSchema> tables = source.tables();
    TailSink.SnapshotLoad load = sink.snapshotLoad(tables);
    ImageSizeCheck check = new ImageSizeCheck(heap, heapReservePercent, tables, load);
    sizing = check;
    IdentityHashMap<TableSchema, TableLoad> loads = new IdentityHashMap<>(); // no name per row
    long start = System.nanoTime();
    try (Progress progress = Progress.start("snapshot", "rows", -1, LOG);
        SnapshotLockWatch locks = SnapshotLockWatch.start(source, progress::done)) {
      loading = progress;
      source.snapshot(
          new ChangeSource.SnapshotSink() {
            private TableLoad current;

            @Override
            public void sizes(List<TableSize> sizes) {
              check.sizes(sizes);
            }

            @Override
            public void reading(TableSchema table) {
              locks.reading(table);
            }

            @Override
            @SuppressWarnings(
                "ReferenceEquality") // the source's own schema: rows come table by table
            public void row(TableSchema table, byte[] row) {
              TableLoad load = current;
              if (load == null || load.table != table) {
                long now = System.nanoTime(); // once a table, not once a row
                if (load != null) {
                  load.endingBy(now); // the rows come table by table
                }
                load = loads.get(table);
                if (load == null) {
                  load = new TableLoad(table, now);
                  loads.put(table, load);
                  progress.detail(
                      table.id().qualified()
                          + " ("
                          + loads.size()
                          + " of "
                          + tables.size()
                          + " tables)");
                }
                current = load;
              }
              load.rows++;
              progress.advance(1);
              check.row(table, row);
            }
          });
    }
    sizing = null;
    loading = null;
    long end = System.nanoTime();
    Map<String, TableLoad> byName = new HashMap<>();
    loads.values().forEach(l -> byName.put(l.table.id().qualified(), l.endingBy(end)));
    List<String> names = new ArrayList<>();
    for (TableSchema t : tables) {
      String name = t.id().qualified();
      names.add(name);
      TableLoad l = byName.getOrDefault(name, new TableLoad(t, start).endingBy(start));
      LOG.info(
          "snapshot of {} {} of {} in {} ms",
          l.rows,
          l.rows == 1 ? "row" : "rows",
          name,
          TimeUnit.NANOSECONDS.toMillis(l.last - l.first));
    }
    LOG.info(
        "initial snapshot of {} tables loaded in {} ms",
        tables.size(),
        TimeUnit.NANOSECONDS.toMillis(end - start));
    load.install();
    return names;
  }

  /** One table's part of a snapshot: when its first row came, when it ended, how many rows. */
  private static final class TableLoad {
    final TableSchema table;
    final long first;

    /** When the next table's first row came (or the read ended): no clock read a row. */
    long last;

    boolean ended;

    long rows;

    TableLoad(TableSchema table, long first) {
      this.table = table;
      this.first = first;
    }

    /** This, ending at {@code end} unless it ended before (the next table's first row came). */
    TableLoad endingBy(long end) {
      if (!ended) {
        last = end;
        ended = true;
      }
      return this;
    }
  }
}

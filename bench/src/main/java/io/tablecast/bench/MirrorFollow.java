package io.tablecast.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.tablecast.client.ChangeType;
import io.tablecast.client.Subscription;
import io.tablecast.client.TableMirror;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.HdrHistogram.Histogram;

/**
 * {@code MirrorOnce --follow}: a mirror that holds a big table, following changes. Writers in the
 * same JVM update one row per transaction at a fixed rate on an open-loop schedule ({@link
 * OpenLoopWriter}, keys spread over the whole table), each setting {@code version} to its
 * operation's number; the mirror's listener marks when each becomes visible. Reported: commit to
 * visible (p50, p99, p99.9, max; the first third of the run left out as the JIT's warm-up) and the
 * garbage collector's pauses that began during the run (count, p99, max, total), the two costs a
 * big mirror might add to a service's latency.
 */
final class MirrorFollow {
  /** A prime that no benchmark table's row count is a multiple of: spreads keys over the table. */
  private static final long STRIDE = 1_000_003;

  private MirrorFollow() {}

  static String run(TableMirror<?> mirror, String jdbcUrl, double rate, int seconds)
      throws Exception {
    int ops = (int) (rate * seconds);
    long[] visible = new long[ops];
    Subscription sub =
        mirror.addListener(
            e -> {
              if (e.op() == ChangeType.DELETE) {
                return;
              }
              long i = version(e.newRow()) - 1;
              if (i >= 0 && i < ops && visible[(int) i] == 0) {
                visible[(int) i] = System.nanoTime();
              }
            });
    GcPauses pauses = new GcPauses();
    OpenLoopWriter w =
        new OpenLoopWriter(new Db.Schema(null, "big", jdbcUrl), 2, rate, ops, 1, mirror.size())
            .keyStride(STRIDE);
    try {
      w.start();
      w.join((seconds + 30) * 1000L);
      w.check();
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (visible[ops - 1] == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    } finally {
      sub.close();
      pauses.close();
    }
    Histogram fromCommit = Hist.nanos();
    long missing = 0;
    for (int i = ops / 3; i < ops; i++) { // the first third is the JIT's warm-up
      if (w.committed[i] == 0 || visible[i] == 0) {
        missing++;
      } else {
        fromCommit.recordValue(Math.max(0, visible[i] - w.committed[i]));
      }
    }
    return String.format(
        Locale.ROOT,
        "follow: %,d changes at %.0f/s over %,d rows, commit -> visible p50 %.2f p99 %.2f p99.9"
            + " %.2f max %.2f ms (%d not seen); GC pauses %s",
        ops,
        rate,
        mirror.size(),
        Hist.ms(fromCommit, 50),
        Hist.ms(fromCommit, 99),
        Hist.ms(fromCommit, 99.9),
        Hist.maxMs(fromCommit),
        missing,
        pauses);
  }

  private static long version(Object row) {
    if (row instanceof BenchTable.Row r) {
      return r.version();
    }
    return ((Number) ((Map<?, ?>) row).get("version")).longValue();
  }

  /** The collector's pauses from its creation to {@link #close}, as its beans report them. */
  private static final class GcPauses implements NotificationListener, AutoCloseable {
    private final ConcurrentLinkedQueue<Long> millis = new ConcurrentLinkedQueue<>();
    private final List<NotificationEmitter> emitters = new ArrayList<>();

    /**
     * The JVM's uptime when counting began: a collection that began before is left out, since the
     * collector's notifications come later, from another thread, and one of a pause before the
     * listener was added may still reach it.
     */
    private final long fromUptimeMillis = ManagementFactory.getRuntimeMXBean().getUptime();

    GcPauses() {
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        if (gc instanceof NotificationEmitter emitter) {
          emitter.addNotificationListener(this, null, null);
          emitters.add(emitter);
        }
      }
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
      if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
        GarbageCollectionNotificationInfo info =
            GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        if (!info.getGcName().contains("Concurrent") // a concurrent cycle does not pause
            && info.getGcInfo().getStartTime() >= fromUptimeMillis) {
          millis.add(info.getGcInfo().getDuration());
        }
      }
    }

    @Override
    public void close() throws ListenerNotFoundException {
      for (NotificationEmitter e : emitters) {
        e.removeNotificationListener(this);
      }
    }

    @Override
    public String toString() {
      long[] sorted = millis.stream().mapToLong(Long::longValue).sorted().toArray();
      if (sorted.length == 0) {
        return "0, p99 0 max 0 total 0 ms";
      }
      long total = 0;
      for (long m : sorted) {
        total += m;
      }
      return String.format(
          Locale.ROOT,
          "%d, p99 %d max %d total %d ms",
          sorted.length,
          sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)],
          sorted[sorted.length - 1],
          total);
    }
  }
}

package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Reads of the outbox that stay slow for what they return are said, with the database's plan when
 * the family can read it, and every read's time is a timer: the tail's latency faults found so far
 * (PostgreSQL JIT-compiling every read once the outbox held a million rows) showed only as the
 * changes' latency, which nothing in the server measured.
 */
class SlowReadsTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

  @Test
  void aWindowOfSlowReadsOfFewRowsIsSaidOnceEveryTenMinutesWhileItLasts() {
    SlowReads slow = new SlowReads();
    long now = 0;
    for (int i = 1; i < SlowReads.WINDOW; i++) {
      assertThat(slow.read(60 * MS, 3, now += 60 * MS)).isNull();
    }
    assertThat(slow.read(60 * MS, 3, now += 60 * MS))
        .contains("the last 128 took 60 ms each (median) and returned 3 changes each")
        .contains("tablecast_tail_read_time_seconds");
    assertThat(window(slow, 60 * MS, 3, now += MINUTE)).as("said a minute ago").isNull();
    assertThat(window(slow, 60 * MS, 3, now += 10 * MINUTE)).as("ten minutes later").isNotNull();
  }

  @Test
  void fastReadsAndReadsOfManyRowsAreNotSlow() {
    SlowReads slow = new SlowReads();
    assertThat(window(slow, 9 * MS, 3, 0)).as("under 10 ms").isNull();
    assertThat(window(slow, 2 * MS, 3, 0)).isNull();
    assertThat(window(slow, 25 * MS, 1_000, 0)).as("under 10 ms + 20 µs a change").isNull();
    assertThat(window(slow, 400 * MS, 20_000, 0)).as("a bulk update's rows").isNull();
    assertThat(window(new SlowReads(), 18 * MS, 5, 0))
        .as("a read that JIT-compiles itself")
        .isNotNull();
    // half of the window slow: the median read is fast
    for (int i = 0; i < SlowReads.WINDOW / 2 + 1; i++) {
      slow.read(MS, 3, 0);
    }
    assertThat(window(slow, 90 * MS, 3, 0)).as("the window's median after 65 fast reads").isNull();
    assertThat(window(slow, 90 * MS, 3, 0)).as("a whole window slow").isNotNull();
  }

  @Test
  void aTailWhoseReadsStaySlowTimesEveryReadAndWarns() throws Exception {
    PollScheduleTest.FakeTicker ticker = new PollScheduleTest.FakeTicker();
    MicrometerServerMetrics metrics = MicrometerServerMetrics.inMemory();
    long warnings = slowReadWarnings();
    try (PollScheduleTest.ScriptedSource source =
        new PollScheduleTest.ScriptedSource(ticker, 1, 10, Duration.ofSeconds(1), metrics)) {
      source.onRead = () -> ticker.now += 70 * MS;
      for (int i = 0; i < SlowReads.WINDOW; i++) {
        source.poll(Duration.ZERO);
      }
    }
    Timer reads = metrics.registry().find("tablecast.tail.read.time").timer();
    assertThat(reads.count()).isEqualTo(SlowReads.WINDOW);
    assertThat(reads.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(70.0 * SlowReads.WINDOW);
    assertThat(slowReadWarnings() - warnings).isEqualTo(1);
    assertThat(
            RecentEvents.global().newestFirst().stream()
                .filter(e -> e.message().startsWith("Reads of the outbox"))
                .findFirst()
                .orElseThrow()
                .message())
        .startsWith("Reads of the outbox are slow: the last 128 took 70 ms each")
        .contains("Look at the database's load");
  }

  /** As many reads as a window holds; what they said, if anything. */
  private static String window(SlowReads slow, long nanos, int rows, long now) {
    String said = null;
    for (int i = 0; i < SlowReads.WINDOW; i++) {
      String s = slow.read(nanos, rows, now);
      said = said == null ? s : said;
    }
    return said;
  }

  private static long slowReadWarnings() {
    return RecentEvents.global().newestFirst().stream()
        .filter(e -> e.level().equals("WARN") && e.message().startsWith("Reads of the outbox"))
        .count();
  }
}

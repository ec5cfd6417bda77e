package io.tablecast.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private static final long MS = 1_000_000L;

  /** Always draws the top of the range it is asked for, and records the range. */
  private static final class TopOfRange implements RandomGenerator {
    final List<Long> bounds = new ArrayList<>();

    @Override
    public long nextLong() {
      throw new AssertionError("the backoff must draw from a bounded range, not nextLong()");
    }

    @Override
    public long nextLong(long bound) {
      bounds.add(bound);
      return bound - 1;
    }
  }

  private static List<Long> delaysMillis(Backoff b, int n) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(b.nextDelayNanos() / MS);
    }
    return out;
  }

  @Test
  void upperBoundDoublesFromTheMinimumUpToTheCap() {
    TopOfRange random = new TopOfRange();
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5), random);
    assertThat(delaysMillis(b, 9))
        .containsExactly(100L, 200L, 400L, 800L, 1600L, 3200L, 5000L, 5000L, 5000L);
    // each delay is drawn from the whole range [0, bound]: full jitter
    assertThat(random.bounds.get(0)).isEqualTo(100 * MS + 1);
  }

  @Test
  void capHoldsForeverWithoutOverflow() {
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5), new TopOfRange());
    List<Long> delays = delaysMillis(b, 1000);
    assertThat(delays).allSatisfy(d -> assertThat(d).isBetween(0L, 5000L));
    assertThat(delays.subList(6, 1000)).containsOnly(5000L);
    Backoff huge = new Backoff(Duration.ofDays(1), Duration.ofDays(365), new TopOfRange());
    assertThat(delaysMillis(huge, 100))
        .allSatisfy(d -> assertThat(d).isBetween(0L, Duration.ofDays(365).toMillis()));
  }

  @Test
  void resetStartsAgainFromTheMinimum() {
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5), new TopOfRange());
    delaysMillis(b, 5);
    b.reset();
    assertThat(delaysMillis(b, 2)).containsExactly(100L, 200L);
  }

  @Test
  void delaysAreSpreadOverTheWholeRange() {
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));
    delaysMillis(b, 10); // at the cap from here on
    LongSummaryStatistics atCap = new LongSummaryStatistics();
    for (int i = 0; i < 2000; i++) {
      atCap.accept(b.nextDelayNanos());
    }
    long cap = 5000 * MS;
    assertThat(atCap.getMin()).isBetween(0L, cap / 10);
    assertThat(atCap.getMax()).isBetween(cap * 9 / 10, cap);
    assertThat(atCap.getAverage())
        .isBetween(0.4 * cap, 0.6 * cap); // uniform: mean cap/2, sd of the mean ~0.007 cap

    LongSummaryStatistics first = new LongSummaryStatistics();
    for (int i = 0; i < 2000; i++) {
      b.reset();
      first.accept(b.nextDelayNanos());
    }
    assertThat(first.getMin()).isBetween(0L, 10 * MS);
    assertThat(first.getMax()).isBetween(90 * MS, 100 * MS);
  }
}

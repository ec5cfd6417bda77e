package io.tablecast.client.internal;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/** Capped exponential backoff with full jitter: a uniform delay in [0, min(max, min * 2^n)]. */
final class Backoff {
  private final long minNanos;
  private final long maxNanos;
  private final RandomGenerator random;
  private int attempt;

  Backoff(Duration min, Duration max) {
    this(min, max, null);
  }

  /** With {@code random} null, each draw uses the calling thread's {@link ThreadLocalRandom}. */
  Backoff(Duration min, Duration max, RandomGenerator random) {
    this.minNanos = min.toNanos();
    this.maxNanos = max.toNanos();
    this.random = random;
  }

  /** The delay before the next attempt, growing with each call until {@link #reset()}. */
  long nextDelayNanos() {
    long cap = capNanos(attempt);
    attempt = Math.min(attempt + 1, 31);
    RandomGenerator r = random != null ? random : ThreadLocalRandom.current();
    return cap <= 0 ? 0 : r.nextLong(cap + 1);
  }

  /** The upper bound of the delay drawn at attempt {@code n} (0-based): min(max, min * 2^n). */
  long capNanos(int n) {
    int shift = Math.min(n, 30);
    long cap = minNanos << shift;
    if (cap < 0 || (cap >> shift) != minNanos || cap > maxNanos) {
      cap = maxNanos;
    }
    return cap;
  }

  void reset() {
    attempt = 0;
  }
}

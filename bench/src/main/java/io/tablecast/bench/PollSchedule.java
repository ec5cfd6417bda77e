package io.tablecast.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * A poll schedule of the server's tail ({@code source.min_poll_interval}, {@code
 * max_poll_interval}, {@code poll_idle_after}), null parts taking the product's defaults.
 *
 * @param name as given on the command line: {@code default}, {@code backoff} (1 ms doubling to 10
 *     ms after every empty poll: the schedule before issue 14) or a number of ms (a fixed pause)
 */
record PollSchedule(String name, Duration min, Duration max, Duration idleAfter) {
  static final PollSchedule DEFAULT = new PollSchedule("default", null, null, null);

  static PollSchedule parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("default")) {
      return DEFAULT;
    }
    if (t.equals("backoff")) {
      return new PollSchedule(t, Duration.ofMillis(1), Duration.ofMillis(10), Duration.ZERO);
    }
    try {
      Duration every = Duration.ofMillis(Long.parseLong(t));
      return new PollSchedule(t + "ms", every, every, Duration.ZERO);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "poll schedule '" + text + "': use default, backoff or a number of ms", e);
    }
  }
}

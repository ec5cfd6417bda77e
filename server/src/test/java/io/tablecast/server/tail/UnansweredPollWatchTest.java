package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A poll is told as unanswered once, only after its time, and never once it returned; as still
 * unanswered then and every {@link UnansweredPollWatch#askAgainMillis()} after, until it returns.
 */
class UnansweredPollWatchTest {

  @Test
  void aPollIsToldOnceWhenItHasGoneTooLongAndNeverAfterItReturned() {
    List<Long> told = new CopyOnWriteArrayList<>();
    try (UnansweredPollWatch watch = new UnansweredPollWatch(60_000, told::add, () -> {})) {
      watch.check(System.currentTimeMillis() + 120_000);
      assertThat(told).as("no poll in progress").isEmpty();

      watch.pollStarted();
      long started = System.currentTimeMillis();
      watch.check(started + 30_000);
      assertThat(told).as("not long enough yet").isEmpty();
      watch.check(started + 61_000);
      watch.check(started + 62_000);
      assertThat(told).hasSize(1);
      assertThat(told.get(0)).isBetween(started - 1_000, started);

      watch.pollEnded();
      watch.check(started + 200_000);
      assertThat(told).as("returned").hasSize(1);

      watch.pollStarted();
      watch.check(System.currentTimeMillis() + 61_000);
      assertThat(told).as("the next poll, told again").hasSize(2);
    }
  }

  @Test
  void anUnansweredPollIsAskedAboutThenAndAtEveryIntervalUntilItReturns() {
    AtomicInteger asked = new AtomicInteger();
    try (UnansweredPollWatch watch =
        new UnansweredPollWatch(60_000, since -> {}, asked::incrementAndGet)) {
      long again = watch.askAgainMillis();
      assertThat(again).as("half the time a poll may go unanswered").isEqualTo(30_000);
      watch.pollStarted();
      long started = System.currentTimeMillis();
      watch.check(started + 30_000);
      assertThat(asked).as("not unanswered yet").hasValue(0);
      watch.check(started + 61_000);
      assertThat(asked).as("when told unanswered").hasValue(1);
      watch.check(started + 61_000 + again - 1);
      assertThat(asked).as("not due again yet").hasValue(1);
      watch.check(started + 61_000 + again);
      assertThat(asked).as("due again").hasValue(2);

      watch.pollEnded();
      watch.check(started + 200_000);
      assertThat(asked).as("returned").hasValue(2);
    }
  }
}

package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A server that holds another's pruning back at one position for over a minute is named in a WARN,
 * once; one that moves on, or is not behind, is not.
 */
class PruningHoldTest {
  private final AtomicLong nanos = new AtomicLong();
  private final PruningHold hold = new PruningHold(nanos::get);

  private void pass(long seconds) {
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
  }

  @Test
  void aServerStuckBehindForOverAMinuteIsNamedOnce() {
    Registrations.Need stuck = new Registrations.Need(100, "server 'b' on host-2");
    assertThat(hold.observe(stuck, 500)).isNull();
    pass(59);
    assertThat(hold.observe(stuck, 600)).isNull();
    pass(2);
    assertThat(hold.observe(stuck, 700))
        .contains("server 'b' on host-2")
        .contains("position 100")
        .contains("the outbox grows");
    pass(60);
    assertThat(hold.observe(stuck, 800)).as("said once").isNull();
    assertThat(hold.observe(null, 800)).isNull(); // it stopped: no longer held back
    assertThat(hold.observe(stuck, 800)).isNull(); // back: the minute starts again
    pass(61);
    assertThat(hold.observe(stuck, 800)).isNotNull();
  }

  @Test
  void aServerThatMovesOnOrIsNotBehindIsNotNamed() {
    for (int i = 0; i < 20; i++) { // behind, but a little further every 10 s
      assertThat(hold.observe(new Registrations.Need(100 + i, "server 'b' on h"), 500)).isNull();
      pass(10);
    }
    for (int i = 0; i < 20; i++) { // at this server's own position: not holding it back
      assertThat(hold.observe(new Registrations.Need(500, "server 'b' on h"), 500)).isNull();
      pass(10);
    }
  }
}

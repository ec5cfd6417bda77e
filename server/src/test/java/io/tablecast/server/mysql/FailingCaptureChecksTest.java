package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.tablecast.server.mysql.FailingCaptureChecks.Schedule;
import io.tablecast.server.tail.CommittedBatch.Staleness;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The MySQL/MariaDB capture check failing round after round while the tail reads on makes every
 * table stale, and followed again once both schedules work; the tail's own failures are not
 * counted. (End to end: {@code CaptureCheckFailingTest} in the tests module.)
 */
class FailingCaptureChecksTest {

  private static final SQLException REFUSED =
      new SQLNonTransientConnectionException(
          "User tc has exceeded the 'max_user_connections' resource", "42000");

  private final FailingCaptureChecks checks =
      new FailingCaptureChecks(() -> List.of("db.items", "db.notes"), Duration.ofSeconds(10));

  @Test
  void twoFailuresInARowMakeEveryTableStaleWithTheErrorOnce() {
    checks.run(Schedule.CHECK, () -> fail());
    assertThat(checks.take()).as("one failure may be a blip").isEmpty();

    checks.run(Schedule.CHECK, () -> fail());
    List<Staleness> said = checks.take();
    assertThat(said).extracting(Staleness::table).containsExactly("db.items", "db.notes");
    assertThat(said).extracting(Staleness::cause).containsOnly(FailingCaptureChecks.CAUSE);
    assertThat(said.get(0).reason())
        .contains("capture check (checking the capture triggers) failed 2 times in a row")
        .contains("max_user_connections")
        .contains("TRUNCATE, an ALTER TABLE or a capture trigger dropped is not noticed")
        .contains("every 10 s");

    checks.run(Schedule.CHECK, () -> fail());
    checks.run(Schedule.LOOK, () -> fail());
    checks.run(Schedule.LOOK, () -> fail());
    assertThat(checks.take()).as("said once").isEmpty();
  }

  @Test
  void everyTableIsFollowedAgainOnceBothSchedulesSucceed() {
    checks.run(Schedule.LOOK, () -> fail());
    checks.run(Schedule.CHECK, () -> fail());
    checks.run(Schedule.LOOK, () -> fail());
    assertThat(checks.take()).hasSize(2);
    assertThat(checks.take()).isEmpty();

    checks.run(Schedule.CHECK, () -> {});
    assertThat(checks.take()).as("the looks still fail").isEmpty();
    checks.run(Schedule.LOOK, () -> {});
    assertThat(checks.take())
        .extracting(Staleness::table, Staleness::reason)
        .containsExactly(tuple("db.items", null), tuple("db.notes", null));
  }

  @Test
  void aCheckThatFailsAgainAfterOneSuccessCountsFromOne() {
    checks.run(Schedule.CHECK, () -> fail());
    checks.run(Schedule.CHECK, () -> {});
    checks.run(Schedule.CHECK, () -> fail());
    assertThat(checks.take()).isEmpty();
  }

  @Test
  void failuresWhileTheTailFailsTooAreNotCounted() {
    checks.run(Schedule.CHECK, () -> fail());
    checks.tailFailed(); // every table is stale for the database already
    checks.run(Schedule.CHECK, () -> fail());
    assertThat(checks.take()).isEmpty();
    checks.run(Schedule.CHECK, () -> fail());
    assertThat(checks.take()).as("two in a row since the tail read").hasSize(2);
  }

  /**
   * A read marks before it takes the re-reads a look queued, and takes the transitions up to its
   * mark: "followed" queued after the mark waits for the next read, which takes the look's re-read.
   */
  @Test
  void aReadTakesOnlyTheTransitionsQueuedBeforeItsMark() {
    checks.run(Schedule.CHECK, () -> fail());
    checks.run(Schedule.CHECK, () -> fail());
    long before = checks.mark();
    checks.run(Schedule.CHECK, () -> {});
    checks.run(Schedule.LOOK, () -> {}); // followed again, after the read's mark
    assertThat(checks.take(before)).extracting(Staleness::reason).doesNotContainNull().hasSize(2);
    assertThat(checks.take(before)).isEmpty();
    assertThat(checks.take(checks.mark())).extracting(Staleness::reason).containsOnlyNulls();
  }

  @Test
  void aRoundThatThrowsAnythingElseIsCountedToo() {
    checks.run(
        Schedule.LOOK,
        () -> {
          throw new IllegalStateException("a catalog row the check cannot parse");
        });
    checks.run(
        Schedule.LOOK,
        () -> {
          throw new IllegalStateException("a catalog row the check cannot parse");
        });
    assertThat(checks.take().get(0).reason())
        .contains("looking for changes no trigger records")
        .contains("IllegalStateException: a catalog row the check cannot parse");
  }

  private static void fail() throws SQLException {
    throw REFUSED;
  }
}

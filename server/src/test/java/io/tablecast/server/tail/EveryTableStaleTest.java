package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.TableSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** When the tail's words about every table change, and when they are kept. */
class EveryTableStaleTest {

  private final List<String> said = new ArrayList<>();
  private final EveryTableStale everyTable = new EveryTableStale(recording(said));

  EveryTableStaleTest() {
    everyTable.tables(List.of("items", "notes"));
  }

  /**
   * A connection cut, then credentials the database no longer takes (a password rotated, a role
   * that may not log in any more): the second is said once two failures in a row are of it, its
   * SQLSTATE class another than the one said. Before, the cut's "Socket error" stayed until the
   * database took the server's connections again.
   */
  @Test
  void failuresOfAnotherKindAreSaidOnceTwoInARowAreOfIt() {
    everyTable.pollFailed(1_000, "(conn=27) Socket error", "08", false);
    assertThat(said).isEmpty();
    everyTable.pollFailed(1_000, "(conn=28) Socket error", "08", true);
    assertThat(said).hasSize(1);
    assertThat(said.get(0)).contains("(conn=28) Socket error");

    everyTable.pollFailed(1_000, "(conn=29) Socket error", "08", true);
    everyTable.pollFailed(1_000, "Access denied for user 'tc'", "28", true);
    assertThat(said).as("one failure of a new kind: not yet").hasSize(1);
    everyTable.pollFailed(1_000, "(conn=30) Socket error", "08", true);
    everyTable.pollFailed(1_000, "Access denied for user 'tc'", "28", true);
    assertThat(said).as("failures alternating: the first words stay").hasSize(1);
    everyTable.pollFailed(1_000, "Access denied for user 'tc'", "28", true);
    assertThat(said).hasSize(2);
    assertThat(said.get(1))
        .startsWith("the server has read no changes from the database since")
        .contains("(Access denied for user 'tc')");

    everyTable.pollFailed(1_000, "Access denied for user 'tc' (again)", "28", true);
    everyTable.pollFailed(1_000, "an error of no known kind", null, true);
    everyTable.pollFailed(1_000, "another", null, true);
    assertThat(said).as("the same kind, or none known: the words stay").hasSize(2);

    everyTable.pollSucceeded();
    assertThat(said).hasSize(3);
    assertThat(said.get(2)).isEqualTo("followed");
  }

  /**
   * A poll unanswered after one that failed is said with the failure's error; a poll said
   * unanswered that then fails is said again with its error at once, before the 5 s the failures of
   * a healthy tail wait for.
   */
  @Test
  void anUnansweredPollIsSaidWithTheFailureBeforeItAndFailingAfterIt() {
    everyTable.pollFailed(1_000, "(conn=27) Socket error", "08", false);
    assertThat(everyTable.unanswered(1_100, 2, null)).contains("(conn=27) Socket error");
    assertThat(said.get(0)).contains("(conn=27) Socket error");
    assertThat(everyTable.unanswered(1_100, 4, null)).as("said already").isNull();
    everyTable.pollSucceeded();

    assertThat(everyTable.unanswered(5_000, 2, null)).contains("has not returned");
    assertThat(said.get(2)).contains("has not returned");
    everyTable.pollFailed(4_900, "Connection refused", "08", false);
    assertThat(said).hasSize(4);
    assertThat(said.get(3)).contains("(Connection refused)");
  }

  /** A sink that records each reason every table was said stale with, or "followed". */
  private static TailSink recording(List<String> said) {
    return new TailSink() {
      @Override
      public SnapshotLoad snapshotLoad(List<TableSchema> tables) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Set<String> publish(CommittedBatch batch) {
        throw new UnsupportedOperationException("staleness only");
      }

      @Override
      public void publishStaleness(CommittedBatch states) {
        assertThat(states.staleness()).hasSize(2); // every table
        String reason = states.staleness().get(0).reason();
        said.add(reason == null ? "followed" : reason);
      }
    };
  }
}

package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.CommittedBatch.Staleness;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a server does with the staleness a capture run left when another run takes over: its tables
 * are asked for again, and each cause said gone by the first whole read of its table, not before.
 */
class StalenessAcrossRunsTest {
  private static final String T = "app.t";
  private static final String U = "app.u";

  private static CommittedBatch saying(Staleness... s) {
    return new CommittedBatch(List.of(), 0, List.of(), List.of(s));
  }

  private static CommittedBatch readingWhole(String table, Staleness... s) {
    String[] name = table.split("\\.");
    TableSchema schema =
        new TableSchema(
            new TableId(name[0], name[1]),
            List.of(new ColumnInfo("id", "int4", ColumnKind.INTEGER)),
            List.of("id"));
    return new CommittedBatch(
        List.of(),
        0,
        List.of(new CommittedBatch.TableRead(schema, List.of(), CommittedBatch.Purpose.RESYNC)),
        List.of(s));
  }

  @Test
  void causesARunLeftAreSaidGoneWithTheNextRunsWholeReadOfTheirTable() {
    StalenessAcrossRuns runs = new StalenessAcrossRuns();
    runs.take("a", saying(new Staleness(T, "lock", "DDL waits"), new Staleness(U, "row 5", "big")));
    runs.take(
        "a", saying(new Staleness(U, "capture", "no trigger"), new Staleness(U, "capture", null)));
    assertThat(runs.toAsk(0)).as("nothing left by an earlier run").isEmpty();

    CommittedBatch first = runs.take("b", CommittedBatch.EMPTY);
    assertThat(first.staleness()).isEmpty();
    assertThat(runs.toAsk(1)).containsExactly(T, U);
    assertThat(runs.toAsk(2)).as("asked once, then after a pause").isEmpty();

    CommittedBatch t = runs.take("b", readingWhole(T));
    assertThat(t.staleness()).containsExactly(new Staleness(T, "lock", null));
    assertThat(runs.inherited()).containsExactly(U);
    assertThat(runs.toAsk(1 + StalenessAcrossRuns.ASK_AGAIN_NANOS))
        .as("asked again for what no read settled")
        .containsExactly(U);
  }

  @Test
  void aCauseTheNewRunSaysItselfIsLeftToIt() {
    StalenessAcrossRuns runs = new StalenessAcrossRuns();
    runs.take("a", saying(new Staleness(T, "lock", "DDL waits"), new Staleness(T, "row 1", "big")));
    CommittedBatch b =
        runs.take(
            "b",
            saying(new Staleness(T, "lock", "DDL waits, again"), new Staleness(T, "row 1", null)));
    assertThat(b.staleness())
        .as("a cause the run before said is not said gone before the table is read whole")
        .containsExactly(new Staleness(T, "lock", "DDL waits, again"));
    assertThat(runs.take("b", readingWhole(T)).staleness())
        .as("the lock is the new run's to say gone")
        .containsExactly(new Staleness(T, "row 1", null));
    assertThat(runs.take("b", saying(new Staleness(T, "lock", null))).staleness())
        .containsExactly(new Staleness(T, "lock", null));
    assertThat(runs.inherited()).isEmpty();
  }

  @Test
  void aThirdRunInheritsWhatTheSecondDidNotSettleAndTheSecondLeft() {
    StalenessAcrossRuns runs = new StalenessAcrossRuns();
    runs.take("a", saying(new Staleness(T, "lock", "DDL waits")));
    runs.take("b", saying(new Staleness(U, "lock", "DDL waits")));
    runs.take("c", CommittedBatch.EMPTY);
    assertThat(runs.toAsk(0)).containsExactly(T, U);
    assertThat(runs.take("c", readingWhole(U)).staleness())
        .containsExactly(new Staleness(U, "lock", null));
    assertThat(runs.take("c", readingWhole(T)).staleness())
        .containsExactly(new Staleness(T, "lock", null));
    assertThat(runs.take("c", readingWhole(T)).staleness()).as("settled once").isEmpty();
  }

  @Test
  void aCheckpointAfterAGapForgetsEveryCauseTheStreamSaid() {
    StalenessAcrossRuns runs = new StalenessAcrossRuns();
    runs.take("a", saying(new Staleness(T, "lock", "DDL waits")));
    runs.take("b", saying(new Staleness(U, "row 1", "big")));
    assertThat(runs.forgetAtCheckpoint())
        .containsExactlyInAnyOrder(new Staleness(U, "row 1", null), new Staleness(T, "lock", null));
    assertThat(runs.inherited()).isEmpty();
    runs.take("c", CommittedBatch.EMPTY);
    assertThat(runs.toAsk(0)).as("the checkpoint's run is not known: nothing inherited").isEmpty();
  }

  @Test
  void whatTheServerSaysForTheStreamIsSettledByTheNextRunOrGoneWithAGroupOfTheSameRun() {
    StalenessAcrossRuns runs = new StalenessAcrossRuns();
    runs.take("a", CommittedBatch.EMPTY);
    Staleness absent = new Staleness(T, CaptureAbsence.CAUSE, "no capture");
    assertThat(runs.saidByTheStream(List.of(absent)).staleness()).containsExactly(absent);
    assertThat(runs.take("a", CommittedBatch.EMPTY).staleness())
        .as("the run publishes after all")
        .containsExactly(new Staleness(T, CaptureAbsence.CAUSE, null));

    runs.saidByTheStream(List.of(absent));
    assertThat(runs.take("b", CommittedBatch.EMPTY).staleness()).isEmpty();
    assertThat(runs.take("b", readingWhole(T)).staleness())
        .containsExactly(new Staleness(T, CaptureAbsence.CAUSE, null));

    StalenessAcrossRuns started = new StalenessAcrossRuns(); // no group seen yet
    started.saidByTheStream(List.of(absent));
    assertThat(started.take("c", CommittedBatch.EMPTY).staleness()).isEmpty();
    assertThat(started.toAsk(0)).containsExactly(T);
    assertThat(started.take("c", readingWhole(T)).staleness())
        .containsExactly(new Staleness(T, CaptureAbsence.CAUSE, null));
  }
}

package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.row;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.Channel;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.config.ResumeBufferSettings;
import io.tablecast.server.config.SlowConsumerSettings;
import io.tablecast.server.tail.CommittedBatch;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The capture followed an ALTER TABLE in the middle of a batch (PostgreSQL reads the outbox rows
 * after the change with the new columns): the image takes the new layout before the batch, says so
 * first, and sends every row of the batch in it, the rows read before the change converted.
 */
class LayoutChangeTest {

  private static final TableSchema A = table("a");

  /** Table a after {@code ALTER TABLE a ADD COLUMN note text}. */
  private static final TableSchema A_WITH_NOTE = FakeChangeSource.tableWithNote("a");

  private HubHarness h;

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void eventsOfANewLayoutMakeTheImageTakeItBeforeTheBatchAndOlderEventsOfTheBatchAreConverted()
      throws Exception {
    h = new HubHarness(Duration.ofHours(1), 1000, A);
    h.load(2, A);
    HubHarness.Session s = h.connect("s");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    while (!(s.client().nextNonHeartbeat() instanceof Message.SnapshotEnd)) {
      // the snapshot
    }

    h.hub.publish(
        new CommittedBatch(
            List.of(
                FakeChangeSource.upsert(A, row(1, "row1"), row(1, "read before")),
                FakeChangeSource.upsert(
                    A_WITH_NOTE, null, row(3, "read after").put("note", "new"))),
            0));

    Message.SchemaChanged changed = (Message.SchemaChanged) s.client().nextNonHeartbeat();
    assertThat(changed.version()).isEqualTo(2);
    assertThat(changed.columns())
        .extracting(ColumnInfo::name)
        .containsExactly("id", "name", "note");
    Message.ChangeBatch batch = (Message.ChangeBatch) s.client().nextNonHeartbeat();
    assertThat(batch.changes())
        .extracting(Message.Change::op)
        .containsExactly(Op.UPDATE, Op.INSERT);
    assertThat(batch.changes().get(0).after().toString())
        .isEqualTo("{\"id\":1,\"name\":\"read before\",\"note\":null}");
    assertThat(batch.changes().get(0).before().toString())
        .isEqualTo("{\"id\":1,\"name\":\"row1\",\"note\":null}");
    assertThat(batch.changes().get(1).after().toString())
        .isEqualTo("{\"id\":3,\"name\":\"read after\",\"note\":\"new\"}");

    // a later batch in the new layout changes nothing more
    h.hub.publish(
        new CommittedBatch(
            List.of(FakeChangeSource.upsert(A_WITH_NOTE, null, row(2, "row2").put("note", "n2"))),
            0));
    Message.ChangeBatch next = (Message.ChangeBatch) s.client().nextNonHeartbeat();
    assertThat(next.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.op()).isEqualTo(Op.UPDATE);
              assertThat(c.before().toString())
                  .isEqualTo("{\"id\":2,\"name\":\"row2\",\"note\":null}");
            });
  }

  /**
   * A session whose changes are being coalesced (it does not read) gets them, in the old layout,
   * before the {@code schema_changed}: a client of protocol version 3 reads every row with the
   * layout announced last, and its decoder refuses rows that do not follow it.
   */
  @Test
  void coalescedChangesInTheOldLayoutGoOutBeforeTheSchemaChange() throws Exception {
    h =
        new HubHarness(
            new HubSettings(
                Duration.ofHours(1),
                new ResumeBufferSettings(1000, 1L << 30),
                new SlowConsumerSettings(
                    64L << 20,
                    1000,
                    SlowConsumerSettings.DEFAULTS.coalesceMaxBytes(),
                    SlowConsumerSettings.DEFAULTS.snapshotTimeout()),
                100),
            A);
    h.load(2, A);
    HubHarness.Session s = h.connect("s");
    h.hub.subscribe(s.subscriber(), Message.Subscribe.fresh(List.of("public.a")));
    while (!(s.client().nextNonHeartbeat() instanceof Message.SnapshotEnd)) {
      // the snapshot
    }
    // the hub ends the catch-up after the last frame is written: until then a batch is held for
    // the session, not coalesced
    await().until(() -> !h.hub.sessionStates().get(0).catchingUp());
    Channel server = s.serverSide();
    server
        .eventLoop()
        .submit(() -> server.unsafe().outboundBuffer().setUserDefinedWritability(1, false))
        .sync();
    h.hub.publish(
        new CommittedBatch(List.of(FakeChangeSource.upsert(A, row(1, "row1"), row(1, "old"))), 0));
    assertThat(h.hub.sessionStates().get(0).coalescedKeys()).as("coalesced").isEqualTo(1);

    h.hub.publish(
        new CommittedBatch(
            List.of(FakeChangeSource.upsert(A_WITH_NOTE, null, row(2, "new").put("note", "n"))),
            0));
    Message.ChangeBatch old = (Message.ChangeBatch) s.client().nextNonHeartbeat();
    assertThat(old.changes().get(0).after().toString()).isEqualTo("{\"id\":1,\"name\":\"old\"}");
    assertThat(s.client().nextNonHeartbeat()).isInstanceOf(Message.SchemaChanged.class);
    server
        .eventLoop()
        .submit(() -> server.unsafe().outboundBuffer().setUserDefinedWritability(1, true))
        .sync();
    Message.ChangeBatch next = (Message.ChangeBatch) s.client().nextNonHeartbeat();
    assertThat(next.changes())
        .extracting(c -> c.after().toString())
        .contains("{\"id\":2,\"name\":\"new\",\"note\":\"n\"}");
  }
}

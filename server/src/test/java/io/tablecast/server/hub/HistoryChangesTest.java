package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.NODES;
import static io.tablecast.server.hub.FakeChangeSource.delete;
import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.key;
import static io.tablecast.server.hub.FakeChangeSource.row;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static io.tablecast.server.hub.FakeChangeSource.tableWithNote;
import static io.tablecast.server.hub.FakeChangeSource.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Batches read again from the stream become the changes the live path sent, or are refused when
 * only the image of that time could tell what they changed (the session then takes a snapshot).
 */
class HistoryChangesTest {
  static final String T = "public.t";
  static final TableSchema SCHEMA = table("t");

  private static HistoryChanges changes(SessionPolicy policy, Set<Long> readPositions) {
    return new HistoryChanges(
        Map.of(T, new HistoryChanges.Layout(SCHEMA, Rows.form(SCHEMA))), policy, readPositions);
  }

  private static BatchHistory.Positioned at(long position, List<RowEvent> events) {
    return new BatchHistory.Positioned(position, new CommittedBatch(events, 5));
  }

  @Test
  void eventsWithTheirRowsBeforeBecomeTheChangesTheLivePathSent() throws Exception {
    ResumeBuffer.Retained r =
        changes(SessionPolicy.ALLOW_ALL, Set.of())
            .changes(
                at(
                    7,
                    List.of(
                        insert(T, 1, "a"),
                        update(T, 2, "b", "c"),
                        delete(T, 3, "d"),
                        insert("public.other", 4, "not subscribed"))));
    assertThat(r.position()).isEqualTo(7);
    assertThat(r.captureMillis()).isEqualTo(5);
    assertThat(r.changes())
        .extracting(Message.Change::op)
        .containsExactly(Op.INSERT, Op.UPDATE, Op.DELETE);
    assertThat(r.changes().get(1).before().get("name").asText()).isEqualTo("b");
    assertThat(r.changes().get(1).after().get("name").asText()).isEqualTo("c");
    assertThat(r.changes().get(2).before().get("name").asText()).isEqualTo("d");
    assertThat(r.changes().get(2).key().get(0).asLong()).isEqualTo(3);
  }

  /**
   * Rows that share a key within a batch (a PostgreSQL DEFERRABLE key: a swap, a row inserted onto
   * a held key before that row moves on) are replayed as the live path said them, so that a client,
   * and one that filters rows, ends as the table. Said event by event, the swap's second UPDATE
   * took the first row off the key it had just moved onto, and the client lost it.
   */
  @Test
  void rowsThatShareKeysWithinABatchAreReplayedAsTheLivePathSaidThem() throws Exception {
    List<RowEvent> swapThenInsertOntoAHeldKey =
        List.of(
            FakeChangeSource.upsert(SCHEMA, row(1, "out"), row(2, "out")),
            FakeChangeSource.upsert(SCHEMA, row(2, "in"), row(1, "in")),
            insert(T, 1, "new in"),
            FakeChangeSource.upsert(SCHEMA, row(1, "in"), row(3, "in")));
    Map<Long, String> client = new java.util.TreeMap<>(Map.of(1L, "out", 2L, "in"));
    for (Message.Change c :
        changes(SessionPolicy.ALLOW_ALL, Set.of())
            .changes(at(30, swapThenInsertOntoAHeldKey))
            .changes()) {
      applyAsAClient(client, c);
    }
    assertThat(client).isEqualTo(Map.of(1L, "new in", 2L, "out", 3L, "in"));

    SessionPolicy in = new SessionPolicy(Set.of(T), "name", NODES.textNode("in"), null);
    Map<Long, String> filtered = new java.util.TreeMap<>(Map.of(2L, "in"));
    ResumeBuffer.Retained swap =
        changes(in, Set.of()).changes(at(31, swapThenInsertOntoAHeldKey.subList(0, 2)));
    for (Message.Change c : PolicyFilter.apply(in, swap.changes(), t -> List.of("id"))) {
      applyAsAClient(filtered, c);
    }
    assertThat(filtered).as("the rows named 'in'").isEqualTo(Map.of(1L, "in"));
  }

  /**
   * A row that passes through a key whose row the batch never names (it moves onto key 2 and on to
   * key 3 before the commit, or is inserted there and deleted; key 2 may hold a row all along) is
   * said as its net move, and key 2's row stays. Said change by change from the rows the batch
   * names, the replay moved the row onto key 2 as onto a free key and then took key 2 away with it:
   * a client resumed from the stream lost its row 2 for good. When the row put there also changed
   * there and another equal to it is deleted, the two changes name one row each.
   */
  @Test
  void aRowPassingThroughAKeyWhoseRowTheBatchDoesNotNameLeavesThatRowInPlace() throws Exception {
    HistoryChanges c = changes(SessionPolicy.ALLOW_ALL, Set.of());
    List<RowEvent> passing =
        List.of(
            FakeChangeSource.upsert(SCHEMA, row(1, "a"), row(2, "a")),
            FakeChangeSource.upsert(SCHEMA, row(2, "a"), row(3, "a")),
            insert(T, 2, "new"),
            delete(T, 2, "new"),
            FakeChangeSource.upsert(SCHEMA, row(5, "b"), row(6, "b")),
            FakeChangeSource.upsert(SCHEMA, row(6, "c"), row(5, "c")));
    Map<Long, String> client =
        new java.util.TreeMap<>(Map.of(1L, "a", 2L, "held", 5L, "b", 6L, "c"));
    for (Message.Change ch : c.changes(at(40, passing)).changes()) {
      applyAsAClient(client, ch);
    }
    assertThat(client).isEqualTo(Map.of(2L, "held", 3L, "a", 5L, "c", 6L, "b"));

    SessionPolicy held = new SessionPolicy(Set.of(T), "name", NODES.textNode("held"), null);
    Map<Long, String> filtered = new java.util.TreeMap<>(Map.of(2L, "held"));
    ResumeBuffer.Retained r = changes(held, Set.of()).changes(at(41, passing.subList(0, 2)));
    for (Message.Change ch : PolicyFilter.apply(held, r.changes(), t -> List.of("id"))) {
      applyAsAClient(filtered, ch);
    }
    assertThat(filtered).as("the rows named 'held'").isEqualTo(Map.of(2L, "held"));

    // key 2's own row and one put there are equal: the change and the delete take one each
    Map<Long, String> equalRows = new java.util.TreeMap<>(Map.of(2L, "x"));
    for (Message.Change ch :
        c.changes(
                at(
                    42,
                    List.of(
                        insert(T, 2, "x"),
                        FakeChangeSource.upsert(SCHEMA, row(2, "x"), row(2, "y")),
                        delete(T, 2, "x"))))
            .changes()) {
      applyAsAClient(equalRows, ch);
    }
    assertThat(equalRows).isEqualTo(Map.of(2L, "y"));
  }

  /** As the Java client applies a change: an UPDATE that moved its row takes its old key away. */
  private static void applyAsAClient(Map<Long, String> client, Message.Change c) {
    if (c.op() == Op.UPDATE && c.before() != null) {
      client.remove(c.before().get("id").asLong());
    }
    if (c.op() == Op.DELETE) {
      client.remove(c.key().get(0).asLong());
    } else {
      client.put(c.key().get(0).asLong(), c.after().get("name").asText());
    }
  }

  @Test
  void aTruncateAndAnAlterTableSinceAreRefused() {
    HistoryChanges c = changes(SessionPolicy.ALLOW_ALL, Set.of());
    assertThatThrownBy(() -> c.changes(at(8, List.of(new RowEvent.Truncate(T)))))
        .isInstanceOf(HistoryChanges.Refused.class)
        .hasMessageContaining("truncates");
    TableSchema wider = tableWithNote("t");
    RowEvent older = FakeChangeSource.upsert(wider, null, row(1, "a").put("note", "n"));
    assertThatThrownBy(() -> c.changes(at(9, List.of(older))))
        .isInstanceOf(HistoryChanges.Refused.class)
        .hasMessageContaining("columns of public.t changed");
  }

  @Test
  void aRowFilterRefusesChangesWithoutTheirRowBeforeOnlyWhereItNeedsIt() throws Exception {
    SessionPolicy mine = new SessionPolicy(Set.of(T), "name", NODES.textNode("mine"), null);
    HistoryChanges c = changes(mine, Set.of());
    // a row inside the filter: an INSERT (or an upsert into it) is placed without its row before
    assertThat(c.changes(at(10, List.of(insert(T, 1, "mine")))).changes()).hasSize(1);
    // PostgreSQL's delete carries the row: the filter decides
    assertThat(c.changes(at(11, List.of(delete(T, 2, "theirs")))).changes()).hasSize(1);
    // MySQL/MariaDB: a delete by key, an upsert outside the filter that may be a move-out
    RowEvent byKey = new RowEvent.Delete(T, SCHEMA, key(3), null);
    assertThatThrownBy(() -> c.changes(at(12, List.of(byKey))))
        .isInstanceOf(HistoryChanges.Refused.class);
    assertThatThrownBy(() -> c.changes(at(13, List.of(insert(T, 4, "theirs")))))
        .isInstanceOf(HistoryChanges.Refused.class);
    // without a filter neither needs the row before
    assertThat(changes(SessionPolicy.ALLOW_ALL, Set.of()).changes(at(12, List.of(byKey))).changes())
        .hasSize(1);
  }

  @Test
  void aTableReadIsSkippedWhenItChangedNoImageAndRefusedWhenItDidOrIsNotKnown() throws Exception {
    BatchHistory.Positioned read =
        new BatchHistory.Positioned(
            20,
            new CommittedBatch(
                List.of(),
                0,
                List.of(
                    new CommittedBatch.TableRead(
                        SCHEMA,
                        List.of(Rows.bytes(SCHEMA, row(1, "a"))),
                        CommittedBatch.Purpose.RESYNC))));
    assertThat(changes(SessionPolicy.ALLOW_ALL, Set.of(19L, 21L)).changes(read).changes())
        .isEmpty();
    assertThatThrownBy(() -> changes(SessionPolicy.ALLOW_ALL, Set.of(20L)).changes(read))
        .isInstanceOf(HistoryChanges.Refused.class)
        .hasMessageContaining("which changed its image");
    assertThatThrownBy(() -> changes(SessionPolicy.ALLOW_ALL, null).changes(read))
        .isInstanceOf(HistoryChanges.Refused.class)
        .hasMessageContaining("does not know");
  }

  @Test
  void theHubKnowsTheReadsThatChangedAnImageFromThePositionItStartedAt() {
    TableReadPositions p = new TableReadPositions();
    assertThat(p.after(0)).as("not started").isNull();
    p.started(10);
    p.applied(12);
    p.applied(15);
    assertThat(p.after(9)).as("before the start").isNull();
    assertThat(p.after(10)).containsExactlyInAnyOrder(12L, 15L);
    assertThat(p.after(12)).containsExactly(15L);
  }
}

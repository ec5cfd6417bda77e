package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static io.tablecast.server.hub.FakeChangeSource.update;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Client-chosen subscription shapes in the hub: the snapshot holds the rows the filter lets through
 * with the chosen columns; an update that moves a row into the filter arrives as an insert, one
 * that moves it out as a delete; the principal's policy still applies on top; a shape that cannot
 * be used is refused for its table with the position, and the session stays open.
 */
class ShapesTest {
  private static final TableSchema A = table("a");
  private static final Duration NO_HEARTBEAT = Duration.ofHours(1);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private HubHarness h;

  @AfterEach
  void tearDown() {
    if (h != null) {
      h.close();
    }
  }

  private HubHarness.Session subscribed(SessionPolicy policy, Message.Shape shape)
      throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100, A);
    h.load(5, A);
    HubHarness.Session s = h.connect("shaped", policy);
    h.hub.subscribe(
        s.subscriber(),
        new Message.Subscribe(List.of("public.a"), null, -1, null, Map.of("public.a", shape)));
    return s;
  }

  private static List<ObjectNode> snapshotRows(HubHarness.Session s) throws Exception {
    List<ObjectNode> rows = new ArrayList<>();
    assertThat(s.client().nextNonHeartbeat()).isInstanceOf(Message.SnapshotBegin.class);
    for (Message m; !((m = s.client().nextNonHeartbeat()) instanceof Message.SnapshotEnd); ) {
      rows.addAll(((Message.SnapshotRows) m).rows());
    }
    return rows;
  }

  private static List<Long> ids(List<ObjectNode> rows) {
    return rows.stream().map(r -> r.get("id").asLong()).sorted().toList();
  }

  @Test
  void theSnapshotAndTheChangesFollowTheShape() throws Exception {
    HubHarness.Session s =
        subscribed(
            SessionPolicy.ALLOW_ALL,
            new Message.Shape(
                "name IN ($1, 'row4') OR id = ?", List.of(text("row1"), num(2)), List.of()));
    List<ObjectNode> rows = snapshotRows(s);
    assertThat(ids(rows)).containsExactly(1L, 2L, 4L);
    assertThat(rows.get(0).get("name")).as("not among the chosen columns").isNull();
    h.hub.publish(new CommittedBatch(List.of(update("public.a", 3, "row3", "row1")), 0));
    Message.Change in = ((Message.ChangeBatch) s.client().nextNonHeartbeat()).changes().get(0);
    assertThat(in.op()).as("row 3 moved into the filter").isEqualTo(Op.INSERT);
    assertThat(in.after().get("id").asLong()).isEqualTo(3);
    h.hub.publish(new CommittedBatch(List.of(update("public.a", 4, "row4", "other")), 0));
    Message.Change out = ((Message.ChangeBatch) s.client().nextNonHeartbeat()).changes().get(0);
    assertThat(out.op()).as("row 4 moved out of the filter").isEqualTo(Op.DELETE);
    h.hub.publish(new CommittedBatch(List.of(update("public.a", 5, "row5", "x")), 0));
    h.hub.publish(new CommittedBatch(List.of(update("public.a", 1, "row1", "row4")), 0));
    Message.Change stays = ((Message.ChangeBatch) s.client().nextNonHeartbeat()).changes().get(0);
    assertThat(stays.op())
        .as("row 1 stays inside; row 5, outside, was not sent")
        .isEqualTo(Op.UPDATE);
    assertThat(stays.key().get(0).asLong()).isEqualTo(1);
  }

  @Test
  void aResumeReplaysTheChangesThroughTheShape() throws Exception {
    Message.Shape shape = new Message.Shape("name = 'row1'", null, List.of());
    HubHarness.Session first = subscribed(SessionPolicy.ALLOW_ALL, shape);
    snapshotRows(first);
    long before = h.hub.position();
    h.hub.publish(new CommittedBatch(List.of(update("public.a", 3, "row3", "row1")), 0));
    h.hub.publish(new CommittedBatch(List.of(update("public.a", 4, "row4", "x")), 0));
    HubHarness.Session resuming = h.connect("resuming", SessionPolicy.ALLOW_ALL);
    h.hub.subscribe(
        resuming.subscriber(),
        new Message.Subscribe(
            List.of("public.a"), h.hub.epoch(), before, null, Map.of("public.a", shape)));
    assertThat(resuming.client().nextNonHeartbeat()).isInstanceOf(Message.Resumed.class);
    Message.ChangeBatch replayed = (Message.ChangeBatch) resuming.client().nextNonHeartbeat();
    assertThat(replayed.changes()).hasSize(1);
    Message.Change moved = replayed.changes().get(0);
    assertThat(moved.op()).as("row 3 moved into the shape").isEqualTo(Op.INSERT);
    assertThat(moved.after().get("name")).as("not among the shape's columns").isNull();
    h.hub.publish(new CommittedBatch(List.of(update("public.a", 1, "row1", "y")), 0));
    Message.Change next =
        ((Message.ChangeBatch) resuming.client().nextNonHeartbeat()).changes().get(0);
    assertThat(next.op())
        .as("row 1 moved out; row 4, outside, was not replayed")
        .isEqualTo(Op.DELETE);
    assertThat(next.key().get(0).asLong()).isEqualTo(1);
  }

  @Test
  void aChangeOfTheSubquerysTableMovesRowsInAndOut() throws Exception {
    TableSchema parents = table("c");
    h = new HubHarness(NO_HEARTBEAT, 100, A, parents);
    h.load(5, A, parents);
    HubHarness.Session s = h.connect("sub", SessionPolicy.ALLOW_ALL);
    Message.Shape shape =
        new Message.Shape(
            "name IN (SELECT name FROM public.c WHERE id <= ?)", List.of(num(2)), null);
    h.hub.subscribe(
        s.subscriber(),
        new Message.Subscribe(List.of("public.a"), null, -1, null, Map.of("public.a", shape)));
    assertThat(ids(snapshotRows(s))).containsExactly(1L, 2L);
    h.hub.publish(new CommittedBatch(List.of(update("public.c", 1, "row1", "zzz")), 0));
    List<Message.Change> out = ((Message.ChangeBatch) s.client().nextNonHeartbeat()).changes();
    assertThat(out).hasSize(1);
    assertThat(out.get(0).op()).as("row1 is no longer a name of c's rows 1-2").isEqualTo(Op.DELETE);
    assertThat(out.get(0).key().get(0).asLong()).isEqualTo(1);
    h.hub.publish(
        new CommittedBatch(
            List.of(update("public.c", 2, "row2", "row5"), update("public.a", 3, "row3", "zzz")),
            0));
    List<Message.Change> moves = ((Message.ChangeBatch) s.client().nextNonHeartbeat()).changes();
    assertThat(moves)
        .extracting(c -> c.op() + " " + c.key().get(0).asLong())
        .as("a's row 3 changed into the set itself; rows 2 and 5 moved by c's change")
        .containsExactlyInAnyOrder("INSERT 3", "DELETE 2", "INSERT 5");
    HubHarness.Session resuming = h.connect("resuming", SessionPolicy.ALLOW_ALL);
    h.hub.subscribe(
        resuming.subscriber(),
        new Message.Subscribe(
            List.of("public.a"),
            h.hub.epoch(),
            h.hub.position() - 1,
            null,
            Map.of("public.a", shape)));
    assertThat(ids(snapshotRows(resuming)))
        .as("a shape that reads another table takes a snapshot, not a replay")
        .containsExactly(3L, 5L);
  }

  @Test
  void aSubqueryReadsOnlyTablesThePrincipalMayRead() throws Exception {
    TableSchema parents = table("c");
    h = new HubHarness(NO_HEARTBEAT, 100, A, parents);
    h.load(3, A, parents);
    HubHarness.Session s =
        h.connect("only-a", new SessionPolicy(Set.of("public.a"), null, null, null));
    h.hub.subscribe(
        s.subscriber(),
        new Message.Subscribe(
            List.of("public.a"),
            null,
            -1,
            null,
            Map.of("public.a", new Message.Shape("id IN (SELECT id FROM public.c)", null, null))));
    Message.Error e = (Message.Error) s.client().nextNonHeartbeat();
    assertThat(e.message()).contains("no cached table 'public.c' this session may read");
  }

  @Test
  void thePrincipalsPolicyStillApplies() throws Exception {
    SessionPolicy onlyRow2 = new SessionPolicy(null, "name", text("row2"), Set.of("name"));
    HubHarness.Session s = subscribed(onlyRow2, new Message.Shape("id <= 3", null, null));
    List<ObjectNode> rows = snapshotRows(s);
    assertThat(ids(rows)).containsExactly(2L);
    assertThat(rows.get(0).get("name").asText()).isEqualTo("row2");
  }

  @Test
  void aShapeThatCannotBeUsedIsRefusedForItsTable() throws Exception {
    HubHarness.Session s =
        subscribed(SessionPolicy.ALLOW_ALL, new Message.Shape("nmae = 'row1'", null, null));
    Message.Error e = (Message.Error) s.client().nextNonHeartbeat();
    assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_VIOLATION);
    assertThat(e.table()).isEqualTo("public.a");
    assertThat(e.message())
        .contains("the shape asked of table 'public.a' cannot be used")
        .contains("position 1: no column 'nmae'");
    h.hub.subscribe(
        s.subscriber(),
        new Message.Subscribe(
            List.of("public.a"),
            null,
            -1,
            null,
            Map.of("public.a", new Message.Shape(null, null, List.of("nope")))));
    assertThat(((Message.Error) s.client().nextNonHeartbeat()).message())
        .contains("the shape's columns name 'nope', which is none of [id, name]");
    assertThat(s.client().channel.isActive()).isTrue();
  }

  private static JsonNode text(String s) {
    return NODES.textNode(s);
  }

  private static JsonNode num(long n) {
    return NODES.numberNode(n);
  }
}

package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.table;
import static io.tablecast.server.hub.FakeChangeSource.update;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code fetch} (near caches): a table subscribed without rows gets an empty snapshot; an answer
 * follows the batches applied before it and holds their rows; the access policy applies to the rows
 * found as to changes; and a fetch of a table not subscribed, of too many keys or of a key that is
 * none of the table's is answered with a failure that says so, the session staying open.
 */
class FetchAnswersTest {
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

  private static ArrayNode key(Object... values) {
    ArrayNode k = NODES.arrayNode();
    for (Object v : values) {
      k.add(v instanceof Long l ? NODES.numberNode(l) : NODES.textNode(String.valueOf(v)));
    }
    return k;
  }

  private HubHarness.Session subscribedWithoutRows(SessionPolicy policy) throws Exception {
    h = new HubHarness(NO_HEARTBEAT, 100, A);
    h.load(5, A);
    HubHarness.Session s = h.connect("near", policy);
    h.hub.subscribe(
        s.subscriber(), new Message.Subscribe(List.of("public.a"), null, -1, List.of("public.a")));
    assertThat(s.client().next(Message.SnapshotBegin.class).rowCount()).isZero();
    assertThat(s.client().nextNonHeartbeat()).isInstanceOf(Message.SnapshotEnd.class);
    return s;
  }

  @Test
  void anAnswerFollowsTheBatchesBeforeItAndHoldsTheirRows() throws Exception {
    HubHarness.Session s = subscribedWithoutRows(SessionPolicy.ALLOW_ALL);
    h.hub.publish(new CommittedBatch(List.of(update("public.a", 2, "row2", "changed")), 0));
    h.hub.fetch(s.subscriber(), new Message.Fetch(7, "public.a", List.of(key(2L), key(99L))));
    Message.ChangeBatch b = (Message.ChangeBatch) s.client().nextNonHeartbeat();
    Message.Fetched f = (Message.Fetched) s.client().nextNonHeartbeat();
    assertThat(f.id()).isEqualTo(7);
    assertThat(f.failure()).isNull();
    assertThat(f.position()).isEqualTo(b.position()).isEqualTo(h.hub.position());
    assertThat(f.rows()).hasSize(1);
    assertThat(f.rows().get(0).get("name").asText()).isEqualTo("changed");
  }

  @Test
  void theAccessPolicyAppliesToTheRowsFound() throws Exception {
    SessionPolicy onlyRow1NoNames =
        new SessionPolicy(null, "name", NODES.textNode("row1"), Set.of());
    HubHarness.Session s = subscribedWithoutRows(onlyRow1NoNames);
    h.hub.fetch(s.subscriber(), new Message.Fetch(1, "public.a", List.of(key(1L), key(2L))));
    Message.Fetched f = (Message.Fetched) s.client().nextNonHeartbeat();
    assertThat(f.rows()).hasSize(1);
    ObjectNode row = f.rows().get(0);
    assertThat(row.get("id").asLong()).isEqualTo(1);
    assertThat(row.get("name")).as("a column the policy hides").isNull();
  }

  @Test
  void whatCannotBeAnsweredIsAFailureThatSaysWhy() throws Exception {
    HubHarness.Session s = subscribedWithoutRows(SessionPolicy.ALLOW_ALL);
    h.hub.fetch(s.subscriber(), new Message.Fetch(1, "public.b", List.of(key(1L))));
    assertThat(((Message.Fetched) s.client().nextNonHeartbeat()).failure())
        .contains("table 'public.b' is not subscribed on this connection");
    h.hub.fetch(s.subscriber(), new Message.Fetch(2, "public.a", List.of(key(1L, 2L))));
    assertThat(((Message.Fetched) s.client().nextNonHeartbeat()).failure())
        .contains("key 1 of the fetch, [1,2], is no key of public.a (primary key [id])")
        .contains("it has 2 values for 1 columns");
    h.hub.fetch(s.subscriber(), new Message.Fetch(3, "public.a", List.of(key(1L), key("x"))));
    assertThat(((Message.Fetched) s.client().nextNonHeartbeat()).failure())
        .contains("key 2 of the fetch, [\"x\"], is no key of public.a");
    List<ArrayNode> many = new ArrayList<>();
    for (long i = 0; i <= FetchAnswers.MAX_KEYS; i++) {
      many.add(key(i));
    }
    h.hub.fetch(s.subscriber(), new Message.Fetch(4, "public.a", many));
    Message.Fetched tooMany = (Message.Fetched) s.client().nextNonHeartbeat();
    assertThat(tooMany.failure()).contains("at most 1000 keys, this one asks for 1001");
    assertThat(tooMany.position()).isEqualTo(-1);
    assertThat(s.client().channel.isActive()).as("the session stays open").isTrue();
  }
}

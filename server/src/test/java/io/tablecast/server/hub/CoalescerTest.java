package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.RowChange;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.KeyMoves;
import io.tablecast.server.tail.RowEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The net effect per key of the changes a slow session missed, and what it costs. */
class CoalescerTest {

  private static final String T = "public.a";
  private static final String U = "public.u";

  private static final List<String> PRIMARY_KEY = FakeChangeSource.table("a").primaryKey();
  private final Coalescer c = new Coalescer((table, r) -> JsonEdge.keyOf(r, PRIMARY_KEY));

  private ArrayNode key(long id) {
    return JsonEdge.keyOf(row(id, "x"), PRIMARY_KEY);
  }

  private Message.Change insert(long id, String name) {
    return new Message.Change(T, Op.INSERT, key(id), null, row(id, name));
  }

  private Message.Change update(long id, String before, String after) {
    return new Message.Change(T, Op.UPDATE, key(id), row(id, before), row(id, after));
  }

  private Message.Change delete(long id, String before) {
    return new Message.Change(T, Op.DELETE, key(id), row(id, before), null);
  }

  private static String describe(Message.Change ch) {
    ObjectNode img = ch.after() != null ? ch.after() : ch.before();
    return ch.table()
        + " "
        + ch.op()
        + " "
        + ch.key()
        + " "
        + (img == null ? null : img.get("name").textValue());
  }

  private List<String> drain() {
    return c.drain().stream().map(CoalescerTest::describe).toList();
  }

  /** A coalescing session is written nothing: its lag is how long its oldest change was held. */
  @Test
  void theHeldTimeRunsFromTheFirstChangeSinceTheLastDrain() throws InterruptedException {
    assertThat(c.heldMillis(System.nanoTime())).isZero();
    long before = System.nanoTime();
    c.add(1, 0, List.of(insert(1, "a")));
    Thread.sleep(20);
    c.add(2, 0, List.of(update(1, "a", "b")));
    long now = System.nanoTime();
    assertThat(c.heldMillis(now))
        .isBetween(20L, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(now - before));
    c.drain();
    assertThat(c.heldMillis(System.nanoTime())).isZero();
    c.add(3, 0, List.of(update(1, "b", "c")));
    assertThat(c.heldMillis(System.nanoTime())).isLessThan(20);
  }

  /**
   * A swap under a DEFERRABLE key (1 to 2 while 2 is held, then 2 to 1), coalesced with a later
   * delete of key 2: the client, applying what the coalescer drains, holds what the image holds.
   * Before 2026-12-07 the image said the move onto key 2 as an UPDATE from key 1 alone; the
   * coalescer took key 2 for new, the delete cancelled it, and the client kept its old row 2.
   */
  @Test
  void aSwapThenADeleteCoalescedLeaveTheClientAsTheImage() {
    TableSchema a = FakeChangeSource.table("a");
    TableImage image = new TableImage(a);
    Map<ArrayNode, ObjectNode> client = new LinkedHashMap<>();
    for (ObjectNode r : List.of(row(1, "one"), row(2, "two"), row(3, "three"))) {
      image.put(io.tablecast.server.testing.Rows.bytes(a, r));
      client.put(key(r.get("id").longValue()), r);
    }
    c.add(
        1,
        0,
        changes(
            image,
            FakeChangeSource.upsert(a, row(1, "one"), row(2, "one")),
            FakeChangeSource.upsert(a, row(2, "two"), row(1, "two"))));
    c.add(2, 0, changes(image, FakeChangeSource.delete(a, row(2, "one"))));
    for (Message.Change ch : c.drain()) {
      if (ch.op() != Op.INSERT && ch.before() != null) {
        client.remove(JsonEdge.keyOf(ch.before(), PRIMARY_KEY));
      }
      if (ch.after() != null) {
        client.put(ch.key(), ch.after());
      }
    }
    assertThat(client.values().stream().map(r -> r.get("name").textValue()))
        .as("the client's rows after the drained changes")
        .containsExactlyInAnyOrder("two", "three");
    assertThat(image.size()).isEqualTo(2);
  }

  /** The wire changes {@code events}, one batch, make to {@code image}. */
  private static List<Message.Change> changes(TableImage image, RowEvent... events) {
    KeyMoves moves = new KeyMoves();
    List<RowChange> made = new ArrayList<>();
    for (RowEvent e : events) {
      image.apply(e, moves, made);
    }
    return made.stream().map(ch -> JsonEdge.change(image.form(), ch)).toList();
  }

  @Test
  void insertThenUpdatesIsOneInsertOfTheLatestImage() {
    c.add(1, 0, List.of(insert(1, "a")));
    c.add(2, 0, List.of(update(1, "a", "b"), update(1, "b", "c")));
    assertThat(drain()).containsExactly(T + " INSERT [1] c");
  }

  @Test
  void updatesAreOneUpdateFromTheFirstBeforeImageToTheLastAfterImage() {
    c.add(1, 0, List.of(update(1, "v0", "v1")));
    c.add(2, 0, List.of(update(1, "v1", "v2")));
    List<Message.Change> net = c.drain();
    assertThat(net).hasSize(1);
    assertThat(net.get(0).op()).isEqualTo(Op.UPDATE);
    assertThat(net.get(0).before().get("name").textValue()).isEqualTo("v0");
    assertThat(net.get(0).after().get("name").textValue()).isEqualTo("v2");
  }

  @Test
  void updateThenDeleteIsADeleteOfTheRowTheClientHas() {
    c.add(1, 0, List.of(update(1, "old", "new"), delete(1, "new")));
    List<Message.Change> net = c.drain();
    assertThat(net).extracting(Message.Change::op).containsExactly(Op.DELETE);
    assertThat(net.get(0).before().get("name").textValue()).isEqualTo("old");
  }

  @Test
  void insertThenDeleteIsNothingAndCostsNothing() {
    c.add(1, 0, List.of(insert(1, "a")));
    assertThat(c.keys()).isEqualTo(1);
    c.add(2, 0, List.of(delete(1, "a")));
    assertThat(c.keys()).isZero();
    assertThat(c.approxBytes()).isZero();
    assertThat(c.isEmpty())
        .as("a batch was folded: its position must still reach the client")
        .isFalse();
    assertThat(c.position()).isEqualTo(2);
    assertThat(c.drain()).isEmpty();
  }

  @Test
  void deleteThenInsertIsAnUpdate() {
    c.add(1, 0, List.of(delete(1, "old")));
    c.add(2, 0, List.of(insert(1, "again")));
    assertThat(drain()).containsExactly(T + " UPDATE [1] again");
  }

  @Test
  void updateThatChangesTheKeyIsADeleteOfTheOldKeyAndAnInsertOfTheNewOne() {
    c.add(
        1, 0, List.of(new Message.Change(T, Op.UPDATE, key(2), row(1, "moved"), row(2, "moved"))));
    assertThat(drain()).containsExactly(T + " DELETE [1] moved", T + " INSERT [2] moved");
  }

  @Test
  void deletesOfATableComeBeforeItsInsertsAndTablesKeepTheirFirstChangeOrder() {
    c.add(
        1,
        0,
        List.of(insert(5, "new"), new Message.Change(U, Op.INSERT, key(1), null, row(1, "u"))));
    c.add(2, 0, List.of(delete(4, "gone")));
    assertThat(drain())
        .containsExactly(T + " DELETE [4] gone", T + " INSERT [5] new", U + " INSERT [1] u");
  }

  @Test
  void positionAndCaptureTimeAreThoseOfTheNewestBatch() {
    c.add(7, 100, List.of(insert(1, "a")));
    c.add(9, 250, List.of(insert(2, "b")));
    assertThat(c.position()).isEqualTo(9);
    assertThat(c.captureMillis()).isEqualTo(250);
    c.drain();
    assertThat(c.isEmpty()).isTrue();
    assertThat(c.keys()).isZero();
  }

  @Test
  void approximateBytesFollowTheLatestImagesNotTheNumberOfChanges() {
    String big = "x".repeat(10_000);
    c.add(1, 0, List.of(insert(1, big)));
    long one = c.approxBytes();
    assertThat(one).isGreaterThan(10_000).isLessThan(10_000 + 200);
    for (int i = 0; i < 50; i++) {
      c.add(2 + i, 0, List.of(update(1, big, big)));
    }
    assertThat(c.approxBytes()).as("one key, however often it changed").isLessThan(3 * one);
    c.add(60, 0, List.of(update(1, big, "small")));
    assertThat(c.approxBytes()).as("a smaller latest image costs less").isLessThan(one);
    c.add(61, 0, List.of(insert(2, big)));
    assertThat(c.approxBytes()).isGreaterThan(one);
    c.drain();
    assertThat(c.approxBytes()).isZero();
  }
}

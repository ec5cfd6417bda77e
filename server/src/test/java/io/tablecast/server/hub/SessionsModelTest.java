package io.tablecast.server.hub;

import static io.tablecast.server.hub.FakeChangeSource.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.Channel;
import io.tablecast.protocol.Message;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.config.ResumeBufferSettings;
import io.tablecast.server.config.SlowConsumerSettings;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Sessions of every kind follow random changes as a client must see them: each session's mirror,
 * applying what it is sent and refusing any change that does not fit what it holds, equals its view
 * of the tables (rows its policy's filter and its shape let through, with their columns) after
 * every batch. Kinds: every row; a principal's row filter; a shape's filter and columns; a shape
 * whose filter reads another table (its rows move in and out when that table changes); a filter and
 * a shape together; each in the binary protocol of versions 3 and 2 and in a WebSocket's JSON. Each
 * kind also has a session whose channel stays unwritable for a while (its changes are coalesced per
 * key), and sessions join late, resuming from a random earlier position. The transactions move rows
 * between keys, onto keys other rows hold (a DEFERRABLE key, resolved by the commit) and in and out
 * of the filters; the seeds alternate PostgreSQL's capture (rows before every change) and MySQL's
 * (none; a key change is a delete and an insert).
 */
class SessionsModelTest {

  private static final TableSchema A = ModelTables.A;
  private static final TableSchema C = ModelTables.C;
  private static final String[] NAMES = ModelTables.NAMES;
  private static final int KEYS = ModelTables.KEYS;
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** The binary protocol, rows in the row form (3) and as maps (2); a WebSocket's JSON. */
  private static final Encoding[] ENCODINGS = {Encoding.BINARY, Encoding.BINARY_V2, Encoding.JSON};

  /** What a kind of session sees of table a. */
  private enum View {
    ALL(SessionPolicy.ALLOW_ALL, null),
    FILTERED(new SessionPolicy(null, "name", NODES.textNode("n1"), null), null),
    SHAPED(
        SessionPolicy.ALLOW_ALL,
        new Message.Shape("name IN ($1, 'n2')", List.of(NODES.textNode("n1")), List.of())),
    SUBQUERY(
        SessionPolicy.ALLOW_ALL,
        new Message.Shape("name IN (SELECT name FROM public.c WHERE id <= 2)", null, null)),
    FILTERED_AND_SHAPED(
        new SessionPolicy(null, "name", NODES.textNode("n2"), null),
        new Message.Shape("id <= 5", null, null));

    final SessionPolicy policy;
    final Message.Shape shape;

    View(SessionPolicy policy, Message.Shape shape) {
      this.policy = policy;
      this.shape = shape;
    }

    /** The rows of a this view shows, by key: the name, or "-" where the column is not shown. */
    Map<Long, String> of(Map<Long, String> a, Map<Long, String> c) {
      Map<Long, String> out = new TreeMap<>();
      a.forEach(
          (id, name) -> {
            boolean in =
                switch (this) {
                  case ALL -> true;
                  case FILTERED -> name.equals("n1");
                  case SHAPED -> name.equals("n1") || name.equals("n2");
                  case SUBQUERY -> name.equals(c.get(1L)) || name.equals(c.get(2L));
                  case FILTERED_AND_SHAPED -> name.equals("n2") && id <= 5;
                };
            if (in) {
              out.put(id, this == SHAPED ? "-" : name);
            }
          });
      return out;
    }
  }

  /** One session under test, its mirror of a and whether its channel is held unwritable. */
  private static final class Mirror {
    final View view;
    final Encoding encoding;
    final HubHarness.Session session;
    final Map<Long, String> rows = new TreeMap<>();
    final boolean slow;
    boolean unwritable;

    /**
     * Replayed from a stream of MySQL's capture, which does not say whether an upserted row was
     * new: an INSERT may repeat a row held (docs/SCALE-OUT.md).
     */
    boolean insertsMayRepeat;

    /** The batches it was sent, for the failure messages. */
    final List<String> received = new ArrayList<>();

    Mirror(View view, Encoding encoding, HubHarness.Session session, boolean slow) {
      this.view = view;
      this.encoding = encoding;
      this.session = session;
      this.slow = slow;
    }

    @Override
    public String toString() {
      return view + " " + encoding + (slow ? " (slow)" : "") + " " + session.subscriber();
    }
  }

  /** Changes held coalesced for a slow session when it became writable, over all seeds. */
  private static int coalesced;

  /** Batches that came in parts (a bulk UPDATE), over all seeds. */
  private static int inParts;

  /** Changes applied by the sessions of each encoding, over all seeds. */
  private static final Map<Encoding, Integer> APPLIED = new java.util.EnumMap<>(Encoding.class);

  /** 100 seeds, about 20 s; {@code -Dseeds=1000} for a longer search. */
  @Test
  void everyKindOfSessionSeesItsViewAfterEveryBatch() throws Exception {
    for (long seed = 0; seed < Long.getLong("seeds", 100); seed++) {
      run(seed);
    }
    assertThat(coalesced).as("changes coalesced for the slow sessions").isPositive();
    assertThat(inParts).as("batches that came in parts").isPositive();
    for (Encoding encoding : ENCODINGS) {
      assertThat(APPLIED.get(encoding)).as("changes applied in " + encoding).isPositive();
    }
  }

  private static void run(long seed) throws Exception {
    Random random = new Random(seed);
    boolean rowsBefore = seed % 2 == 0; // PostgreSQL's capture; else MySQL's
    // a server of a NATS stream, its resume buffer short: older resumes replay the stream
    boolean stream = seed % 4 >= 2;
    HubSettings settings =
        new HubSettings(
            Duration.ofMillis(8),
            new ResumeBufferSettings(stream ? 2 : 1_000, 1L << 30),
            new SlowConsumerSettings(
                64L << 20,
                10_000,
                SlowConsumerSettings.DEFAULTS.coalesceMaxBytes(),
                SlowConsumerSettings.DEFAULTS.snapshotTimeout()),
            100);
    StreamResumeTest.History history = new StreamResumeTest.History();
    history.open.countDown();
    try (HubHarness h =
        stream ? new HubHarness(settings, history, A, C) : new HubHarness(settings, A, C)) {
      List<ModelTables.Row> a = new ArrayList<>();
      Map<Long, String> c = new TreeMap<>();
      for (long k = 1; k <= KEYS / 2; k++) {
        a.add(new ModelTables.Row(k, NAMES[random.nextInt(NAMES.length)]));
        c.put(k, NAMES[random.nextInt(NAMES.length)]);
      }
      TableImage imageA = new TableImage(A);
      a.forEach(r -> imageA.put(Rows.bytes(A, r.json())));
      TableImage imageC = new TableImage(C);
      c.forEach((k, n) -> imageC.put(Rows.bytes(C, row(k, n))));
      h.hub.install(List.of(imageA, imageC), Map.of());
      if (stream) {
        h.hub.publishAt(10, CommittedBatch.EMPTY); // the images are at stream sequence 10
      }

      // the model of a and c after each position, for sessions resuming from it
      Map<Long, Map<Long, String>> aAt = new HashMap<>();
      Map<Long, Map<Long, String>> cAt = new HashMap<>();
      aAt.put(h.hub.position(), ModelTables.byKey(a));
      cAt.put(h.hub.position(), new TreeMap<>(c));

      List<Mirror> mirrors = new ArrayList<>();
      for (View view : View.values()) {
        for (boolean slow : new boolean[] {false, true}) {
          // each kind of session in each encoding, over the seeds
          Encoding encoding = ENCODINGS[(int) ((view.ordinal() * 2 + (slow ? 1 : 0) + seed) % 3)];
          String name = view + "-" + encoding + (slow ? "-slow" : "");
          Mirror m = new Mirror(view, encoding, h.connect(name, view.policy, encoding), slow);
          subscribe(h, m, null, -1);
          mirrors.add(m);
        }
      }
      List<String> log = new ArrayList<>();
      for (int b = 0; b < 16; b++) {
        List<RowEvent> events = new ArrayList<>();
        int transactions = 1 + random.nextInt(3);
        for (int t = 0; t < transactions; t++) {
          if (random.nextInt(6) == 0) {
            ModelTables.changeC(random, c, events);
          } else if (random.nextInt(25) == 0) {
            a.clear();
            events.add(new RowEvent.Truncate(A.id().qualified()));
          } else if (random.nextInt(30) == 0) {
            ModelTables.bulk(random, a, rowsBefore, events);
          } else {
            ModelTables.transaction(random, a, rowsBefore, events);
          }
        }
        if (events.size() > 100) {
          log.add(b + ": " + events.size() + " events, a bulk UPDATE among them");
        } else {
          for (RowEvent e : events) {
            log.add(b + ": " + ModelTables.describe(e));
          }
        }
        h.hub.sessionStates().forEach(s -> coalesced += s.coalescedKeys());
        for (Mirror m : mirrors) {
          if (m.slow && random.nextInt(3) == 0) {
            writable(m, m.unwritable); // flips
          }
        }
        CommittedBatch batch = new CommittedBatch(events, 0);
        if (stream) { // a server of a stream: the batch takes the next sequence
          long at = h.hub.position() + 1;
          history.published.add(new BatchHistory.Positioned(at, batch));
          h.hub.publishAt(at, batch);
        } else {
          h.hub.publish(batch);
        }
        long position = h.hub.position();
        aAt.put(position, ModelTables.byKey(a));
        cAt.put(position, new TreeMap<>(c));
        if (random.nextInt(4) == 0) {
          long from = new ArrayList<>(aAt.keySet()).get(random.nextInt(aAt.size()));
          View view = View.values()[random.nextInt(View.values().length)];
          Encoding encoding = ENCODINGS[random.nextInt(ENCODINGS.length)];
          String name = view + "-" + encoding + "-from-" + from;
          Mirror m = new Mirror(view, encoding, h.connect(name, view.policy, encoding), false);
          m.rows.putAll(view.of(aAt.get(from), cAt.get(from)));
          m.insertsMayRepeat = stream && !rowsBefore;
          subscribe(h, m, h.hub.epoch(), from);
          mirrors.add(m);
          log.add(b + ": " + m + " resumes from " + from);
        }
        for (Mirror m : mirrors) {
          if (m.unwritable && b < 15) {
            continue;
          }
          writable(m, true);
          follow(
              m,
              position,
              "seed "
                  + seed
                  + (rowsBefore ? " (rows before)" : "")
                  + (stream ? " (stream)" : "")
                  + ", "
                  + log);
          assertThat(m.rows)
              .as("%s after batch %d, seed %d; events:\n%s", m, b, seed, String.join("\n", log))
              .isEqualTo(m.view.of(ModelTables.byKey(a), c));
          m.insertsMayRepeat = false; // replayed: what follows is live
        }
      }
    }
  }

  private static void subscribe(HubHarness h, Mirror m, String epoch, long from) {
    Map<String, Message.Shape> shapes =
        m.view.shape == null ? null : Map.of(A.id().qualified(), m.view.shape);
    h.hub.subscribe(
        m.session.subscriber(),
        new Message.Subscribe(List.of(A.id().qualified()), epoch, from, null, shapes));
  }

  /** Makes the session's channel writable or not (a client that stopped reading). */
  private static void writable(Mirror m, boolean writable) throws InterruptedException {
    Channel server = m.session.serverSide();
    server
        .eventLoop()
        .submit(() -> server.unsafe().outboundBuffer().setUserDefinedWritability(1, writable))
        .sync();
    m.unwritable = !writable;
  }

  /** Applies what the session is sent until it reaches {@code position}. */
  private static void follow(Mirror m, long position, String context) throws Exception {
    List<Message.Change> parts = new ArrayList<>();
    while (true) {
      Message msg = m.session.client().next();
      long reached;
      if (msg instanceof Message.ChangePart part) {
        parts.addAll(part.changes()); // applied with the batch's last frame
        continue;
      } else if (msg instanceof Message.ChangeBatch batch) {
        List<Message.Change> changes = new ArrayList<>(parts);
        if (!parts.isEmpty()) {
          inParts++;
        }
        parts.clear();
        changes.addAll(batch.changes());
        if (!changes.isEmpty()) {
          m.received.add(
              batch.position()
                  + ": "
                  + (changes.size() > 20 ? changes.size() + " changes" : changes.toString()));
        }
        for (Message.Change ch : changes) {
          applyStrictly(m, ch, context);
        }
        APPLIED.merge(m.encoding, changes.size(), Integer::sum);
        reached = batch.position();
      } else if (msg instanceof Message.SnapshotBegin) {
        m.rows.clear();
        continue;
      } else if (msg instanceof Message.SnapshotRows rows) {
        for (ObjectNode r : rows.rows()) {
          m.rows.put(r.get("id").asLong(), nameOf(r));
        }
        continue;
      } else if (msg instanceof Message.SnapshotEnd end) {
        reached = end.position();
      } else if (msg instanceof Message.Resumed resumed) {
        reached = resumed.position();
      } else if (msg instanceof Message.Ping) {
        continue;
      } else {
        fail("%s was sent %s; %s", m, msg, context);
        return;
      }
      if (reached >= position) {
        return;
      }
    }
  }

  /** Applies a change as a client must be able to: fails when it does not fit what it holds. */
  private static void applyStrictly(Mirror m, Message.Change ch, String context) {
    String what =
        m
            + " was sent "
            + ch
            + "; holding "
            + m.rows
            + "; it was sent "
            + m.received
            + "; "
            + context;
    assertThat(ch.table()).as(what).isEqualTo(A.id().qualified());
    long key = ch.key().get(0).asLong();
    switch (ch.op()) {
      case INSERT -> {
        if (!m.insertsMayRepeat) {
          assertThat(m.rows).as("an INSERT onto a free key: " + what).doesNotContainKey(key);
        }
        m.rows.put(key, nameOf(ch.after()));
      }
      case UPDATE -> {
        long from = ch.before() == null ? key : ch.before().get("id").asLong();
        assertThat(m.rows).as("an UPDATE of a row held: " + what).containsKey(from);
        if (ch.before() != null) {
          assertThat(m.rows.get(from)).as("the row before: " + what).isEqualTo(nameOf(ch.before()));
        }
        m.rows.remove(from);
        assertThat(m.rows).as("an UPDATE onto a free key: " + what).doesNotContainKey(key);
        m.rows.put(key, nameOf(ch.after()));
      }
      case DELETE -> {
        assertThat(m.rows).as("a DELETE of a row held: " + what).containsKey(key);
        if (ch.before() != null) {
          assertThat(m.rows.get(key)).as("the row deleted: " + what).isEqualTo(nameOf(ch.before()));
        }
        m.rows.remove(key);
      }
    }
  }

  private static String nameOf(JsonNode row) {
    JsonNode name = row.get("name");
    return name == null ? "-" : name.asText();
  }
}

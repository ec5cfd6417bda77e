package io.tablecast.bench;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * Tablecast in figure 1: a fresh schema with triggers, the server in this JVM and one generic
 * {@code TableMirror}. Visibility is signalled by a mirror listener, which the client calls on its
 * listener thread after the batch is visible in the mirror. {@link #throughNats} measures the
 * scale-out path instead: capture, NATS and a server serving from the stream.
 */
final class TablecastSubject implements LatencySubject {
  static final String SINGLE = "Tablecast";
  static final String THROUGH_NATS = "Tablecast via NATS";

  private final String system;
  private final Rig rig;
  private final TableMirror<Map<String, Object>> mirror;

  private TablecastSubject(String system, Rig rig, TableMirror<Map<String, Object>> mirror) {
    this.system = system;
    this.rig = rig;
    this.mirror = mirror;
  }

  static TablecastSubject start(Db db, int keys) throws InterruptedException {
    return start(db, keys, PollSchedule.DEFAULT);
  }

  /** With the server's tail polling on {@code poll}. */
  static TablecastSubject start(Db db, int keys, PollSchedule poll) throws InterruptedException {
    Rig rig = Rig.create(db, "latency_tablecast", keys, n -> {}).poll(poll);
    try {
      rig.startServer();
      TablecastClient client = rig.client("bench-latency");
      return new TablecastSubject(SINGLE, rig, rig.readyMirror(client, Duration.ofSeconds(60)));
    } catch (InterruptedException | RuntimeException e) {
      rig.close();
      throw e;
    }
  }

  /**
   * The deployment of docs/SCALE-OUT.md: {@code tablecast capture} publishing to a NATS stream of a
   * {@code nats-server} of its own, one server serving from the stream, the mirror its client.
   */
  static TablecastSubject throughNats(Db db, int keys) throws IOException, InterruptedException {
    Rig rig = Rig.create(db, "latency_nats", keys, n -> {});
    try {
      StreamRig stream = rig.closeWith(StreamRig.start(rig, 1));
      TablecastClient client = rig.client("bench-latency", StreamRig.address(stream.edge(0)));
      return new TablecastSubject(
          THROUGH_NATS, rig, rig.readyMirror(client, Duration.ofSeconds(60)));
    } catch (IOException | InterruptedException | RuntimeException e) {
      rig.close();
      throw e;
    }
  }

  Rig rig() {
    return rig;
  }

  @Override
  public String system() {
    return system;
  }

  @Override
  public Db.Schema schema() {
    return rig.schema;
  }

  @Override
  public AutoCloseable onVisible(VisibleListener listener) {
    return mirror.addListener(
        ev -> {
          long now = System.nanoTime();
          Map<String, Object> row = ev.newRow();
          if (row != null && row.get("version") instanceof Number v) {
            listener.visible(v.longValue(), now);
          }
        });
  }

  @Override
  public void close() {
    rig.close();
  }
}

package io.tablecast.bench;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.time.Duration;
import java.util.Map;

/**
 * Tablecast in figure 1: a fresh schema with triggers, the server in this JVM and one generic
 * {@code TableMirror}. Visibility is signalled by a mirror listener, which the client calls on its
 * listener thread after the batch is visible in the mirror.
 */
final class TablecastSubject implements LatencySubject {
  private final Rig rig;
  private final TableMirror<Map<String, Object>> mirror;

  private TablecastSubject(Rig rig, TableMirror<Map<String, Object>> mirror) {
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
      return new TablecastSubject(rig, rig.readyMirror(client, Duration.ofSeconds(60)));
    } catch (InterruptedException | RuntimeException e) {
      rig.close();
      throw e;
    }
  }

  Rig rig() {
    return rig;
  }

  @Override
  public String system() {
    return "Tablecast";
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

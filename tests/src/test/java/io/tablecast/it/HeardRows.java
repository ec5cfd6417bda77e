package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.TableMirror;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What the listeners of a mirror heard from when it was created, over a copy of its rows taken just
 * after the listener was added: replayed in order over the copy (a change the copy already holds is
 * set again), they give the mirror's rows once both are still.
 */
final class HeardRows<V> {
  private final TableMirror<V> mirror;
  private final Queue<ChangeEvent<V>> events = new ConcurrentLinkedQueue<>();
  private final Map<Object, V> copy;
  private final long seed;

  HeardRows(TableMirror<V> mirror, long seed) {
    this.seed = seed;
    this.mirror = mirror;
    mirror.addListener(events::add);
    copy = mirror.copyToMap();
  }

  void awaitEqualToTheMirror() {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Map<Object, V> rows = new HashMap<>(copy);
              for (ChangeEvent<V> e : events) {
                if (e.newRow() == null) {
                  rows.remove(e.key());
                } else {
                  rows.put(e.key(), e.newRow());
                }
              }
              assertThat(UnderLoad.differences(rows, "heard", mirror.copyToMap(), "held"))
                  .as("%s: the rows its listeners heard (seed %d)", mirror.table(), seed)
                  .isEmpty();
            });
  }
}

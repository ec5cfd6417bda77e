package io.tablecast.spring.boot;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tablecast.client.TableMirror;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * The client's meters, bound to the application's {@link MeterRegistry}:
 *
 * <ul>
 *   <li>{@code tablecast.client.connected}: 1 connected, 0 not, NaN before any connection event;
 *   <li>per mirror bean (tags {@code mirror}: the bean name, {@code table}): {@code
 *       tablecast.client.mirror.rows}, {@code tablecast.client.mirror.ready} (1/0), {@code
 *       tablecast.client.mirror.stale} (1/0), {@code tablecast.client.mirror.position}, {@code
 *       tablecast.client.mirror.lag} (the mirror's lagMillis, NaN before a transaction came);
 *   <li>counters: {@code tablecast.client.reconnects}, {@code tablecast.client.disconnects}, {@code
 *       tablecast.client.resnapshots} (tag {@code table}), {@code tablecast.client.rows.unmapped}
 *       (tag {@code table}), {@code tablecast.client.server.errors} (tag {@code code}).
 * </ul>
 */
public class TablecastClientMetrics implements MeterBinder {
  private final MirrorBeans mirrors;
  private final ClientActivity activity;

  TablecastClientMetrics(MirrorBeans mirrors, ClientActivity activity) {
    this.mirrors = mirrors;
    this.activity = activity;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Gauge.builder(
            "tablecast.client.connected",
            activity,
            a -> a.connected() == null ? Double.NaN : a.connected() ? 1 : 0)
        .description("1 when the client is connected to a server, 0 when not")
        .register(registry);
    for (Map.Entry<String, TableMirror<?>> e : mirrors.byName().entrySet()) {
      Tags tags = Tags.of("mirror", e.getKey(), "table", e.getValue().table());
      mirrorGauge(registry, "rows", "rows in the mirror", tags, e.getValue(), TableMirror::size);
      mirrorGauge(
          registry,
          "ready",
          "1 once the mirror's first snapshot is in",
          tags,
          e.getValue(),
          m -> m.isReady() ? 1 : 0);
      mirrorGauge(
          registry,
          "stale",
          "1 while the mirror may differ from its table (see health)",
          tags,
          e.getValue(),
          m -> m.staleReason() != null ? 1 : 0);
      mirrorGauge(
          registry,
          "position",
          "stream position of the last change applied",
          tags,
          e.getValue(),
          TableMirror::position);
      TimeGauge.builder(
              "tablecast.client.mirror.lag",
              e.getValue(),
              TimeUnit.MILLISECONDS,
              m -> m.lagMillis() < 0 ? Double.NaN : m.lagMillis())
          .description("how long the last transaction applied took from the database to the mirror")
          .tags(tags)
          .register(registry);
    }
    counter(
        registry,
        "tablecast.client.reconnects",
        "connections made after one had ended",
        Tags.empty(),
        activity.reconnects());
    counter(
        registry,
        "tablecast.client.disconnects",
        "connections to a server that ended",
        Tags.empty(),
        activity.disconnects());
    activity
        .resnapshots()
        .watch(
            (table, count) ->
                counter(
                    registry,
                    "tablecast.client.resnapshots",
                    "new snapshots of a table the mirrors held (resume refused)",
                    Tags.of("table", table),
                    count));
    activity
        .unmappedRows()
        .watch(
            (table, count) ->
                counter(
                    registry,
                    "tablecast.client.rows.unmapped",
                    "changed rows that could not be mapped to a typed mirror's row type",
                    Tags.of("table", table),
                    count));
    activity
        .serverErrors()
        .watch(
            (code, count) ->
                counter(
                    registry,
                    "tablecast.client.server.errors",
                    "errors reported by the server",
                    Tags.of("code", code),
                    count));
  }

  private static void mirrorGauge(
      MeterRegistry registry,
      String name,
      String description,
      Tags tags,
      TableMirror<?> mirror,
      ToDoubleFunction<TableMirror<?>> value) {
    Gauge.builder("tablecast.client.mirror." + name, mirror, value)
        .tags(tags)
        .description(description)
        .strongReference(true)
        .register(registry);
  }

  private static void counter(
      MeterRegistry registry, String name, String description, Tags tags, AtomicLong count) {
    FunctionCounter.builder(name, count, AtomicLong::doubleValue)
        .tags(tags)
        .description(description)
        .register(registry);
  }
}

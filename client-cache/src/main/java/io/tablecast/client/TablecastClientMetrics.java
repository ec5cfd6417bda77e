package io.tablecast.client;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * A client's meters, for applications that run <a href="https://micrometer.io">Micrometer</a>:
 * {@code new TablecastClientMetrics(client).bindTo(registry)} (Spring Boot binds a {@code
 * MeterBinder} bean by itself; the Tablecast starter declares this one). Every meter is tagged
 * {@code client} (the {@link TablecastClient.Builder#clientName client's name}), those of a table
 * also {@code table}; the names and what they mean are the table of {@code docs/CLIENT.md}
 * (Metrics):
 *
 * <ul>
 *   <li>{@code tablecast.client.connected} (1/0), counters {@code tablecast.client.reconnects},
 *       {@code tablecast.client.disconnects}, {@code tablecast.client.server.errors} (tag {@code
 *       code}, every {@link ServerError} from the start);
 *   <li>per table, from its first mirror on: gauges {@code tablecast.client.mirror.rows}, {@code
 *       .ready}, {@code .stale}, {@code .position}, {@code .lag} (the last transaction's lag for a
 *       second, then 0); the timer {@code tablecast.client.lag} (every transaction, from its
 *       capture in the database to the mirror); counters {@code tablecast.client.changes}, {@code
 *       tablecast.client.resnapshots}, {@code tablecast.client.snapshots.cut}, {@code
 *       tablecast.client.resumes}, {@code tablecast.client.rows.unmapped};
 *   <li>per near cache (tags {@code table} and {@code row_type}), from its creation on: the gauge
 *       {@code tablecast.client.near.rows} and counters {@code tablecast.client.near.hits}, {@code
 *       .misses}, {@code .loads}, {@code .load.failures}, {@code .evictions} (Caffeine's
 *       statistics).
 * </ul>
 *
 * <p>The client counts from its start whether or not it is bound, so the counters bound later miss
 * nothing; the timer records the transactions applied after {@link #bindTo}. Micrometer is an
 * optional dependency of the client: only this class names its types, and a client that never
 * touches it runs without Micrometer on the class path.
 */
public final class TablecastClientMetrics implements MeterBinder {
  private final TablecastClient client;
  private final Tags tags;

  /** The meters of {@code client}, tagged {@code client} with its name. */
  public TablecastClientMetrics(TablecastClient client) {
    this(client, Tags.empty());
  }

  /** The meters of {@code client}, tagged {@code client} with its name and with {@code tags}. */
  public TablecastClientMetrics(TablecastClient client, Iterable<Tag> tags) {
    this.client = Objects.requireNonNull(client, "client");
    this.tags = Tags.of(tags).and("client", client.activity().clientName());
  }

  /**
   * Registers the client's meters in {@code registry}, and those of each table as its first mirror
   * is created. Binding one client to a registry twice registers nothing more.
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    ClientActivity activity = client.activity();
    Gauge.builder("tablecast.client.connected", activity, a -> a.isConnected() ? 1 : 0)
        .description("1 while a server has welcomed the client, 0 when not")
        .tags(tags)
        .register(registry);
    counter(
        registry,
        "tablecast.client.reconnects",
        "connections made after one had ended",
        tags,
        activity,
        ClientActivity::reconnects);
    counter(
        registry,
        "tablecast.client.disconnects",
        "connections to a server that ended",
        tags,
        activity,
        ClientActivity::disconnects);
    for (ServerError code : ServerError.values()) {
      counter(
          registry,
          "tablecast.client.server.errors",
          "errors the server reported, by code",
          tags.and("code", code.name()),
          activity,
          a -> a.serverErrors(code));
    }
    activity.watchTables(table -> bindTable(registry, table));
    activity.watchNearCaches(near -> bindNearCache(registry, near));
  }

  private void bindNearCache(MeterRegistry registry, NearCacheMirror<?> near) {
    Tags t = tags.and("table", near.table()).and("row_type", near.rowTypeName());
    Gauge.builder("tablecast.client.near.rows", near, NearCache::estimatedSize)
        .description("keys the near cache holds (rows and known absences), approximately")
        .tags(t)
        .register(registry);
    counter(
        registry,
        "tablecast.client.near.hits",
        "reads the near cache answered from what it holds",
        t,
        near,
        n -> n.stats().hitCount());
    counter(
        registry,
        "tablecast.client.near.misses",
        "reads the near cache loaded from the server",
        t,
        near,
        n -> n.stats().missCount());
    counter(
        registry,
        "tablecast.client.near.loads",
        "loads completed, with or without a row",
        t,
        near,
        n -> n.stats().loadSuccessCount());
    counter(
        registry,
        "tablecast.client.near.load.failures",
        "loads that failed (refused, unmappable, closed)",
        t,
        near,
        n -> n.stats().loadFailureCount());
    counter(
        registry,
        "tablecast.client.near.evictions",
        "rows the bound or the expiry removed",
        t,
        near,
        n -> n.stats().evictionCount());
  }

  private void bindTable(MeterRegistry registry, TableActivity table) {
    Tags t = tags.and("table", table.table());
    gauge(registry, "rows", "rows in the table's mirror", t, table, TableActivity::rows);
    gauge(
        registry,
        "ready",
        "1 once every mirror of the table holds its first snapshot",
        t,
        table,
        a -> a.ready() ? 1 : 0);
    gauge(
        registry,
        "stale",
        "1 while a mirror of the table may differ from it (staleReason)",
        t,
        table,
        a -> a.stale() ? 1 : 0);
    gauge(
        registry,
        "position",
        "stream position of the last transaction or snapshot applied",
        t,
        table,
        TableActivity::position);
    TimeGauge.builder(
            "tablecast.client.mirror.lag",
            table,
            TimeUnit.MILLISECONDS,
            TableActivity::heldLagMillis)
        .description("capture to mirror of the table's last transaction; 0 once idle for 1 s")
        .tags(t)
        .register(registry);
    Timer lag =
        Timer.builder("tablecast.client.lag")
            .description("capture in the database to application in the mirror, per transaction")
            .tags(t)
            .register(registry);
    table.recordLagInto(lag, millis -> lag.record(millis, TimeUnit.MILLISECONDS));
    counter(
        registry,
        "tablecast.client.changes",
        "row changes applied to the table's mirror",
        t,
        table,
        TableActivity::changes);
    counter(
        registry,
        "tablecast.client.resnapshots",
        "snapshots of the table after the first (its resume was refused)",
        t,
        table,
        TableActivity::resnapshots);
    counter(
        registry,
        "tablecast.client.snapshots.cut",
        "snapshots of the table the connection's end cut short (each asked for again)",
        t,
        table,
        TableActivity::snapshotsCutShort);
    counter(
        registry,
        "tablecast.client.resumes",
        "reconnections that resumed the table without a snapshot",
        t,
        table,
        TableActivity::resumes);
    counter(
        registry,
        "tablecast.client.rows.unmapped",
        "changed rows that could not be mapped to a typed mirror's row type",
        t,
        table,
        TableActivity::unmappedRows);
  }

  private static void gauge(
      MeterRegistry registry,
      String name,
      String description,
      Tags tags,
      TableActivity table,
      ToDoubleFunction<TableActivity> value) {
    Gauge.builder("tablecast.client.mirror." + name, table, value)
        .description(description)
        .tags(tags)
        .register(registry);
  }

  private static <T> void counter(
      MeterRegistry registry,
      String name,
      String description,
      Tags tags,
      T state,
      ToDoubleFunction<T> count) {
    FunctionCounter.builder(name, state, count)
        .description(description)
        .tags(tags)
        .register(registry);
  }
}

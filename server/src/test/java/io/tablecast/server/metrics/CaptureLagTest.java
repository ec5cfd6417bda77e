package io.tablecast.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@code tablecast_capture_lag_seconds{table}}: the capture-to-fan-out lag of each table's last
 * changes, which falls to zero once the table has been idle for a second instead of freezing at its
 * last value. Driven by a fake clock: no wall-clock timing.
 */
class CaptureLagTest {
  private final AtomicLong now = new AtomicLong(1_000_000);
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final MicrometerServerMetrics metrics = new MicrometerServerMetrics(registry, now::get);

  @Test
  void everyCachedTableHasTheGaugeAtZeroFromTheStart() {
    metrics.tablesCached(List.of("shop.items", "shop.orders"));
    assertThat(lag("shop.items")).isZero();
    assertThat(metrics.prometheusText())
        .contains("# TYPE tablecast_capture_lag_seconds gauge")
        .contains("tablecast_capture_lag_seconds{table=\"shop.items\"} 0.0")
        .contains("tablecast_capture_lag_seconds{table=\"shop.orders\"} 0.0");
  }

  @Test
  void showsTheLastBatchsLagPerTableThenFallsToZeroWhenTheTableIsIdle() {
    metrics.tablesCached(List.of("shop.items", "shop.orders"));
    metrics.tablesPublished(List.of("shop.items"), now.get() - 250);
    assertThat(lag("shop.items")).isEqualTo(0.25);
    assertThat(lag("shop.orders")).as("a table without changes has no lag").isZero();

    now.addAndGet(999); // still within a second of the batch
    assertThat(lag("shop.items")).isEqualTo(0.25);
    now.addAndGet(1); // a second without a change of the table
    assertThat(lag("shop.items")).isZero();
    assertThat(metrics.prometheusText())
        .contains("tablecast_capture_lag_seconds{table=\"shop.items\"} 0.0");

    metrics.tablesPublished(List.of("shop.items", "shop.orders"), now.get() - 3);
    assertThat(lag("shop.items")).isEqualTo(0.003);
    assertThat(lag("shop.orders")).isEqualTo(0.003);
  }

  @Test
  void aCaptureTimeAheadOfTheServersClockIsNoNegativeLag() {
    metrics.tablesCached(List.of("shop.items"));
    metrics.tablesPublished(List.of("shop.items"), now.get() + 40);
    assertThat(lag("shop.items")).isZero();
  }

  private double lag(String table) {
    return registry.get("tablecast.capture.lag").tag("table", table).gauge().value();
  }
}

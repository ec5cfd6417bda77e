package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.metrics.MicrometerServerMetrics;
import org.junit.jupiter.api.Test;

/** The security and limit meters appear on /metrics under the names docs/PROTOCOL.md lists. */
class SecurityMetricsTest {

  @Test
  void authLimitAndCoalescingMetersHaveTheDocumentedPrometheusNames() {
    MicrometerServerMetrics metrics = MicrometerServerMetrics.prometheus();
    metrics.authFailed("no_policy");
    metrics.limitRefused("idle_timeout");
    metrics.coalesced(3);
    assertThat(metrics.prometheusText())
        .contains("tablecast_auth_failures_total{reason=\"no_policy\"} 1.0")
        .contains("tablecast_limit_refusals_total{limit=\"idle_timeout\"} 1.0")
        .contains("tablecast_slow_coalesced_changes_total 3.0");
  }
}

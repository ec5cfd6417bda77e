package io.tablecast.server.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of {@link MicrometerServerMetrics} that have no tags and are registered once, when the
 * metrics are created: the clients and outbox backlog gauges (with the values they read), the
 * batch, change, resume, slow-consumer and gap counters and the lag timer.
 */
final class FixedMeters {

  final AtomicInteger clients = new AtomicInteger();
  final Counter batches;
  final Counter changes;
  final Timer lag;
  final Counter resumes;
  final Counter streamResumes;
  final Counter slowConsumers;
  final Counter gapsExpired;
  final AtomicLong outboxBacklog = new AtomicLong();

  FixedMeters(MeterRegistry registry) {
    registry.gauge("tablecast.clients", clients);
    batches =
        Counter.builder("tablecast.batches")
            .description("change batches fanned out")
            .register(registry);
    changes =
        Counter.builder("tablecast.changes")
            .description("row changes fanned out")
            .register(registry);
    lag =
        Timer.builder("tablecast.lag")
            .description("outbox capture to fan-out")
            .publishPercentiles(0.5, 0.99, 0.999)
            .register(registry);
    resumes =
        Counter.builder("tablecast.resumes")
            .description("subscriptions resumed without a snapshot")
            .register(registry);
    streamResumes =
        Counter.builder("tablecast.resumes.stream")
            .description(
                "subscriptions older than the resume buffer replayed from the stream, without a"
                    + " snapshot")
            .register(registry);
    slowConsumers =
        Counter.builder("tablecast.slow.consumers")
            .description("sessions closed for not reading")
            .register(registry);
    gapsExpired =
        Counter.builder("tablecast.gaps.expired")
            .description("outbox ids dropped as rolled back on lock probes (no PROCESS privilege)")
            .register(registry);
    registry.gauge("tablecast.outbox.backlog", outboxBacklog);
  }
}

package io.tablecast.server.tail;

import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.ServerMetrics;
import java.time.Duration;

/**
 * What {@link TailDialect#open} builds a change source from.
 *
 * @param plan the described tables and the outbox, with the database's dialect
 * @param pool the source's connections, in the dialect's {@link TailDialect#poolIsolation
 *     isolation}
 * @param config the source's settings
 * @param metrics where the source records its meters
 * @param pruneRest how long the outbox pruner rests after a round that found less than a chunk
 *     ({@link OutboxPruner#REST} in a server, shorter in tests)
 * @param probeWait MySQL/MariaDB without the PROCESS privilege: how long lock probes must find a
 *     skipped id absent; null = {@code innodb_lock_wait_timeout} + 1 s (tests shorten it)
 */
public record SourceContext(
    CapturePlan plan,
    HikariDataSource pool,
    SourceConfig config,
    ServerMetrics metrics,
    Duration pruneRest,
    Duration probeWait) {}

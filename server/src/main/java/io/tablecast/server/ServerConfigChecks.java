package io.tablecast.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** The checks {@link ServerConfig.Builder#build()} runs: each failure names the key and the bad value. */
final class ServerConfigChecks {
  /** Shortest {@code metrics_token} accepted: 16 characters, e.g. 64 random bits as hex. */
  static final int MIN_METRICS_TOKEN_CHARS = 16;

  private ServerConfigChecks() {}

  static void check(ServerConfig c) {
    if (c.serverName() == null || c.serverName().isBlank()) {
      throw new IllegalArgumentException("server_name must not be empty, was '" + c.serverName() + "'");
    }
    if (c.listenHost() == null || c.listenHost().isBlank()) {
      throw new IllegalArgumentException("listen.host must not be empty, was '" + c.listenHost() + "'");
    }
    if (c.listenPort() < 0 || c.listenPort() > 65535) {
      throw new IllegalArgumentException("listen.port must be 0..65535 (0 = any free port), was " + c.listenPort());
    }
    positive("heartbeat", c.heartbeat());
    positive("handshake_timeout", c.handshakeTimeout());
    atLeast("max_frame_bytes", c.maxFrameBytes(), 1024, "");
    atLeast("resume_buffer.batches", c.resumeBufferBatches(), 0, "");
    atLeast("resume_buffer.bytes", c.resumeBufferBytes(), 0, "");
    atLeast("write_buffer.low_water_mark", c.writeBufferLowWaterMark(), 1, "");
    atLeast("write_buffer.high_water_mark", c.writeBufferHighWaterMark(), c.writeBufferLowWaterMark(),
        " (low_water_mark)");
    atLeast("slow_consumer.max_pending_bytes", c.slowConsumerMaxPendingBytes(), c.writeBufferHighWaterMark(),
        " (write_buffer.high_water_mark)");
    atLeast("slow_consumer.coalesce_max_keys", c.slowConsumerCoalesceMaxKeys(), 0, " (0 = no coalescing)");
    atLeast("slow_consumer.coalesce_max_bytes", c.slowConsumerCoalesceMaxBytes(), 1024, "");
    positive("slow_consumer.snapshot_timeout", c.slowConsumerSnapshotTimeout());
    positive("idle_timeout", c.idleTimeout());
    if (c.idleTimeout().compareTo(c.heartbeat()) < 0) {
      throw new IllegalArgumentException("idle_timeout must be at least the heartbeat (" + c.heartbeat() + "), was "
          + c.idleTimeout());
    }
    atLeast("max_subscriptions_per_connection", c.maxSubscriptionsPerConnection(), 1, "");
    atLeast("max_connections", c.maxConnections(), 1, "");
    directory("static_dir", c.staticDir());
    directory("static_client_dir", c.staticClientDir());
    if (c.metricsToken() != null && c.metricsToken().length() < MIN_METRICS_TOKEN_CHARS) {
      throw new IllegalArgumentException("metrics_token must be at least " + MIN_METRICS_TOKEN_CHARS
          + " characters (a random one: openssl rand -hex 16), was " + c.metricsToken().length());
    }
  }

  private static void atLeast(String key, long value, long min, String what) {
    if (value < min) {
      throw new IllegalArgumentException(key + " must be at least " + min + what + ", was " + value);
    }
  }

  private static void directory(String key, Path dir) {
    if (dir != null && !Files.isDirectory(dir)) {
      throw new IllegalArgumentException(key + " must be an existing directory, was '" + dir + "'");
    }
  }

  private static void positive(String key, Duration d) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(key + " must be a positive duration, was " + d);
    }
  }
}

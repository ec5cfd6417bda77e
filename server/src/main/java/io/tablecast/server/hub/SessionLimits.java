package io.tablecast.server.hub;

import io.tablecast.server.ServerConfig;
import java.time.Duration;

/**
 * The per-session limits the hub enforces, set through {@link ChangeHub}'s setters from any
 * thread and read on the hub thread. Defaults are {@link ServerConfig}'s.
 */
final class SessionLimits {

  /** {@code slow_consumer.max_pending_bytes}: bytes queued or held back for one session. */
  final long maxPendingBytes;
  /** {@code slow_consumer.coalesce_max_keys}; 0 = no coalescing. */
  volatile int coalesceMaxKeys;
  /** {@code slow_consumer.coalesce_max_bytes}: approximate coalesced bytes, and largest coalesced frame. */
  volatile long coalesceMaxBytes = ServerConfig.DEFAULT_SLOW_CONSUMER_COALESCE_MAX_BYTES;
  /** {@code slow_consumer.snapshot_timeout}: a snapshot or resume replay must be read within it. */
  volatile Duration snapshotTimeout = ServerConfig.DEFAULT_SLOW_CONSUMER_SNAPSHOT_TIMEOUT;
  /** {@code max_subscriptions_per_connection}. */
  volatile int maxSubscriptions = ServerConfig.DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION;

  SessionLimits(long maxPendingBytes) {
    this.maxPendingBytes = maxPendingBytes;
  }
}

package io.tablecast.server.hub;

import io.tablecast.server.config.ResumeBufferSettings;
import io.tablecast.server.config.SlowConsumerSettings;
import java.time.Duration;

/** Hub settings for tests: the default slow-consumer bounds but no coalescing. */
public final class TestHubSettings {

  private TestHubSettings() {}

  /**
   * At most 100 subscriptions per session, no coalescing.
   *
   * @param resumeBatches resume buffer bound in batches
   * @param resumeBytes resume buffer bound in approximate bytes
   * @param maxPendingBytes slow-consumer limit per session
   */
  public static HubSettings of(
      Duration heartbeat, int resumeBatches, long resumeBytes, long maxPendingBytes) {
    return new HubSettings(
        heartbeat,
        new ResumeBufferSettings(resumeBatches, resumeBytes),
        new SlowConsumerSettings(
            maxPendingBytes,
            0,
            SlowConsumerSettings.DEFAULTS.coalesceMaxBytes(),
            SlowConsumerSettings.DEFAULTS.snapshotTimeout()),
        100);
  }

  /** {@code settings} with another {@code max_subscriptions_per_connection}. */
  public static HubSettings withMaxSubscriptions(HubSettings settings, int max) {
    return new HubSettings(
        settings.heartbeat(), settings.resumeBuffer(), settings.slowConsumer(), max);
  }
}

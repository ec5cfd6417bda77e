package io.tablecast.server.hub;

import io.tablecast.server.config.ResumeBufferSettings;
import io.tablecast.server.config.SlowConsumerSettings;
import java.time.Duration;

/**
 * What the {@link ChangeHub} takes of the configuration, fixed for its life (the server builds it
 * from its {@code ServerConfig}; docs/CONFIGURATION.md describes each key).
 *
 * @param heartbeat a session sent nothing for this long gets an empty batch (or a ping while its
 *     snapshot or resume replay is queued or being written)
 * @param resumeBuffer bounds of the batches kept for resuming sessions
 * @param slowConsumer bounds of what one session may have queued, coalesced or not yet read (see
 *     {@link SlowConsumerPolicy})
 * @param maxSubscriptionsPerConnection most tables one session may subscribe to, also the most
 *     names one subscribe may list and the most names that may wait in subscribes during a
 *     snapshot; past it the session gets a fatal {@code LIMIT_EXCEEDED}
 */
public record HubSettings(
    Duration heartbeat,
    ResumeBufferSettings resumeBuffer,
    SlowConsumerSettings slowConsumer,
    int maxSubscriptionsPerConnection) {}

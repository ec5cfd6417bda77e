package io.tablecast.server.config;

import java.time.Duration;

/**
 * How far a client that reads slowly may fall behind before it is dropped with {@code
 * SLOW_CONSUMER} ({@code slow_consumer:}, see docs/CONFIGURATION.md, Slow consumers).
 *
 * @param maxPendingBytes most bytes queued or held back for one session
 * @param coalesceMaxKeys while a session's channel is unwritable its changes are folded per key;
 *     past this many distinct keys it is dropped; 0 = no coalescing
 * @param coalesceMaxBytes past this many approximate bytes of folded changes, or when the folded
 *     batch would encode to more, the session is dropped; so no coalesced frame is larger
 * @param snapshotTimeout a session that has not read its whole snapshot, resume replay or large
 *     batch within this time is dropped
 */
public record SlowConsumerSettings(
    @ByteSize long maxPendingBytes,
    int coalesceMaxKeys,
    @ByteSize long coalesceMaxBytes,
    Duration snapshotTimeout) {
  /** 64 MiB queued, 100000 keys or 16 MiB coalesced, five minutes per snapshot. */
  public static final SlowConsumerSettings DEFAULTS =
      new SlowConsumerSettings(64L << 20, 100_000, 16L << 20, Duration.ofMinutes(5));
}

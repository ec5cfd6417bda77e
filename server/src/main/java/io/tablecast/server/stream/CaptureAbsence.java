package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A server's look at whether any capture publishes to its stream: the lease of {@link
 * CaptureLease}, read about once a second. An idle capture publishes nothing, so silence on the
 * stream says nothing; a lease nobody has held for longer than a standby needs to take over (twice
 * {@code nats.capture_takeover}, and 5 s) does: changes committed since then are not reaching the
 * servers, and their tables are to be said stale ({@link StalenessAcrossRuns#saidByTheStream})
 * until a capture runs again and has read them whole. A stream whose lease bucket does not exist (a
 * capture started without the lease, as some tests do), or a look that fails (NATS away: the polls
 * say so), tells nothing. The looks run on a thread of their own, off the path of the changes; the
 * tail thread takes what they found ({@link #take}).
 */
final class CaptureAbsence implements AutoCloseable {

  /** The cause of the staleness of every table while no capture publishes. */
  static final String CAUSE = "no-capture";

  private static final long LOOK_EVERY_NANOS = 1_000_000_000L;

  private final Connection nats;
  private final String stream;
  private final long absentAfterNanos;
  private final AtomicReference<String> toSay = new AtomicReference<>();
  private final ScheduledExecutorService looks =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "tablecast-capture-lease");
            t.setDaemon(true);
            return t;
          });
  private KeyValue bucket;
  private long heldAt;
  private boolean said;

  private CaptureAbsence(Connection nats, String stream, Duration captureTakeover) {
    this.nats = nats;
    this.stream = stream;
    this.absentAfterNanos = captureTakeover.multipliedBy(2).plusSeconds(5).toNanos();
    this.heldAt = System.nanoTime();
  }

  /** Looks at the lease of {@code stream} about once a second, until closed. */
  @SuppressWarnings("FutureReturnValueIgnored") // close() ends the schedule
  static CaptureAbsence watch(Connection nats, String stream, Duration captureTakeover) {
    CaptureAbsence a = new CaptureAbsence(nats, stream, captureTakeover);
    a.looks.scheduleWithFixedDelay(
        () -> {
          String reason = a.look(System.nanoTime());
          if (reason != null) {
            a.toSay.set(reason);
          }
        },
        LOOK_EVERY_NANOS,
        LOOK_EVERY_NANOS,
        TimeUnit.NANOSECONDS);
    return a;
  }

  /** The reason to say every table stale that a look found since the last call, or null. */
  String take() {
    return toSay.getAndSet(null);
  }

  @Override
  public void close() {
    looks.shutdownNow();
  }

  /**
   * The reason to say every table stale, once per absence: when nobody has held the lease for
   * longer than a takeover takes; null otherwise. The looks' thread.
   */
  private String look(long nowNanos) {
    Boolean held = held();
    if (held == null) {
      return null;
    }
    if (held) {
      heldAt = nowNanos;
      said = false;
      return null;
    }
    long absent = nowNanos - heldAt;
    if (said || absent <= absentAfterNanos) {
      return null;
    }
    said = true;
    return "no capture has published to NATS stream "
        + stream
        + " for "
        + absent / 1_000_000_000L
        + " s (nobody holds its lease, bucket "
        + stream
        + "_LEADER): changes committed since are not reaching this server; the mirror keeps its"
        + " rows, and is brought up to date once a capture runs again (start tablecast capture)";
  }

  /** Whether someone holds the lease; null when that cannot be told. */
  private Boolean held() {
    try {
      if (bucket == null) {
        nats.keyValueManagement().getStatus(stream + "_LEADER"); // fails when there is none
        bucket = nats.keyValue(stream + "_LEADER");
      }
      KeyValueEntry e = bucket.get(CaptureLease.KEY);
      return e != null && e.getOperation() == KeyValueOperation.PUT && e.getValue() != null;
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      return null;
    }
  }
}

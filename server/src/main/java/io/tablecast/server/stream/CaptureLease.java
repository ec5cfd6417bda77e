package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.KeyValueManagement;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueStatus;
import io.nats.client.api.StorageType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Who of several {@code capture} processes of one database should publish: the holder of the key
 * {@value #KEY} in the KV bucket {@code <stream>_LEADER}, whose values live {@code
 * nats.capture_takeover} (the bucket's TTL). The holder creates the key, then renews it with a
 * compare-and-set on its revision; a holder that stops renewing (killed, cut off) loses it when its
 * last value expires, and a standby's create then succeeds. The lease says who should publish, not
 * who can: a former holder that still publishes (paused past its lease, then awake) is refused by
 * the stream itself ({@code Nats-Expected-Last-Sequence}, see {@link GroupPublisher}).
 *
 * <p>Not thread-safe: one thread acquires, renews and releases.
 */
final class CaptureLease {

  /** The one key of the bucket. */
  static final String KEY = "leader";

  private final KeyValue bucket;
  private final String holder;
  private final Duration ttl;

  /** The revision of this holder's last value; 0 while it does not hold the lease. */
  private long revision;

  /** When the lease last was created or renewed ({@link System#nanoTime()}). */
  private long renewedNanos;

  /** Why the last renewal found the lease lost, for the log; null before any was. */
  private String lostBecause;

  private CaptureLease(KeyValue bucket, String holder, Duration ttl) {
    this.bucket = bucket;
    this.holder = holder;
    this.ttl = ttl;
  }

  /**
   * The lease of {@code stream}, its bucket created when missing (with {@code replicas}, the
   * stream's) and given {@code ttl} when it had another.
   *
   * @param holder names this process in the value (for operators reading the bucket)
   */
  static CaptureLease open(
      Connection nats, String stream, Duration ttl, int replicas, String holder)
      throws IOException {
    String name = stream + "_LEADER";
    KeyValueConfiguration config =
        KeyValueConfiguration.builder()
            .name(name)
            .maxHistoryPerKey(1)
            .ttl(ttl)
            .storageType(StorageType.File)
            .replicas(replicas)
            .build();
    try {
      KeyValueManagement kvm = nats.keyValueManagement();
      KeyValueStatus status;
      try {
        status = kvm.getStatus(name);
      } catch (JetStreamApiException e) {
        status = null;
      }
      if (status == null) {
        kvm.create(config);
      } else if (!ttl.equals(status.getTtl())) {
        kvm.update(config);
      }
      return new CaptureLease(nats.keyValue(name), holder, ttl);
    } catch (JetStreamApiException e) {
      throw NatsStreams.refused(nats, name, e);
    }
  }

  /**
   * Takes the lease when nobody holds it; true when this holder has it now, false when another does
   * or NATS cannot be reached (try again later).
   */
  boolean tryAcquire() {
    try {
      long now = System.nanoTime();
      revision = bucket.create(KEY, holder.getBytes(StandardCharsets.UTF_8));
      renewedNanos = now;
      return true;
    } catch (JetStreamApiException e) {
      return false; // held by someone (wrong last sequence)
    } catch (IOException | RuntimeException e) {
      return false; // NATS unreachable or restarting
    }
  }

  /**
   * Renews the lease. False when it is lost: another holder has the key, or renewals failed (NATS
   * unreachable) for longer than the lease lasts, so a standby may have it by now.
   */
  boolean renew() {
    if (revision == 0) {
      return false;
    }
    long now = System.nanoTime();
    try {
      revision = bucket.update(KEY, holder.getBytes(StandardCharsets.UTF_8), revision);
      renewedNanos = now;
      return true;
    } catch (JetStreamApiException e) {
      if (storedUnacknowledged()) {
        return renew(); // by the revision NATS holds, which is ours
      }
      revision = 0; // the key moved on: expired and taken, or deleted
      lostBecause =
          "NATS refused the renewal "
              + millisSinceRenewed(now)
              + " ms after the last one ("
              + e.getMessage()
              + "): the value expired (nats.capture_takeover "
              + ttl.toMillis()
              + " ms) and another holder may have taken it";
      return false;
    } catch (IOException | RuntimeException e) {
      // NATS unreachable or restarting: still ours until our last value expires
      if (now - renewedNanos >= ttl.toNanos()) {
        revision = 0;
        lostBecause =
            "no renewal reached NATS for "
                + millisSinceRenewed(now)
                + " ms, longer than nats.capture_takeover ("
                + ttl.toMillis()
                + " ms); the last attempt: "
                + e;
        return false;
      }
      return true;
    }
  }

  /**
   * Whether the key's value is a renewal of this holder's whose acknowledgement never came back (a
   * call interrupted or timed out after NATS stored it): then this holder still has the lease, at
   * that value's revision, which it takes. Holder names are unique per process, and any other
   * holder's create or a deletion replaces the value.
   */
  private boolean storedUnacknowledged() {
    try {
      KeyValueEntry e = bucket.get(KEY);
      if (e != null
          && e.getRevision() > revision
          && e.getValue() != null
          && holder.equals(new String(e.getValue(), StandardCharsets.UTF_8))) {
        revision = e.getRevision();
        return true;
      }
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      // cannot tell: lost, as the refusal says
    }
    return false;
  }

  private long millisSinceRenewed(long now) {
    return (now - renewedNanos) / 1_000_000;
  }

  /** Why a renewal last found the lease lost (for the log), or "it was not held". */
  String lostBecause() {
    return lostBecause != null ? lostBecause : "it was not held";
  }

  /** True while this holder has the lease (as far as it knows). */
  boolean held() {
    return revision != 0;
  }

  /** The holder named in the key now, or null when nobody holds it. */
  String currentHolder() throws IOException {
    try {
      KeyValueEntry e = bucket.get(KEY);
      return e == null || e.getValue() == null
          ? null
          : new String(e.getValue(), StandardCharsets.UTF_8);
    } catch (JetStreamApiException e) {
      return null;
    }
  }

  /** Gives the lease up at once when this holder still has it, so a standby need not wait. */
  void release() {
    if (revision == 0) {
      return;
    }
    try {
      bucket.delete(KEY, revision); // only our own value: a newer holder's stays
    } catch (IOException | JetStreamApiException | RuntimeException e) {
      // expired instead, within the lease's time
    }
    revision = 0;
  }
}

package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.log.RecentEvents;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;

/**
 * {@code tablecast capture} with high availability: run one per machine, as many as wanted per
 * database; the one holding the {@link CaptureLease} publishes ({@link StreamCapture}), the others
 * wait and take over within {@code nats.capture_takeover} of the leader stopping. A new leader
 * resumes after the cursor recorded with the last whole batch in the stream, so nothing is lost or
 * published twice; a leader that loses its lease, is fenced by the stream because another publisher
 * appended, or whose tail stopped on an unexpected error, stops publishing, gives the lease up and
 * competes for it again.
 *
 * <p>NATS that cannot be reached, or whose JetStream is not ready, is waited for: the standby tries
 * again after {@link #FIRST_RETRY}, doubling the pause up to {@link #LAST_RETRY}, says so in one
 * WARN per cause and in {@link #waitingForNats()}. What retrying cannot fix ends it ({@link
 * #failure()}): credentials refused, a stream placed otherwise, a setting naming a bad file.
 *
 * <p>One thread ({@code tablecast-capture-standby}) acquires, renews and runs the capture.
 */
public final class CaptureStandby implements CaptureState, AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(CaptureStandby.class);

  private final SourceConfig source;
  private final NatsSettings settings;
  private final String name;
  private final String holder;
  private final Thread thread;
  private final CountDownLatch terminated = new CountDownLatch(1);
  private volatile StreamCapture capture;
  private final AtomicInteger terms = new AtomicInteger();
  private volatile boolean closed;
  private volatile RuntimeException failure;
  private volatile long lastSequence;

  /** Why NATS cannot be used right now (not reachable, JetStream not ready); null when it can. */
  private volatile String natsProblem;

  /** The first pause before connecting to NATS again; it doubles up to {@link #LAST_RETRY}. */
  static final Duration FIRST_RETRY = Duration.ofMillis(250);

  /** The longest pause between two attempts to reach NATS. */
  static final Duration LAST_RETRY = Duration.ofSeconds(5);

  private CaptureStandby(SourceConfig source, NatsSettings settings, String name) {
    this.source = source;
    this.settings = settings;
    this.name = name;
    this.holder = name + "@" + UUID.randomUUID();
    this.thread = new Thread(this::run, "tablecast-capture-standby");
    this.thread.setDaemon(true);
  }

  /** Starts competing for the lease of the database's stream; returns at once. */
  public static CaptureStandby start(SourceConfig source, NatsSettings settings, String name) {
    CaptureStandby standby = new CaptureStandby(source, settings, name);
    standby.thread.start();
    return standby;
  }

  private void run() {
    String stream = settings.streamName(source.jdbcUrl());
    Duration ttl = settings.captureTakeover();
    long backoffMillis = FIRST_RETRY.toMillis();
    try {
      while (!closed) {
        Connection nats = null;
        CaptureLease lease = null;
        try {
          nats = NatsStreams.connect(settings, name + "-lease");
          int replicas = // the lease bucket takes the stream's replicas
              NatsStreams.createIfMissing(nats, stream, settings).getConfiguration().getReplicas();
          lease = CaptureLease.open(nats, stream, ttl, replicas, holder);
          reached(stream);
          backoffMillis = FIRST_RETRY.toMillis();
          compete(nats, lease, stream, ttl);
        } catch (IOException | RuntimeException e) {
          if (!NatsStreams.retryable(e)) {
            throw e;
          }
          waiting(stream, e, backoffMillis);
          TimeUnit.MILLISECONDS.sleep(backoffMillis);
          backoffMillis = Math.min(backoffMillis * 2, LAST_RETRY.toMillis());
        } finally {
          StreamCapture c = capture;
          if (c != null) {
            c.close();
          }
          if (lease != null) {
            lease.release();
          }
          closeQuietly(nats);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      failure = new IllegalStateException("capture standby of " + stream + " failed: " + e, e);
      LOG.error("{}", failure.getMessage(), e);
    } finally {
      terminated.countDown();
    }
  }

  /** Takes the lease whenever nobody holds it and publishes while it holds; returns when closed. */
  private void compete(Connection nats, CaptureLease lease, String stream, Duration ttl)
      throws InterruptedException {
    long pauseMillis = Math.max(100, ttl.toMillis() / 4);
    LOG.info("capture {} waiting for the lease of stream {} ({})", holder, stream, ttl);
    while (!closed) {
      if (nats.getStatus() != Connection.Status.CONNECTED) {
        waiting(stream, new IOException("the connection is " + nats.getStatus()), pauseMillis);
        TimeUnit.MILLISECONDS.sleep(pauseMillis);
      } else if (!NatsLiveness.answersOrReconnects(nats, "capture " + holder + " (its lease)")) {
        // silent: a lease that cannot be renewed was lost, or cannot be taken; made again
        waiting(stream, new IOException("NATS did not answer a ping"), pauseMillis);
        TimeUnit.MILLISECONDS.sleep(pauseMillis);
      } else if (lease.tryAcquire()) {
        reached(stream);
        lead(lease, stream, Math.max(100, ttl.toMillis() / 3));
      } else {
        reached(stream);
        TimeUnit.MILLISECONDS.sleep(pauseMillis);
      }
    }
  }

  /** NATS cannot be used for now: said once per cause, not at every attempt. */
  private void waiting(String stream, Exception cause, long retryMillis) {
    String why = Objects.requireNonNullElse(cause.getMessage(), cause.toString());
    if (!why.equals(natsProblem)) {
      LOG.warn(
          "capture {} cannot use NATS at {} for stream {}: {}; tries again in {} ms, then at"
              + " most every {} s, until NATS answers",
          holder,
          settings.urls(),
          stream,
          why,
          retryMillis,
          LAST_RETRY.toSeconds());
    }
    natsProblem = why;
  }

  /** NATS answers (again). */
  private void reached(String stream) {
    if (natsProblem != null) {
      LOG.info(
          "capture {} reached NATS at {} for stream {} again", holder, settings.urls(), stream);
      natsProblem = null;
    }
  }

  private static void closeQuietly(Connection nats) {
    if (nats == null) {
      return;
    }
    try {
      nats.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Publishes while the lease holds, renewing it; returns when it is lost, fenced or closed. */
  private void lead(CaptureLease lease, String stream, long renewMillis)
      throws InterruptedException {
    terms.incrementAndGet();
    LOG.info("capture {} holds the lease of stream {}: publishing", holder, stream);
    StreamCapture c;
    // starting (triggers, a snapshot read and published) can take longer than the lease lasts
    LeaseRenewal renewing = renewWhileStarting(lease, renewMillis);
    try {
      c = StreamCapture.start(source, settings, name);
    } catch (IllegalStateException e) {
      // the database or NATS refused: give the lease up for another process to try
      LOG.error("capture {} could not start, giving up the lease: {}", holder, e.getMessage());
      renewing.stop();
      lease.release();
      TimeUnit.MILLISECONDS.sleep(renewMillis);
      return;
    } catch (InterruptedException | RuntimeException e) {
      renewing.stop();
      throw e;
    }
    if (!renewing.stop()) {
      LOG.warn(
          "capture {} lost the lease of stream {} while starting ({}): stops",
          holder,
          stream,
          lease.lostBecause());
      c.close();
      return;
    }
    capture = c;
    try {
      while (!closed && c.fenced() == null && !c.stopped() && !c.tailDied()) {
        if (!lease.renew()) {
          LOG.warn(
              "capture {} lost the lease of stream {} ({}): stops publishing",
              holder,
              stream,
              lease.lostBecause());
          return;
        }
        TimeUnit.MILLISECONDS.sleep(renewMillis);
      }
      if (c.fenced() != null) {
        LOG.warn("capture {} was fenced by the stream: waits as a standby", holder);
      } else if (c.tailDied()) {
        LOG.warn("capture {}: its tail stopped; gives the lease up and starts again", holder);
      }
    } finally {
      lastSequence = c.lastSequence();
      capture = null;
      c.close();
      lease.release(); // held or not: a no-op when lost
    }
  }

  /**
   * Renews {@code lease} every {@code renewMillis} on a thread of its own until {@link
   * LeaseRenewal#stop}, or until a renewal fails.
   */
  private static LeaseRenewal renewWhileStarting(CaptureLease lease, long renewMillis) {
    LeaseRenewal r = new LeaseRenewal(lease, renewMillis);
    r.thread.start();
    return r;
  }

  /**
   * The lease renewed while capture starts, before the leader's own loop renews it. Stopped by a
   * signal, never by an interrupt: an interrupt that landed in a renewal NATS then stored left the
   * lease at a revision it no longer knew, and the leader's next renewal was refused, so a healthy
   * leader gave the lease up just after it started.
   */
  private static final class LeaseRenewal {
    private final Thread thread;
    private final CountDownLatch started = new CountDownLatch(1);
    private volatile boolean lost;

    LeaseRenewal(CaptureLease lease, long renewMillis) {
      thread =
          new Thread(
              () -> {
                try {
                  do {
                    if (!lease.renew()) {
                      lost = true;
                      return;
                    }
                  } while (!started.await(renewMillis, TimeUnit.MILLISECONDS));
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt(); // only a daemon's end interrupts it
                }
              },
              "tablecast-capture-lease");
      thread.setDaemon(true);
    }

    /** Stops renewing and waits for the renewal in progress; true when the lease is still held. */
    boolean stop() throws InterruptedException {
      started.countDown();
      thread.join();
      return !lost;
    }
  }

  /** True while this process publishes. */
  @Override
  public boolean leading() {
    return capture != null;
  }

  /** How many times this process took the lease and started publishing. */
  @Override
  public int terms() {
    return terms.get();
  }

  @Override
  public long lastSequence() {
    StreamCapture c = capture;
    if (c != null) {
      lastSequence = c.lastSequence();
    }
    return lastSequence;
  }

  /**
   * True while NATS cannot be reached or JetStream is not ready (this standby retries), or while a
   * batch NATS did not acknowledge is being published again.
   */
  @Override
  public boolean waitingForNats() {
    StreamCapture c = capture;
    return natsProblem != null || (c != null && c.waitingForNats());
  }

  /** Why NATS cannot be used right now, or null when it can. */
  public String natsProblem() {
    return natsProblem;
  }

  @Override
  public String problem() {
    if (failure != null) {
      return "the capture stopped on an error (see its log); restart it";
    }
    StreamCapture c = capture;
    return c == null ? null : c.tailProblem();
  }

  /** The capture publishing now, or null while this process waits. */
  public StreamCapture capture() {
    return capture;
  }

  /**
   * Why this standby stopped on its own: what retrying cannot fix (NATS refused its credentials,
   * the stream exists placed otherwise, a setting names a bad file); null otherwise.
   */
  public RuntimeException failure() {
    return failure;
  }

  /** Blocks until {@link #close()} completed or the standby failed. */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  /** Stops publishing or waiting, and gives the lease up so that a standby takes over at once. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    try {
      if (!terminated.await(30, TimeUnit.SECONDS)) {
        LOG.warn("capture standby did not stop within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

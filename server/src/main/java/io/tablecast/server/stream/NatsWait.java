package io.tablecast.server.stream;

import io.tablecast.server.log.RecentEvents;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * Waiting for NATS as a capture standby does ({@link CaptureStandby}): after a failure retrying can
 * fix ({@link NatsStreams#retryable}), one WARN per cause naming the URLs and the stream, then a
 * pause of {@link CaptureStandby#FIRST_RETRY} doubling up to {@link CaptureStandby#LAST_RETRY}; an
 * INFO once NATS answers again. One thread.
 */
final class NatsWait {
  private static final Logger LOG = RecentEvents.logger(NatsWait.class);

  private final String who;
  private final List<String> urls;
  private final String stream;
  private long pauseMillis = CaptureStandby.FIRST_RETRY.toMillis();
  private final Consumer<String> doing;
  private volatile String problem;

  /** {@code doing} hears that the start waits for NATS (not why: that goes to the log only). */
  NatsWait(String who, List<String> urls, String stream, Consumer<String> doing) {
    this.who = who;
    this.urls = urls;
    this.stream = stream;
    this.doing = doing;
  }

  /**
   * After {@code failure}: rethrows it when retrying cannot fix it, else says so (once per cause)
   * and pauses.
   */
  void after(RuntimeException failure) throws InterruptedException {
    if (!NatsStreams.retryable(failure)) {
      throw failure;
    }
    String why = Objects.requireNonNullElse(failure.getMessage(), failure.toString());
    if (!why.equals(problem)) {
      LOG.warn(
          "{} cannot use NATS at {} for stream {}: {}; tries again in {} ms, then at most every {}"
              + " s, until NATS answers",
          who,
          urls,
          stream,
          why,
          pauseMillis,
          CaptureStandby.LAST_RETRY.toSeconds());
    }
    problem = why;
    doing.accept("waiting for NATS (the log says why)");
    TimeUnit.MILLISECONDS.sleep(pauseMillis);
    pauseMillis = Math.min(pauseMillis * 2, CaptureStandby.LAST_RETRY.toMillis());
  }

  /** NATS answered: says so if it was waited for, and starts the pauses over. */
  void reached() {
    if (problem != null) {
      LOG.info("{} reached NATS at {} for stream {}", who, urls, stream);
      problem = null;
    }
    pauseMillis = CaptureStandby.FIRST_RETRY.toMillis();
  }

  /** Why NATS cannot be used now; null when it can (or was never waited for). */
  String problem() {
    return problem;
  }
}

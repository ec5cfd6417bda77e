package io.tablecast.spring.boot;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.Ordered;

/**
 * Holds the application's readiness until its mirrors are ready. Spring Boot publishes {@code
 * ReadinessState.ACCEPTING_TRAFFIC} only after every {@link ApplicationRunner} returned; this one
 * runs first and waits for each mirror bean's first snapshot, at most {@code
 * tablecast.client.ready-timeout} in all. Meanwhile the web server is up, liveness is {@code
 * CORRECT} and readiness {@code REFUSING_TRAFFIC}.
 *
 * <p>When a mirror is not ready in time, or the server refused its table, startup fails with a
 * {@link MirrorsNotReadyException} naming every such table and why. Failing (rather than staying
 * {@code REFUSING_TRAFFIC} and waiting on) makes a wrong table name, a missing grant or an
 * unreachable server show where deployments look (a failed start, the process's exit code, a
 * restarting container with the message in its log) instead of an instance that silently never
 * takes traffic; a restart with backoff retries what was only slow.
 */
final class MirrorsReadiness implements ApplicationRunner, Ordered {
  private static final Logger log = LoggerFactory.getLogger(MirrorsReadiness.class);

  private final MirrorBeans mirrors;
  private final ClientActivity activity;
  private final Duration timeout;

  MirrorsReadiness(MirrorBeans mirrors, ClientActivity activity, Duration timeout) {
    this.mirrors = mirrors;
    this.activity = activity;
    this.timeout = timeout;
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE; // before the application's runners, which may read mirrors
  }

  @Override
  public void run(ApplicationArguments args) throws InterruptedException {
    Map<String, TableMirror<?>> all = mirrors.byName();
    if (all.isEmpty()) {
      return;
    }
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    Map<String, String> notReady = new LinkedHashMap<>();
    for (TableMirror<?> mirror : all.values()) {
      Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
      try {
        if (!mirror.awaitReady(left)) {
          String refusal = activity.refusal(mirror.table());
          notReady.put(mirror.table(), refusal != null ? refusal : "no snapshot yet");
        }
      } catch (TablecastException e) {
        notReady.put(mirror.table(), e.getMessage());
      }
    }
    if (!notReady.isEmpty()) {
      throw new MirrorsNotReadyException(timeout, notReady, connection());
    }
    log.info(
        "Tablecast mirrors ready in {} ms: {}",
        (System.nanoTime() - start) / 1_000_000,
        all.keySet());
  }

  private String connection() {
    String state =
        Boolean.TRUE.equals(activity.connected())
            ? "connected to " + activity.server()
            : activity.lastDisconnect() != null
                ? "disconnected (" + activity.lastDisconnect() + ")"
                : "no server welcomed the client yet (tablecast.client.servers)";
    String failure = activity.lastConnectFailure(); // null once connected
    String said = activity.lastConnectionError();
    return state
        + (failure == null ? "" : "; the last attempt: cannot connect to " + failure)
        + (said == null || (failure != null && failure.contains(said))
            ? ""
            : "; the server said " + said);
  }
}

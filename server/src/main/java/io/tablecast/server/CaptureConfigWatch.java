package io.tablecast.server;

import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.stream.CaptureEndpoints;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * Reads the configuration file of {@code tablecast capture} again when it changes ({@link
 * WatchedConfigFile}) and applies a rotated {@code metrics_token} while capture runs: from then on
 * {@code /metrics} requires the new token. Before, the old token was the one until a restart, which
 * hands the stream to a standby. A change to a key capture reads ({@code server_name}, {@code
 * listen}, {@code source}, {@code nats}) is logged as a WARN naming it: it takes effect at the next
 * start; so does a token added or removed whole ({@code /metrics} is not opened, nor closed, while
 * capture runs, as for {@code tablecast serve}). The keys only {@code serve} reads are not
 * capture's concern. A database password rotated in {@code source.password_file} needs none of
 * this: each new connection reads the file.
 */
public final class CaptureConfigWatch implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(CaptureConfigWatch.class);

  /** The top-level keys capture reads, besides {@code metrics_token}. */
  private static final List<String> READ = List.of("server_name", "listen", "source", "nats");

  private final CaptureEndpoints endpoints;
  private final WatchedConfigFile file;

  /** {@code metrics_token} as applied now; null: {@code /metrics} open, as at the start. */
  private String metricsToken;

  private CaptureConfigWatch(Path file, ServerConfig loaded, CaptureEndpoints endpoints)
      throws IOException {
    this.endpoints = endpoints;
    this.metricsToken = WatchedConfigFile.metricsToken(loaded);
    this.file = new WatchedConfigFile(file, c -> c, loaded, c -> List.of(), this::changed);
  }

  /** Watches {@code file}, from which capture was started with {@code loaded}. */
  public static CaptureConfigWatch start(Path file, ServerConfig loaded, CaptureEndpoints endpoints)
      throws IOException {
    CaptureConfigWatch watch = new CaptureConfigWatch(file, loaded, endpoints);
    watch.file.schedule();
    return watch;
  }

  /** Without a schedule (tests call {@link #check()}). */
  static CaptureConfigWatch unscheduled(Path file, ServerConfig loaded, CaptureEndpoints endpoints)
      throws IOException {
    return new CaptureConfigWatch(file, loaded, endpoints);
  }

  /** Looks at the file once; returns whether {@code metrics_token} was replaced. */
  boolean check() {
    return file.check();
  }

  private boolean changed(ServerConfig before, ServerConfig next) {
    List<String> later = WatchedConfigFile.changedBesidesAuth(before, next);
    later.retainAll(READ);
    String token = WatchedConfigFile.metricsTokenToApply(next, metricsToken, later);
    file.warnAppliedLater(
        LOG, later, "at the next start of capture (a rotated metrics_token is applied now)");
    if (Objects.equals(token, metricsToken)) {
      return false;
    }
    endpoints.replaceMetricsToken(token);
    metricsToken = token;
    LOG.info("metrics_token replaced: /metrics requires the new token");
    return true;
  }

  @Override
  public void close() {
    file.close();
  }
}

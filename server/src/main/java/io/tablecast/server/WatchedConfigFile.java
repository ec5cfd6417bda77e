package io.tablecast.server;

import io.tablecast.server.log.RecentEvents;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;

/**
 * The configuration file a running process was started from, looked at every {@link #CHECK_EVERY}:
 * when its bytes or those of a key file it names change, it is read again and handed, with what was
 * read before, to the process's {@link Reader}, which applies what it can while it runs ({@link
 * ConfigFileWatch} for {@code tablecast serve}, {@link CaptureConfigWatch} for {@code tablecast
 * capture}). A file that cannot be read or used (caught half written, an error in it) is a WARN,
 * said once until it changes again, and the process goes on with what it read before.
 */
final class WatchedConfigFile implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(WatchedConfigFile.class);

  /** How often the file is looked at. */
  static final Duration CHECK_EVERY = Duration.ofSeconds(5);

  /** What a process does with a changed, usable file. */
  @FunctionalInterface
  interface Reader {
    /**
     * Applies what can be applied of {@code next}, read after {@code before}, and warns of the
     * rest; returns whether something was applied.
     */
    boolean changed(ServerConfig before, ServerConfig next);
  }

  private final Path file;
  private final UnaryOperator<ServerConfig> adjust;
  private final Function<ServerConfig, List<Path>> keyFiles;
  private final Reader reader;
  private final ScheduledExecutorService timer;
  private byte[] seen;

  /** The last look could not read the files (said once). */
  private boolean unreadable;

  /** The file as last read. */
  private ServerConfig lastRead;

  /**
   * @param adjust applied to what is read, as the command line does (its options override keys)
   * @param keyFiles the files, besides the configuration file, whose change is a change of it
   */
  WatchedConfigFile(
      Path file,
      UnaryOperator<ServerConfig> adjust,
      ServerConfig loaded,
      Function<ServerConfig, List<Path>> keyFiles,
      Reader reader)
      throws IOException {
    this.file = file;
    this.adjust = adjust;
    this.keyFiles = keyFiles;
    this.reader = reader;
    this.lastRead = loaded;
    this.seen = fingerprint(file, keyFiles.apply(loaded));
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tablecast-config-watch");
              t.setDaemon(true);
              return t;
            });
  }

  /** Looks at the file every {@link #CHECK_EVERY} from now until {@link #close()}. */
  void schedule() {
    long every = CHECK_EVERY.toMillis();
    @SuppressWarnings("unused") // ends with close()
    var unused =
        timer.scheduleWithFixedDelay(this::checkQuietly, every, every, TimeUnit.MILLISECONDS);
  }

  private void checkQuietly() {
    try {
      check();
    } catch (RuntimeException e) {
      LOG.warn("Looking at the configuration file {} failed: {}", file, e.toString());
    }
  }

  /**
   * Looks at the file once: when it changed and can be used, hands it to the reader. Returns what
   * the reader returned, false when nothing changed or the file cannot be used.
   */
  synchronized boolean check() {
    byte[] now;
    try {
      now = fingerprint(file, keyFiles.apply(lastRead));
    } catch (IOException e) {
      if (!unreadable) { // once until it can be read: it is looked at every 5 s
        LOG.warn(
            "Cannot read the configuration file {} or a key file it names ({}): nothing changes",
            file,
            e.toString());
      }
      unreadable = true;
      return false;
    }
    unreadable = false;
    if (MessageDigest.isEqual(now, seen)) {
      return false;
    }
    seen = now;
    ServerConfig next;
    try {
      next = adjust.apply(ServerConfig.load(file));
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "The configuration file {} changed but cannot be used, the process goes on with what it"
              + " read before: {}",
          file,
          e.getMessage());
      return false;
    }
    ServerConfig before = lastRead;
    lastRead = next;
    return reader.changed(before, next);
  }

  /** The file watched. */
  Path file() {
    return file;
  }

  /** The top-level keys whose values differ, {@code auth} left out, as the YAML spells them. */
  static List<String> changedBesidesAuth(ServerConfig a, ServerConfig b) {
    List<String> changed = new ArrayList<>();
    for (RecordComponent c : ServerConfig.class.getRecordComponents()) {
      if (c.getName().equals("authenticator")) {
        continue;
      }
      try {
        if (!Objects.equals(c.getAccessor().invoke(a), c.getAccessor().invoke(b))) {
          changed.add(c.getName().replaceAll("([A-Z])", "_$1").toLowerCase(Locale.ROOT));
        }
      } catch (IllegalAccessException | InvocationTargetException e) {
        throw new IllegalStateException("cannot read ServerConfig." + c.getName(), e);
      }
    }
    return changed;
  }

  /** {@code metrics_token}'s value, null when not set. */
  static String metricsToken(ServerConfig config) {
    return config.metricsToken() == null ? null : config.metricsToken().value();
  }

  /**
   * The {@code metrics_token} to apply of {@code next} while {@code applied} is: the new one when
   * rotated; {@code applied} when a token was added or removed whole, which is added to {@code
   * later} ({@code /metrics} is not opened, nor closed, while the process runs).
   */
  static String metricsTokenToApply(ServerConfig next, String applied, List<String> later) {
    String token = metricsToken(next);
    if ((token == null) != (applied == null)) {
      later.add("metrics_token (" + (token == null ? "removed" : "added") + ")");
      return applied;
    }
    return token;
  }

  /**
   * Logs on {@code log}, as a WARN, that the keys {@code later} changed in the file and take effect
   * only {@code when} (as "at the next start (... are applied now)"); nothing when there are none.
   */
  void warnAppliedLater(Logger log, List<String> later, String when) {
    if (!later.isEmpty()) {
      log.warn(
          "The configuration file {} changed {}: {} {}",
          file,
          String.join(", ", later),
          later.size() == 1 ? "it takes effect" : "they take effect",
          when);
    }
  }

  private static byte[] fingerprint(Path file, List<Path> keyFiles) throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
    digest.update(Files.readAllBytes(file));
    for (Path key : keyFiles) {
      digest.update(key.toString().getBytes(StandardCharsets.UTF_8));
      digest.update(Files.readAllBytes(key));
    }
    return digest.digest();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}

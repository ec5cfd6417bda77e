package io.tablecast.bench;

import io.tablecast.client.ChangeEvent;
import io.tablecast.client.ChangeListener;
import io.tablecast.client.Subscription;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.stream.CaptureStandby;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.HdrHistogram.Histogram;

/**
 * Capture failover in the scale-out deployment of docs/SCALE-OUT.md, on one machine: the longest
 * gap in delivery while a standby takes over from a killed leader, and whether a change was lost or
 * delivered twice.
 *
 * <p>A fresh schema ({@link Rig}) and a nats-server of its own ({@link StreamRig}). The leader is
 * {@code tablecast capture --config} in a JVM of its own ({@code cli/target/tablecast.jar}), waited
 * for until its {@code /health} says leader; the standby ({@link CaptureStandby}), an edge server
 * of the stream and a client's generic mirror run in this JVM. An {@link OpenLoopWriter} updates
 * single rows (autocommit) at {@code rate}/s for {@link #WARMUP_SECONDS} + {@code seconds} + the
 * takeover time; operation i sets {@code version = i + 1} on row {@code i % KEYS + 1}. A third of
 * the way into the measured seconds the leader gets SIGKILL (no lease released, nothing closed).
 *
 * <p>Measured: the takeover, from the kill to the standby publishing; the intervals between
 * successive calls of the mirror's listener after the warm-up (longest and p99), which is the gap a
 * client sees; per version, how many times the listener saw it; and whether the mirror, caught up,
 * equals the table row by row. What a mirror can show: a batch delivered again that leaves rows as
 * the mirror has them fires no listener call (docs/CLIENT.md), so "seen twice" counts only a
 * re-delivery that moved a row (back) to a version it had; the stream itself is not read. On
 * MySQL/MariaDB the tail reads row states, so two changes of one key read at once arrive as one:
 * with {@link LatencyRun#KEYS} keys a key changes every KEYS / rate seconds, so a version not seen
 * at 1,000/s (10 s) means loss unless the tail was that far behind. There, too, a new leader has no
 * cursor to resume after: it publishes a snapshot, which the edge applies as a resync (the changes
 * of the takeover arrive as one batch of differences); on PostgreSQL it resumes after the cursor.
 */
final class CaptureFailoverRun {
  /**
   * {@code nats.capture_takeover} of both candidates: 2 s, the shortest the failover tests use (the
   * product's default is 10 s, which would only lengthen the gap by the wait).
   */
  static final Duration TAKEOVER = Duration.ofSeconds(2);

  /** Seconds written before gaps are recorded (a fresh mirror, edge and JIT). */
  static final int WARMUP_SECONDS = 3;

  /** Longest wait for the leader to lead, the standby to take over, the mirror to catch up. */
  private static final Duration LIMIT = Duration.ofSeconds(30);

  private static final String LEADING = "{\"status\":\"UP\",\"role\":\"leader\"}";

  /**
   * @param takeover from the leader's SIGKILL to the standby publishing
   * @param longestGapMs longest interval between successive listener calls after the warm-up
   * @param gapP99Ms p99 of those intervals
   * @param writes updates committed (each a version)
   * @param seenTwice versions the mirror's listener saw more than once
   * @param notSeen committed versions the listener never saw
   * @param mirrorEqualsTable the mirror, caught up, holds every row of the table as it is
   */
  record Result(
      Db db,
      int rate,
      Duration takeover,
      double longestGapMs,
      double gapP99Ms,
      long writes,
      long seenTwice,
      long notSeen,
      boolean mirrorEqualsTable) {}

  private CaptureFailoverRun() {}

  /**
   * One failover on {@code db}: writes at {@code rate} updates/s for {@link #WARMUP_SECONDS} +
   * {@code seconds} + the takeover time, the leader killed a third into {@code seconds}.
   *
   * @throws IllegalStateException when the leader never led, the standby did not lead within 30 s
   *     of the kill, or the writers failed (the message says which, and names the leader's log)
   */
  static Result measure(Db db, int rate, int seconds, Progress progress) throws Exception {
    String label = db.label() + " capture failover";
    Path jar = Path.of("cli", "target", "tablecast.jar").toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          label + ": " + jar + " is missing: build first: ./mvnw -q -DskipTests package");
    }
    progress.update(label + ": creating " + BenchTable.NAME, 0);
    Rig rig = Rig.create(db, "failover", LatencyRun.KEYS, n -> {});
    try (rig;
        StreamRig nats = StreamRig.natsOnly(rig)) {
      Path log = Files.createTempFile("tablecast-failover-leader", ".log");
      Process leader = startLeader(jar, rig, nats, log, label, progress);
      try (CaptureStandby standby =
              CaptureStandby.start(
                  rig.sourceConfig(), nats.settings.withCaptureTakeover(TAKEOVER), "standby");
          TablecastServer edge = nats.startEdge("edge");
          TablecastClient client =
              TablecastClient.builder()
                  .servers(StreamRig.address(edge))
                  .clientName("failover")
                  .build()) {
        TableMirror<Map<String, Object>> mirror = rig.readyMirror(client, LIMIT);
        Result r = run(db, rate, seconds, progress, rig, leader, standby, mirror);
        Files.deleteIfExists(log);
        return r;
      } finally {
        leader.destroyForcibly().waitFor();
      }
    }
  }

  private static Result run(
      Db db,
      int rate,
      int seconds,
      Progress progress,
      Rig rig,
      Process leader,
      CaptureStandby standby,
      TableMirror<Map<String, Object>> mirror)
      throws Exception {
    String label = db.label() + " capture failover";
    double phase = WARMUP_SECONDS + seconds + TAKEOVER.toSeconds();
    double killAt = WARMUP_SECONDS + seconds / 3.0;
    int total = (int) (rate * phase);
    OpenLoopWriter w =
        new OpenLoopWriter(rig.schema, LatencyRun.writers(rate), rate, total, 1, LatencyRun.KEYS);
    Deliveries d = new Deliveries(total);
    long killedAt = 0;
    long shown = 0;
    Duration takeover = null;
    int differ;
    Subscription sub = mirror.addListener(d);
    try {
      w.start();
      while ((w.done.get() < total || takeover == null) && w.failure.get() == null) {
        long now = System.nanoTime();
        double t = (now - w.t0) / 1e9;
        d.measuring = t >= WARMUP_SECONDS;
        if (killedAt == 0 && t >= killAt) {
          killedAt = now; // SIGKILL: no lease released, nothing closed
          leader.destroyForcibly().waitFor();
        } else if (killedAt != 0 && takeover == null && standby.leading()) {
          takeover = Duration.ofNanos(now - killedAt);
        } else if (killedAt != 0 && takeover == null && now - killedAt > LIMIT.toNanos()) {
          throw new IllegalStateException(
              String.format(
                  "%s: the standby did not lead within %d s of the kill (its failure: %s)",
                  label, LIMIT.toSeconds(), standby.failure()));
        } else if (t > phase * 3 + LIMIT.toSeconds()) {
          throw new IllegalStateException(
              label + ": writers committed only " + w.done.get() + " of " + total + " updates");
        }
        if (now - shown > 250_000_000L) {
          shown = now;
          String leaderState =
              killedAt == 0
                  ? "leader to be killed at " + Math.round(killAt) + " s"
                  : takeover == null
                      ? "leader killed " + (now - killedAt) / 1_000_000 + " ms ago"
                      : "the standby leads, " + takeover.toMillis() + " ms after the kill";
          progress.update(
              String.format(
                  "%s: %.0f s of %.0f s at %d/s, committed %,d, delivered %,d; %s",
                  label, Math.max(0, t), phase, rate, w.done.get(), d.calls(), leaderState),
              0.9 * Math.min(1, Math.max(0, t) / phase));
        }
        Thread.sleep(killedAt != 0 && takeover == null ? 1 : 10);
      }
      w.stop();
      w.join(10_000);
      w.check();
      Map<Long, List<Object>> table = MirrorCheck.read(rig.schema);
      MirrorCheck.awaitEqual(
          mirror,
          table,
          LIMIT,
          n ->
              progress.update(label + ": catching up, " + n + " rows differ from the table", 0.95));
      Thread.sleep(1000); // a late re-delivery would come now
      differ = MirrorCheck.differing(mirror, table);
    } finally {
      sub.cancel();
    }
    long writes = 0;
    long twice = 0;
    long notSeen = 0;
    for (int i = 0; i < total; i++) {
      if (w.committed[i] != 0) {
        writes++;
        twice += d.seen.get(i) > 1 ? 1 : 0;
        notSeen += d.seen.get(i) == 0 ? 1 : 0;
      }
    }
    Result r =
        new Result(
            db,
            rate,
            takeover,
            Hist.maxMs(d.gaps),
            Hist.ms(d.gaps, 99),
            writes,
            twice,
            notSeen,
            differ == 0);
    progress.note(
        String.format(
            "%s: %s; the longest gap ended %.0f ms after the kill; the standby took the lease %d"
                + " time(s); %d rows differ",
            label, r, (d.longestEnd - killedAt) / 1e6, standby.terms(), differ));
    return r;
  }

  /** What the mirror's listener saw: calls per version, and the intervals between calls. */
  private static final class Deliveries implements ChangeListener<Map<String, Object>> {
    final AtomicIntegerArray seen;
    final Histogram gaps = Hist.nanos();
    volatile boolean measuring;
    private long calls;
    private long last;
    private long longest;
    long longestEnd;

    Deliveries(int versions) {
      seen = new AtomicIntegerArray(versions);
    }

    @Override
    public synchronized void onChange(ChangeEvent<Map<String, Object>> ev) {
      long now = System.nanoTime();
      if (measuring && last != 0) {
        gaps.recordValue(now - last);
        if (now - last > longest) {
          longest = now - last;
          longestEnd = now;
        }
      }
      last = now;
      calls++;
      if (ev.newRow() != null && ev.newRow().get("version") instanceof Number v) {
        if (v.longValue() >= 1 && v.longValue() <= seen.length()) {
          seen.incrementAndGet(v.intValue() - 1);
        }
      }
    }

    synchronized long calls() {
      return calls;
    }
  }

  /** {@code tablecast capture --config} in a JVM of its own, returned once it leads. */
  private static Process startLeader(
      Path jar, Rig rig, StreamRig nats, Path log, String label, Progress progress)
      throws IOException, InterruptedException {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Path yaml = Files.createTempFile("tablecast-failover", ".yaml");
    Files.writeString(
        yaml,
        """
        server_name: leader
        listen: { host: 127.0.0.1, port: %d }
        source: { jdbc_url: "%s", install_triggers: true }
        cached_tables: [%s]
        nats: { urls: [%s], stream: %s, capture_takeover: %dms }
        """
            .formatted(
                port,
                rig.schema.jdbcUrl(),
                rig.table(),
                nats.nats.url(),
                nats.settings.stream(),
                TAKEOVER.toMillis()));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process leader =
        new ProcessBuilder(java, "-jar", jar.toString(), "capture", "--config", yaml.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      HttpClient http = HttpClient.newHttpClient();
      URI health = URI.create("http://127.0.0.1:" + port + "/health");
      long deadline = System.nanoTime() + 2 * LIMIT.toNanos(); // a JVM start and a snapshot
      while (true) {
        String body;
        try {
          HttpRequest get = HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(2)).build();
          body = http.send(get, HttpResponse.BodyHandlers.ofString()).body().strip();
        } catch (IOException e) {
          body = "not answering";
        }
        if (body.equals(LEADING)) {
          return leader;
        }
        if (!leader.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              String.format(
                  "%s: tablecast capture %s (/health: %s); its log: %s",
                  label, leader.isAlive() ? "never led" : "exited", body, log));
        }
        progress.update(label + ": waiting for the leader to lead (/health: " + body + ")", 0.02);
        Thread.sleep(100);
      }
    } catch (InterruptedException | RuntimeException e) {
      leader.destroyForcibly().waitFor();
      throw e;
    } finally {
      Files.deleteIfExists(yaml);
    }
  }
}

package io.tablecast.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Figure 8: the scale-out deployment of docs/SCALE-OUT.md ({@code tablecast capture} publishing to
 * a NATS JetStream stream, servers serving from it) against the single process, on this machine
 * with a {@code nats-server} of its own. Three measurements: commit-to-mirror latency through
 * capture + NATS + server beside the single process ({@link LatencyRun}, the same rates, each on a
 * fresh schema, one after the other); a client moving between two servers on a large table ({@link
 * ClientMoveRun}: resume against re-snapshot); and a capture leader killed while changes are
 * written ({@link CaptureFailoverRun}).
 */
public final class ScaleOutFigure implements Figure {
  /** The goals of the scale-out issue: NATS adds at most this much at p50 and at p99, ms. */
  static final double GOAL_P50_MS = 1;

  static final double GOAL_P99_MS = 2;

  /** Updates per second written while the capture leader is killed. */
  static final int FAILOVER_RATE = 1_000;

  private final List<LatencyRun.Result> latency = new ArrayList<>();
  private final List<ClientMoveRun.Result> moves = new ArrayList<>();
  private final List<String> fanoutLabels = new ArrayList<>();
  private final List<FanoutFigure.Result> fanout = new ArrayList<>();
  private final List<CaptureFailoverRun.Result> failovers = new ArrayList<>();

  @Override
  public String name() {
    return "scaleout";
  }

  /** The figure's parts, in the order they run. */
  static final List<String> PARTS = List.of("latency", "moving", "fanout", "failover");

  /**
   * The parts named, checked and in their running order.
   *
   * @throws IllegalArgumentException naming an unknown part and the known ones
   */
  static List<String> parts(List<String> named) {
    for (String p : named) {
      if (!PARTS.contains(p.trim())) {
        throw new IllegalArgumentException(
            "unknown scale-out part '" + p + "'; known: " + String.join(", ", PARTS));
      }
    }
    return PARTS.stream().filter(p -> named.stream().anyMatch(n -> n.trim().equals(p))).toList();
  }

  @Override
  public double estimateSeconds(Options o) {
    List<String> parts = o.scaleOutParts();
    return (parts.contains("latency") ? o.rates().size() * 2 * latencySeconds(o) : 0)
        + (parts.contains("moving") ? movingSeconds(o) : 0)
        + (parts.contains("fanout") ? 3 * fanoutSeconds(o) : 0)
        + (parts.contains("failover") ? failoverSeconds(o) : 0);
  }

  private static double latencySeconds(Options o) {
    return o.warmupSeconds() + o.measureSeconds() + 6;
  }

  /** Filling the table, then two deployments that each load it twice and move a client. */
  private static double movingSeconds(Options o) {
    return 30 + o.snapshotRows() / 1_000_000.0 * 150;
  }

  private static double fanoutSeconds(Options o) {
    return o.warmupSeconds() + o.measureSeconds() + 26;
  }

  private static double failoverSeconds(Options o) {
    return 25 + CaptureFailoverRun.WARMUP_SECONDS + o.measureSeconds();
  }

  @Override
  public void run(Options o, Db db, Progress progress, Report report) throws Exception {
    Parts parts = new Parts(progress, estimateSeconds(o));
    List<String> chosen = o.scaleOutParts();
    for (int rate : chosen.contains("latency") ? o.rates() : List.<Integer>of()) {
      parts.next(latencySeconds(o));
      try (TablecastSubject single = TablecastSubject.start(db, LatencyRun.KEYS)) {
        latency.add(LatencyRun.measure(o, single, rate, progress));
      }
      parts.next(latencySeconds(o));
      progress.update(db.label() + " latency via NATS @" + rate + "/s: starting NATS", 0);
      try (TablecastSubject nats = TablecastSubject.throughNats(db, LatencyRun.KEYS)) {
        latency.add(LatencyRun.measure(o, nats, rate, progress));
      }
    }
    if (chosen.contains("moving")) {
      moving(o, db, progress, parts);
    }
    if (chosen.contains("fanout")) {
      fanOut(o, db, progress, parts);
    }
    if (chosen.contains("failover")) {
      parts.next(failoverSeconds(o));
      failovers.add(CaptureFailoverRun.measure(db, FAILOVER_RATE, o.measureSeconds(), progress));
    }
  }

  private void moving(Options o, Db db, Progress progress, Parts parts) throws Exception {
    long rows = o.snapshotRows();
    parts.next(movingSeconds(o) / 3);
    try (Rig rig =
        Rig.create(
            db,
            "moving",
            rows,
            n ->
                progress.update(
                    String.format(
                        "%s client moving: inserting %,d of %,d rows", db.label(), n, rows),
                    (double) n / rows))) {
      parts.next(movingSeconds(o) / 3);
      moves.add(ClientMoveRun.measure(rig, rows, false, progress));
      parts.next(movingSeconds(o) / 3);
      moves.add(ClientMoveRun.measure(rig, rows, true, progress));
    }
  }

  /** The figure's measurements as consecutive parts of its progress, by their estimates. */
  private static final class Parts {
    private final Progress progress;
    private final double total;
    private double done;

    Parts(Progress progress, double total) {
      this.progress = progress;
      this.total = total;
    }

    /** The next measurement, estimated at {@code seconds}. */
    void next(double seconds) {
      progress.part(Math.min(1, done / total), Math.min(1, (done + seconds) / total));
      done += seconds;
    }
  }

  /**
   * Figure 3's fan-out at the largest subscriber count K: one server with K and with 2K
   * subscribers, then two servers of one stream with K each.
   */
  private void fanOut(Options o, Db db, Progress progress, Parts parts) throws Exception {
    int k = o.subscribers().stream().mapToInt(Integer::intValue).max().orElse(1_000);
    try (Rig rig = Rig.create(db, "fanout_single", FanoutFigure.KEYS, n -> {})) {
      rig.startServer();
      List<Integer> one = List.of(rig.server().port());
      for (int subscribers : List.of(k, 2 * k)) {
        parts.next(fanoutSeconds(o));
        String label = String.format("one server, %,d subscribers", subscribers);
        fanoutLabels.add(label);
        fanout.add(
            FanoutFigure.measure(o, rig, one, subscribers, db.label() + " " + label, progress));
      }
    }
    parts.next(fanoutSeconds(o));
    try (Rig rig = Rig.create(db, "fanout_nats", FanoutFigure.KEYS, n -> {})) {
      StreamRig stream = rig.closeWith(StreamRig.start(rig, 2));
      List<Integer> two = List.of(stream.edge(0).port(), stream.edge(1).port());
      String label = String.format("capture + NATS + 2 servers, %,d subscribers each", k);
      fanoutLabels.add(label);
      fanout.add(FanoutFigure.measure(o, rig, two, k, db.label() + " " + label, progress));
    }
  }

  @Override
  public void finish(Options o, Report report) {
    if (latency.isEmpty() && moves.isEmpty() && fanout.isEmpty() && failovers.isEmpty()) {
      return;
    }
    Report.Section s =
        report.section("8. Scale-out through NATS JetStream: latency, a client moving, failover");
    if (!latency.isEmpty()) {
      s.text(
          "A `nats-server -js` of the run's own (Debian's package, NATS's default `max_payload`), "
              + "`tablecast capture` and the servers in this JVM. **Latency**: figure 1's measurement "
              + "(single-row `UPDATE`s, open loop, commit→visible in a generic mirror's listener), "
              + "once with the single process and once through capture → NATS → a server serving "
              + "from the stream, each on a fresh schema, one after the other. Goal: NATS adds at "
              + "most "
              + Report.fmt(GOAL_P50_MS)
              + " ms at p50 and "
              + Report.fmt(GOAL_P99_MS)
              + " ms at p99 at 1,000 changes/s. Times in ms.");
      List<List<String>> rows = new ArrayList<>();
      for (LatencyRun.Result r : latency) {
        rows.add(
            List.of(
                r.db().label(),
                r.system(),
                String.format("%,d", r.rate()),
                Report.fmt(r.achieved()),
                Report.fmt(Hist.ms(r.fromCommit(), 50)),
                Report.fmt(Hist.ms(r.fromCommit(), 99)),
                Report.fmt(Hist.ms(r.fromCommit(), 99.9)),
                Report.fmt(Hist.maxMs(r.fromCommit())),
                String.valueOf(r.missing()),
                added(r)));
      }
      s.table(
          List.of(
              "database",
              "path",
              "target/s",
              "achieved/s",
              "commit→visible p50",
              "p99",
              "p99.9",
              "max",
              "not seen",
              "added by NATS p50 / p99"),
          rows);
    }
    if (!moves.isEmpty()) {
      s.text(
          "**A client moving between servers** on a "
              + String.format("%,d", o.snapshotRows())
              + "-row table: its mirror is ready on server 1; while "
              + ClientMoveRun.RATE
              + " changes/s are written, server 1 is closed and the client reconnects to server 2"
              + " (the client's default reconnect settings). Bytes are what the server sent"
              + " to the client, counted by a relay in front of each server. Two servers on the"
              + " database have positions of their own (a re-snapshot); servers of one stream"
              + " share the stream's sequence (a resume).");
      List<List<String>> m = new ArrayList<>();
      for (ClientMoveRun.Result r : moves) {
        m.add(
            List.of(
                r.db().label(),
                r.deployment(),
                String.format("%,d", r.rows()),
                Report.fmt(r.firstReadySeconds()),
                Report.fmt(r.firstBytes() / 1e6),
                r.outcome(),
                Report.fmt(r.moveMillis()),
                Report.fmt(r.moveBytes() / 1e6),
                String.valueOf(r.differing())));
      }
      s.table(
          List.of(
              "database",
              "deployment",
              "rows",
              "first snapshot s",
              "MB",
              "on the move",
              "move ms",
              "MB",
              "rows differing after"),
          m);
    }
    if (!fanout.isEmpty()) {
      s.text(
          "**Fan-out across two servers**: figure 3's measurement ("
              + FanoutFigure.RATE
              + " changes/s committed, raw binary subscribers in this JVM) with one server and with"
              + " two servers of one stream, all on the machine's 2 cores: whether two servers"
              + " deliver twice the changes of one depends on the CPU they share.");
      List<List<String>> f = new ArrayList<>();
      for (int i = 0; i < fanout.size(); i++) {
        FanoutFigure.Result r = fanout.get(i);
        f.add(
            List.of(
                r.db().label(),
                fanoutLabels.get(i),
                Report.fmt(r.committedRate()),
                Report.fmt(r.deliveredRate()),
                String.format(
                    "%.0f%%",
                    100 * r.deliveredRate() / Math.max(1, r.subscribers() * r.committedRate())),
                ThreadCpu.pct(r.processCpu()),
                ThreadCpu.pct(r.machineCpu() - r.processCpu()),
                Report.fmt(r.lagP50()) + " / " + Report.fmt(r.lagP99())));
      }
      s.table(
          List.of(
              "database",
              "servers and subscribers",
              "committed/s",
              "delivered/s (sum)",
              "of ideal",
              "JVM process CPU",
              "rest of machine CPU",
              "capture→receipt p50 / p99 ms"),
          f);
    }
    if (!failovers.isEmpty()) {
      s.text(
          "**Capture failover**: `tablecast capture` as its own process (the leader) and a standby"
              + " in this JVM, `nats.capture_takeover` "
              + CaptureFailoverRun.TAKEOVER.toSeconds()
              + " s; "
              + FAILOVER_RATE
              + " single-row updates/s; the leader gets SIGKILL a third into the measured seconds."
              + " **takeover**: kill → the standby publishing; **longest gap**: the longest time"
              + " between two deliveries to the client's mirror; **seen twice / not seen**: versions"
              + " the mirror's listener saw more than once / never; **equal**: the mirror, caught"
              + " up, holds the table row by row. On both databases the new leader resumes after the"
              + " cursor recorded with the last batch the stream stored (no snapshot).");
      List<List<String>> g = new ArrayList<>();
      for (CaptureFailoverRun.Result r : failovers) {
        g.add(
            List.of(
                r.db().label(),
                String.format("%,d", r.writes()),
                String.valueOf(r.takeover().toMillis()),
                Report.fmt(r.longestGapMs()),
                Report.fmt(r.gapP99Ms()),
                String.valueOf(r.seenTwice()),
                String.valueOf(r.notSeen()),
                r.mirrorEqualsTable() ? "yes" : "**no**"));
      }
      s.table(
          List.of(
              "database",
              "updates",
              "takeover ms",
              "longest gap ms",
              "p99 gap ms",
              "seen twice",
              "not seen",
              "equal"),
          g);
    }
  }

  /** For a run through NATS: its p50 and p99 minus the single process's at the same rate. */
  private String added(LatencyRun.Result nats) {
    if (!nats.system().equals(TablecastSubject.THROUGH_NATS)) {
      return "";
    }
    for (LatencyRun.Result r : latency) {
      if (r.db() == nats.db()
          && r.rate() == nats.rate()
          && r.system().equals(TablecastSubject.SINGLE)) {
        double p50 = Hist.ms(nats.fromCommit(), 50) - Hist.ms(r.fromCommit(), 50);
        double p99 = Hist.ms(nats.fromCommit(), 99) - Hist.ms(r.fromCommit(), 99);
        boolean met = p50 <= GOAL_P50_MS && p99 <= GOAL_P99_MS;
        return Report.fmt(p50)
            + " / "
            + Report.fmt(p99)
            + (nats.rate() == 1_000 ? (met ? " (goal met)" : " (goal missed)") : "");
      }
    }
    return "";
  }
}

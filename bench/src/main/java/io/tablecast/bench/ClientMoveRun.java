package io.tablecast.bench;

import io.tablecast.client.ConnectionListener;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A client moving between two servers while changes are written: its mirror of a large table is
 * ready on server 1, server 1 is closed, and the client reconnects to server 2. With two servers on
 * the database (today's only way to run two) the position is server 1's own and server 2
 * re-snapshots the table; with capture + NATS + two servers serving from the stream the position is
 * the stream's sequence and server 2 resumes it. Measured: the time from closing server 1 to the
 * client's {@code resumed} or {@code resnapshotted} event (with the client's default reconnect
 * settings), the bytes server 2 sent until then ({@link CountingProxy}), and whether the mirror
 * then equals the table.
 */
final class ClientMoveRun {
  /** Row changes per second written while the client moves. */
  static final int RATE = 1_000;

  static final Duration WAIT = Duration.ofMinutes(3);

  record Result(
      Db db,
      String deployment,
      long rows,
      double firstReadySeconds,
      long firstBytes,
      String outcome,
      double moveMillis,
      long moveBytes,
      long differing) {}

  private ClientMoveRun() {}

  static Result measure(Rig rig, long rows, boolean throughStream, Progress progress)
      throws Exception {
    String deployment = throughStream ? "capture + NATS + 2 servers" : "2 servers on the database";
    String label = rig.schema.db().label() + " client moving, " + deployment;
    progress.update(label + ": starting the servers (each loads the table)", 0);
    TablecastServer s1;
    TablecastServer s2;
    AutoCloseable servers;
    if (throughStream) {
      StreamRig stream = StreamRig.start(rig, 2);
      s1 = stream.edge(0);
      s2 = stream.edge(1);
      servers = stream;
    } else {
      TablecastServer first = serverOnTheDatabase(rig, "bench-1");
      TablecastServer second;
      try {
        second = serverOnTheDatabase(rig, "bench-2");
      } catch (InterruptedException | RuntimeException e) {
        first.close();
        throw e;
      }
      s1 = first;
      s2 = second;
      servers =
          () -> {
            first.close();
            second.close();
          };
    }
    long[] movedAt = new long[2]; // nanoTime and server 2's bytes at the event
    String[] outcome = new String[1];
    CountDownLatch moved = new CountDownLatch(1);
    try (servers;
        CountingProxy p1 = new CountingProxy("127.0.0.1", s1.port());
        CountingProxy p2 = new CountingProxy("127.0.0.1", s2.port());
        TablecastClient client =
            TablecastClient.builder()
                .servers(p1.address(), p2.address())
                .clientName("bench-mover")
                .connectionListener(
                    new ConnectionListener() {
                      @Override
                      public void resumed(List<String> tables, long position) {
                        done("resumed", p2);
                      }

                      @Override
                      public void resnapshotted(String t, int ins, int upd, int del) {
                        done("re-snapshot (" + ins + "/" + upd + "/" + del + " i/u/d)", p2);
                      }

                      private void done(String how, CountingProxy p) {
                        movedAt[0] = System.nanoTime();
                        movedAt[1] = p.bytesToClients();
                        outcome[0] = how;
                        moved.countDown();
                      }
                    })
                .build()) {
      long t0 = System.nanoTime();
      TableMirror<Map<String, Object>> mirror = client.mirror(rig.table());
      while (!mirror.awaitReady(Duration.ofMillis(250))) {
        var sp = mirror.snapshotProgress();
        progress.update(
            String.format("%s: first snapshot, %,d of %,d rows", label, sp.rowsReceived(), rows),
            0.1 + 0.4 * sp.rowsReceived() / Math.max(1, rows));
        if (System.nanoTime() - t0 > WAIT.toNanos()) {
          throw new IllegalStateException(label + ": mirror not ready after " + WAIT);
        }
      }
      double firstReady = (System.nanoTime() - t0) / 1e9;
      long firstBytes = p1.bytesToClients();

      OpenLoopWriter w = new OpenLoopWriter(rig.schema, 4, RATE, RATE * 10L, 1, (int) rows);
      w.start();
      Thread.sleep(3_000);
      progress.update(label + ": server 1 closed while " + RATE + " changes/s are written", 0.6);
      long before = p2.bytesToClients();
      long closedAt = System.nanoTime();
      s1.close();
      if (!moved.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(label + ": the client did not move within " + WAIT);
      }
      double moveMillis = (movedAt[0] - closedAt) / 1e6;
      long moveBytes = movedAt[1] - before;
      progress.update(label + ": moved (" + outcome[0] + "), writing on", 0.8);
      w.join(60_000);
      w.check();
      long differing =
          MirrorCheck.awaitEqual(
              mirror,
              MirrorCheck.read(rig.schema),
              Duration.ofSeconds(60),
              n -> progress.update(label + ": catching up, " + n + " rows differ", 0.9));
      progress.note(
          String.format(
              "%s: first snapshot %.2f s, %,d bytes; moved by %s in %.0f ms, %,d bytes;"
                  + " %d rows differ at the end",
              label, firstReady, firstBytes, outcome[0], moveMillis, moveBytes, differing));
      return new Result(
          rig.schema.db(),
          deployment,
          rows,
          firstReady,
          firstBytes,
          outcome[0],
          moveMillis,
          moveBytes,
          differing);
    }
  }

  private static TablecastServer serverOnTheDatabase(Rig rig, String name)
      throws InterruptedException {
    return TablecastServer.start(
        ServerConfig.builder()
            .set("server_name", name)
            .listen("127.0.0.1", 0)
            .source(rig.sourceConfig())
            .build());
  }
}

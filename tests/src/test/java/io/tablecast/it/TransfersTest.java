package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Whole transactions under concurrency: concurrent money transfers (one transaction moves an amount
 * between two accounts) never show a reader of a mirror a different total, and clients that connect
 * in the middle of the writes end equal to the table. Seed: {@code -Dtablecast.seed}.
 */
class TransfersTest {
  private static final long SEED = Long.getLong("tablecast.seed", 20240611L);
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  @ParameterizedTest
  @EnumSource(Kind.class)
  void concurrentTransfersNeverShowAReaderADifferentTotal(Kind kind) throws Exception {
    System.out.printf("TransfersTest %s: -Dtablecast.seed=%d%n", kind, SEED);
    try (Pipeline p = Pipeline.start(kind, "transfers", TransferWorkload.ddl(), "accounts")) {
      TableMirror<Map<String, Object>> m = p.readyMirror(p.client("transfers"), "accounts");
      assertThat(TransferWorkload.total(m)).isEqualTo(TransferWorkload.TOTAL);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong scans = new AtomicLong();
      List<Long> wrongTotals = new java.util.concurrent.CopyOnWriteArrayList<>();
      Thread reader =
          new Thread(
              () -> {
                while (!stop.get()) {
                  long total = TransferWorkload.total(m);
                  scans.incrementAndGet();
                  if (total != TransferWorkload.TOTAL && wrongTotals.size() < 20) {
                    wrongTotals.add(total);
                  }
                }
              },
              "reader");
      reader.setDaemon(true);
      long startPosition = m.position();
      try (TransferWorkload w = new TransferWorkload(p, SEED)) {
        reader.start();
        w.start(3, false);
        w.awaitCommitted(600);
        w.stop();
        TransferWorkload.awaitConverged(p, m, CONVERGE);
        System.out.printf(
            "TransfersTest %s: %d transfers (%d retried after deadlock/lock wait), %d scans, "
                + "mirror moved from position %d to %d%n",
            kind, w.committed.get(), w.retries.get(), scans.get(), startPosition, m.position());
      } finally {
        stop.set(true);
        reader.join(10_000);
      }
      assertThat(wrongTotals)
          .as("totals seen by the reader (each one is half a transfer)")
          .isEmpty();
      assertThat(scans.get()).as("scans by the reader").isPositive();
      assertThat(m.position()).as("mirror position").isGreaterThan(startPosition);
      assertThat(TransferWorkload.total(m)).isEqualTo(TransferWorkload.TOTAL);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void clientsConnectingDuringHeavyWritesEndEqualToTheTable(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "joinbusy", TransferWorkload.ddl(), "accounts");
        TransferWorkload w = new TransferWorkload(p, SEED + 1)) {
      TableMirror<Map<String, Object>> first = p.readyMirror(p.client("first"), "accounts");
      w.start(3, true);
      List<TableMirror<Map<String, Object>>> joined = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        w.awaitCommitted(100);
        // connects while the writers keep going; ready means its snapshot is applied mid-stream
        TableMirror<Map<String, Object>> m = p.readyMirror(p.client("joiner-" + i), "accounts");
        assertThat(TransferWorkload.total(m))
            .as("total in the snapshot of joiner %d", i)
            .isEqualTo(TransferWorkload.TOTAL);
        joined.add(m);
      }
      w.awaitCommitted(100);
      w.stop();
      TransferWorkload.awaitConverged(p, first, CONVERGE);
      for (TableMirror<Map<String, Object>> m : joined) {
        TransferWorkload.awaitConverged(p, m, CONVERGE);
      }
      System.out.printf(
          "TransfersTest %s: %d transactions, %d rows at the end%n",
          kind, w.committed.get(), first.size());
    }
  }
}

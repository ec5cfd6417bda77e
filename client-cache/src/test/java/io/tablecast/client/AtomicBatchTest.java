package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.row;
import static io.tablecast.client.FakeServer.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Whole transactions: a reader never sees half of a transfer between two rows. */
class AtomicBatchTest {
  static final String T = "bank.accounts";
  static final int TRANSFERS = 5_000;

  record Account(long id, long balance) {}

  @Test
  void readersNeverSeeHalfATransaction() throws Exception {
    transfers(false);
  }

  /**
   * A batch too large for one frame arrives as {@code change_part}s and its final {@code
   * change_batch}: the parts are kept aside and applied with it, never alone.
   */
  @Test
  void readersNeverSeeHalfATransactionThatArrivesInParts() throws Exception {
    transfers(true);
  }

  private void transfers(boolean inParts) throws Exception {
    try (FakeServer server = new FakeServer();
        TablecastClient client = TablecastClient.builder().servers(server.address()).build()) {
      TableMirror<Account> m = client.mirror(T, Account.class);
      FakeServer.Conn conn = server.handshake(0);
      conn.expect(Message.Subscribe.class);
      conn.snapshot(
          T, List.of("id"), 0, row("id", 1, "balance", 500), row("id", 2, "balance", 500));
      assertThat(m.awaitReady(Duration.ofSeconds(10))).isTrue();

      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong scans = new AtomicLong();
      List<String> violations = new ArrayList<>();
      Thread reader =
          new Thread(
              () -> {
                while (!stop.get()) {
                  long rows = m.rows().stream().mapToLong(Account::balance).sum();
                  long map = m.copyToMap().values().stream().mapToLong(Account::balance).sum();
                  long streamed = m.stream().mapToLong(Account::balance).sum();
                  if (rows != 1000 || map != 1000 || streamed != 1000) {
                    synchronized (violations) {
                      violations.add("rows=" + rows + " map=" + map + " stream=" + streamed);
                    }
                  }
                  scans.incrementAndGet();
                }
              },
              "scanner");
      reader.start();

      long a = 500;
      long b = 500;
      List<Message> batches = new ArrayList<>();
      for (int i = 1; i <= TRANSFERS; i++) {
        long amount = ThreadLocalRandom.current().nextLong(-a, b + 1);
        long na = a + amount;
        long nb = b - amount;
        Message.Change first =
            update(T, row("id", 1, "balance", a), row("id", 1, "balance", na), 1);
        Message.Change second =
            update(T, row("id", 2, "balance", b), row("id", 2, "balance", nb), 2);
        if (inParts) {
          batches.add(new Message.ChangePart(i, List.of(first)));
          batches.add(batch(i, second));
        } else {
          batches.add(batch(i, first, second));
        }
        a = na;
        b = nb;
      }
      conn.send(batches.toArray(Message[]::new));
      await().atMost(Duration.ofSeconds(20)).until(() -> m.position() == TRANSFERS);
      stop.set(true);
      reader.join();

      assertThat(violations).isEmpty();
      assertThat(scans.get()).isPositive();
      assertThat(m.get(1).balance()).isEqualTo(a);
      assertThat(m.get(2).balance()).isEqualTo(b);
      Map<Object, Account> all = m.copyToMap();
      assertThat(all).hasSize(2);
    }
  }
}

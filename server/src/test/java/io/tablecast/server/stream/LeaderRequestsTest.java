package io.tablecast.server.stream;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.testing.NatsServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A server's requests to the capture leader over a real {@code nats-server}: a re-read reaches the
 * leader, which says it took it; with no leader listening the request fails naming the subject; a
 * sync a leader took and never answered is asked again of the next leader.
 */
class LeaderRequestsTest {

  @Test
  void aRereadReachesTheLeaderAndWithoutOneFailsNamingTheSubject() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20);
        Connection leader =
            NatsStreams.connect(new NatsSettings(List.of(n.url()), "S", null, null, null), "l");
        Connection server =
            NatsStreams.connect(new NatsSettings(List.of(n.url()), "S", null, null, null), "s")) {
      assertThatThrownBy(
              () -> LeaderRequests.askReread(server, "S", "public.t").get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasMessageContaining("no tablecast capture answered on NATS subject tablecast.S.reread");

      List<String> asked = new CopyOnWriteArrayList<>();
      LeaderRequests.answerRereads(leader, "S", asked::add);
      leader.flush(java.time.Duration.ofSeconds(5));
      LeaderRequests.askReread(server, "S", "public.t").get(10, TimeUnit.SECONDS);
      assertThat(asked).containsExactly("public.t");
    }
  }

  @Test
  void aSyncTheLeaderTookAndNeverAnsweredIsAskedAgainOfTheNextLeader() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20);
        Connection dying = connect(n, "dying");
        Connection next = connect(n, "next");
        Connection server = connect(n, "s")) {
      CountDownLatch taken = new CountDownLatch(1);
      Dispatcher holding = dying.createDispatcher(request -> taken.countDown()); // never answers
      holding.subscribe(LeaderRequests.subject("S"));
      dying.flush(Duration.ofSeconds(5));

      long t0 = System.nanoTime();
      CompletableFuture<Long> sync = LeaderRequests.ask(server, "S", Duration.ofSeconds(1));
      assertThat(taken.await(10, TimeUnit.SECONDS)).isTrue();
      dying.closeDispatcher(holding); // the leader stops, the request unanswered
      next.createDispatcher(r -> next.publish(r.getReplyTo(), "42".getBytes(US_ASCII)))
          .subscribe(LeaderRequests.subject("S"));
      next.flush(Duration.ofSeconds(5));

      assertThat(sync.get(10, TimeUnit.SECONDS)).isEqualTo(42L);
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(LeaderRequests.TIMEOUT);
    }
  }

  private static Connection connect(NatsServerProcess n, String name) throws InterruptedException {
    return NatsStreams.connect(new NatsSettings(List.of(n.url()), "S", null, null, null), name);
  }
}

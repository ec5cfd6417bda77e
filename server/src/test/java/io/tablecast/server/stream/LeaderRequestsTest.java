package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Connection;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.testing.NatsServerProcess;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A server's requests to the capture leader over a real {@code nats-server}: a re-read reaches the
 * leader, which says it took it; with no leader listening the request fails naming the subject.
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
}

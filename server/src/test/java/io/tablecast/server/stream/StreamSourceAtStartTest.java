package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.config.Secret;
import io.tablecast.server.testing.NatsServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server's stream source opened while NATS is away or refuses, against real {@code nats-server
 * -js} processes: NATS away is waited for, what only an operator can fix ends the start at once
 * with its message. (Serving once NATS is back, with a database and capture, is in the tests
 * module: NatsStreamResumeTest.)
 */
class StreamSourceAtStartTest {
  static final Duration WITHIN = Duration.ofSeconds(30);

  @Test
  void natsAwayIsWaitedForUntilItAnswers() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20)) {
      n.stop();
      CompletableFuture<StreamChangeSource> opening =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return StreamChangeSource.open(
                      new NatsSettings(List.of(n.url()), "TC_away", null, null, null),
                      null,
                      "edge");
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException(e);
                }
              });
      try {
        await()
            .during(Duration.ofSeconds(2))
            .atMost(WITHIN)
            .alias("the source waits for NATS instead of failing")
            .until(() -> !opening.isDone());
      } finally {
        opening.cancel(true);
      }
    }
  }

  @Test
  void aWrongPasswordEndsTheStartAtOnceWithTheServersAnswer() throws Exception {
    String auth = "authorization { user: edge, password: right }";
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20, auth)) {
      NatsSettings wrong =
          new NatsSettings(List.of(n.url()), "TC_auth", "edge", Secret.of("wrong"), null);
      assertTimeoutPreemptively( // a source that retried would never return
          WITHIN,
          () ->
              assertThatThrownBy(() -> StreamChangeSource.open(wrong, null, "edge"))
                  .hasMessageContaining("cannot connect to NATS at [" + n.url() + "]")
                  .hasMessageContaining("Authorization Violation"));
    }
  }

  @Test
  void aFileThatIsNoCredentialsFileEndsTheStartAtOnceNamingIt(@TempDir Path dir) throws Exception {
    Path creds = Files.writeString(dir.resolve("edge.creds"), "not a credentials file\n");
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20)) {
      NatsSettings bad =
          new NatsSettings(List.of(n.url()), "TC_creds", null, null, null)
              .withCredentialsFile(creds);
      assertTimeoutPreemptively(
          WITHIN,
          () ->
              assertThatThrownBy(() -> StreamChangeSource.open(bad, null, "edge"))
                  .hasMessageContaining("nats.credentials_file")
                  .hasMessageContaining(creds.toString()));
    }
  }
}

package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.tablecast.server.capture.CachedTable;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.config.Secret;
import io.tablecast.server.testing.NatsServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A capture standby facing a NATS that is away or refuses, against real {@code nats-server -js}
 * processes: what may pass by itself is waited for and reported, what only an operator can fix ends
 * the standby with its message. (Leading once NATS is back, with a database, is in the tests
 * module: NatsAwayAtStartTest.)
 */
class CaptureStandbyTest {
  static final Duration WITHIN = Duration.ofSeconds(60);

  /** A source the standby never reaches in these tests: they end before it leads, or it fails. */
  static final SourceConfig SOURCE =
      new SourceConfig(
          "jdbc:postgresql://127.0.0.1:1/nowhere",
          null,
          null,
          false,
          null,
          null,
          null,
          null,
          List.of(CachedTable.of("t")));

  private static NatsSettings settings(NatsServerProcess n, String stream) {
    return new NatsSettings(List.of(n.url()), stream, null, null, null)
        .withCaptureTakeover(Duration.ofSeconds(1));
  }

  @Test
  void natsAwayAtStartIsWaitedForAndReportedThenTheStandbyCompetes() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20)) {
      n.stop(); // away when the standby starts
      try (CaptureStandby standby =
              CaptureStandby.start(SOURCE, settings(n, "TC_away"), "standby");
          CaptureEndpoints http = CaptureEndpoints.start("127.0.0.1", 0, standby, null)) {
        await().atMost(WITHIN).until(standby::waitingForNats);
        assertThat(standby.natsProblem()).contains(n.url());
        assertThat(standby.failure()).as("NATS away is no reason to give up").isNull();
        assertThat(health(http))
            .isEqualTo("{\"status\":\"UP\",\"role\":\"standby\",\"waiting_for_nats\":true}\n");

        n.restart();
        await().atMost(WITHIN).until(() -> !standby.waitingForNats());
        try (Connection c = NatsStreams.connect(settings(n, "TC_away"), "test")) {
          await()
              .atMost(WITHIN)
              .alias("the standby created the stream and its lease bucket")
              .until(() -> c.keyValueManagement().getBucketNames().contains("TC_away_LEADER"));
          assertThat(NatsStreams.info(c, "TC_away")).isNotNull();
        }
        assertThat(standby.failure()).isNull();
      }
    }
  }

  @Test
  void natsWithoutJetStreamIsWaitedForNamingTheServerAndTheStream() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.startWithoutJetStream();
        CaptureStandby standby = CaptureStandby.start(SOURCE, settings(n, "TC_nojs"), "standby")) {
      await().atMost(WITHIN).until(standby::waitingForNats);
      assertThat(standby.natsProblem())
          .contains("NATS at " + n.url())
          .contains("stream TC_nojs")
          .contains("-js");
      assertThat(standby.failure()).isNull();
    }
  }

  @Test
  void aWrongPasswordEndsTheStandbyAtOnceWithTheServersAnswer() throws Exception {
    String auth = "authorization { user: capture, password: right }";
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20, auth);
        CaptureStandby standby =
            CaptureStandby.start(
                SOURCE,
                new NatsSettings(List.of(n.url()), "TC_auth", "capture", Secret.of("wrong"), null),
                "standby")) {
      await().atMost(WITHIN).until(() -> standby.failure() != null);
      assertThat(standby.failure())
          .hasMessageContaining("cannot connect to NATS at [" + n.url() + "]")
          .hasMessageContaining("Authorization Violation");
      assertThat(standby.waitingForNats()).isFalse();
    }
  }

  @Test
  void aFileThatIsNoCredentialsFileEndsTheStandbyAtOnceNamingIt(@TempDir Path dir)
      throws Exception {
    Path creds = Files.writeString(dir.resolve("capture.creds"), "not a credentials file\n");
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20);
        CaptureStandby standby =
            CaptureStandby.start(
                SOURCE, settings(n, "TC_creds").withCredentialsFile(creds), "standby")) {
      await().atMost(WITHIN).until(() -> standby.failure() != null);
      assertThat(standby.failure())
          .hasMessageContaining("nats.credentials_file")
          .hasMessageContaining(creds.toString());
      assertThat(standby.waitingForNats()).isFalse();
    }
  }

  @Test
  void aStreamPlacedOtherwiseEndsTheStandbyWithBothPlacements() throws Exception {
    try (NatsServerProcess n = NatsServerProcess.start(1 << 20)) {
      NatsSettings memory = settings(n, "TC_placed").withPlacement(1, "memory");
      try (Connection c = NatsStreams.connect(memory, "test")) {
        NatsStreams.createIfMissing(c, "TC_placed", memory);
      }
      try (CaptureStandby standby =
          CaptureStandby.start(SOURCE, settings(n, "TC_placed"), "standby")) {
        await().atMost(WITHIN).until(() -> standby.failure() != null);
        assertThat(standby.failure())
            .hasMessageContaining(
                "NATS stream TC_placed exists with replicas 1 and storage memory");
      }
    }
  }

  private static String health(CaptureEndpoints http) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/health"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}

package io.tablecast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The part of figure 1 shared by the external clients: their lines ({@link VersionLine}) and a
 * client process that misbehaves ({@link LineFedSubject}), without a database.
 */
class LineFedSubjectTest {

  @Test
  void watchChangeLineGivesTheVersionAfterTheChange() {
    VersionLine v =
        VersionLine.parse(
            "{\"table\":\"s.bench_rows\",\"op\":\"UPDATE\",\"key\":[7],"
                + "\"before\":{\"id\":7,\"version\":0},\"after\":{\"id\":7,\"version\":42}}");
    assertThat(v.ready()).isFalse();
    assertThat(v.version()).isEqualTo(42);
    assertThat(v.emittedAtMillis()).isNaN();
  }

  @Test
  void javascriptLineGivesVersionAndClientClock() {
    VersionLine v = VersionLine.parse("{\"version\":\"9007199254740993\",\"at\":1.5}");
    assertThat(v.version()).isEqualTo(9007199254740993L);
    assertThat(v.emittedAtMillis()).isEqualTo(1.5);
    assertThat(VersionLine.parse("{\"ready\":10000}").ready()).isTrue();
  }

  @Test
  void lineWithoutVersionIsRefusedNamingIt() {
    assertThatThrownBy(() -> VersionLine.parse("{\"op\":\"DELETE\",\"after\":null}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("carries no version")
        .hasMessageContaining("DELETE");
    assertThatThrownBy(() -> VersionLine.parse("{\"error\":\"UNKNOWN_TABLE: s.t\"}"))
        .hasMessageContaining("UNKNOWN_TABLE");
    assertThatThrownBy(() -> VersionLine.parse("{\"version\":\"x1\"}"))
        .hasMessageContaining("not a whole number");
  }

  @Test
  void malformedLineIsRefusedNamingIt() {
    assertThatThrownBy(() -> VersionLine.parse("watching s.t (3 rows)"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a JSON line: 'watching s.t (3 rows)'");
    assertThatThrownBy(() -> VersionLine.parse("[1,2]")).hasMessageContaining("not a JSON object");
  }

  @Test
  void readyThenVersionLinesReachTheListener() throws Exception {
    LineFedSubject s = new LineFedSubject("test", null);
    List<Long> versions = new ArrayList<>();
    s.onVisible((version, now) -> versions.add(version));
    s.follow(
        new ProcessBuilder(
            "sh", "-c", "echo '{\"ready\":2}'; echo '{\"version\":1,\"at\":0}'; sleep 30"),
        true,
        null);
    try {
      s.awaitReady(Duration.ofSeconds(20));
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> versions.contains(1L));
    } finally {
      s.close();
    }
  }

  @Test
  void processThatExitsEarlyFailsWithItsCodeAndOutput() throws Exception {
    LineFedSubject s = new LineFedSubject("test", null);
    s.follow(new ProcessBuilder("sh", "-c", "echo 'no such table' >&2; exit 3"), true, null);
    assertThatThrownBy(() -> s.awaitReady(Duration.ofSeconds(20)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("sh exited early with code 3")
        .hasMessageContaining("no such table");
  }

  @Test
  void malformedLineFromTheProcessStopsTheRun() throws Exception {
    LineFedSubject s = new LineFedSubject("test", null);
    s.follow(new ProcessBuilder("sh", "-c", "echo 'oops'; sleep 30"), true, null);
    try {
      assertThatThrownBy(() -> s.awaitReady(Duration.ofSeconds(20)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("test: not a JSON line: 'oops'");
    } finally {
      s.close();
    }
  }

  @Test
  void missingProgramFailsSayingHowToInstallIt() {
    assertThatThrownBy(
            () -> ExternalClient.program("tablecast-no-such-program", "apt-get install chromium"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "tablecast-no-such-program not found on the PATH: install it (apt-get install chromium)");
  }

  /**
   * The browser page sends the lines of one batch as one message (bench/js/mirror-versions.mjs):
   * every line of it reaches the listener, not only the first.
   */
  @Test
  void everyLineOfOneWebSocketMessageReachesTheListener() throws Exception {
    LineFedSubject s = new LineFedSubject("test", null);
    List<Long> versions = new CopyOnWriteArrayList<>();
    s.onVisible((version, now) -> versions.add(version));
    try (VersionWebSocketEndpoint endpoint = VersionWebSocketEndpoint.start(s)) {
      WebSocket ws =
          HttpClient.newHttpClient()
              .newWebSocketBuilder()
              .buildAsync(URI.create(endpoint.url()), new WebSocket.Listener() {})
              .get(20, TimeUnit.SECONDS);
      ws.sendText("{\"ready\":3}", true).get(20, TimeUnit.SECONDS);
      ws.sendText(
              "{\"version\":1,\"at\":0}\n{\"version\":2,\"at\":0}\n{\"version\":3,\"at\":0}", true)
          .get(20, TimeUnit.SECONDS);
      s.awaitReady(Duration.ofSeconds(20));
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> versions.size() == 3);
      assertThat(versions).containsExactly(1L, 2L, 3L);
      ws.abort();
    } finally {
      s.close();
    }
  }
}

package io.tablecast.cli;

import static io.tablecast.cli.UnknownCommandTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.cli.UnknownCommandTest.Run;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * What {@code watch} and {@code dump} say about their connection: a line per change of state, and
 * when they give up, why the last attempt failed.
 */
class ConnectionReportTest {

  @Test
  void aLinePerChangeOfStateNotPerAttempt() {
    StringWriter text = new StringWriter();
    ConnectionReport report = new ConnectionReport("watch", new PrintWriter(text));
    report.connected("a:1"); // the first connection, as expected: nothing to say
    report.disconnected("a:1", "connection closed");
    report.connectFailed("a:1", "Connection refused");
    report.connectFailed("a:1", "Connection refused"); // the next backoff's attempt
    report.connectFailed("b:2", "unknown host");
    assertThat(report.lastFailure()).isEqualTo("cannot connect to b:2: unknown host");
    report.connected("a:1");
    report.resnapshotted("s.t", 1, 2, 3);
    report.disconnected("a:1", "client closed"); // the command ending
    assertThat(report.lastFailure()).isNull();
    assertThat(text.toString().lines())
        .containsExactly(
            "tablecast watch: lost the connection to a:1 (connection closed); reconnecting",
            "tablecast watch: cannot connect to a:1: Connection refused; trying again",
            "tablecast watch: cannot connect to b:2: unknown host; trying again",
            "tablecast watch: connected to a:1",
            "tablecast watch: s.t snapshotted again (the server could not resume it), rows: 1"
                + " inserted, 2 updated, 3 deleted");
  }

  @Test
  void aDumpThatCannotConnectSaysWhyWhenItGivesUp() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort(); // nothing listens there once closed
    }
    Run dump = run("dump", "s.t", "--server", "127.0.0.1:" + port, "--timeout", "1500ms");
    assertThat(dump.exitCode()).isEqualTo(1);
    assertThat(dump.out()).isEmpty();
    assertThat(dump.err())
        .contains("tablecast dump: cannot connect to 127.0.0.1:" + port + ": Connection refused")
        .contains(
            "tablecast dump: no snapshot of s.t within 1500ms from 127.0.0.1:"
                + port
                + "; the last attempt: cannot connect to 127.0.0.1:"
                + port
                + ": Connection refused");
  }

  @Test
  void durationsAreSaidAsTheyAreTyped() {
    DurationConverter parse = new DurationConverter();
    for (String typed : new String[] {"0", "250ms", "30s", "90s", "5m", "1h", "36h"}) {
      assertThat(DurationConverter.format(parse.convert(typed))).isEqualTo(typed);
    }
    assertThat(DurationConverter.format(parse.convert("PT1M30S"))).isEqualTo("90s");
    assertThat(DurationConverter.format(java.time.Duration.ofNanos(1500)))
        .isEqualTo("PT0.0000015S");
  }
}

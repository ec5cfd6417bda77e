package io.tablecast.it;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.CaptureStandby;
import java.time.Duration;
import java.util.List;

/**
 * A {@code capture} candidate in a JVM of its own, for {@link NatsCaptureFailoverTest} to kill with
 * SIGKILL: args are the JDBC URL, the cached tables (comma-separated), the NATS URL, the stream,
 * the takeover time in milliseconds and a name. Prints {@code LEADING} once it publishes.
 */
public final class CaptureProcessMain {
  private CaptureProcessMain() {}

  public static void main(String[] args) throws Exception {
    SourceConfig source =
        new SourceConfig(
            args[0],
            null,
            null,
            List.of(args[1].split(",")),
            true,
            null,
            null,
            Pipeline.RECONCILE_EVERY,
            Pipeline.CAPTURE_CHECK_EVERY);
    NatsSettings nats =
        new NatsSettings(List.of(args[2]), args[3], null, null, null)
            .withCaptureTakeover(Duration.ofMillis(Long.parseLong(args[4])));
    CaptureStandby standby = CaptureStandby.start(source, nats, args[5]);
    while (!standby.leading()) {
      Thread.sleep(20);
    }
    System.out.println("LEADING");
    System.out.flush();
    standby.awaitTermination();
  }
}

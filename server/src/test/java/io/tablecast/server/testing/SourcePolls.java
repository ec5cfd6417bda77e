package io.tablecast.server.testing;

import static org.awaitility.Awaitility.await;

import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.RowEvent;
import java.time.Duration;
import java.util.List;

/** Polls of a change source in tests. */
public final class SourcePolls {
  private SourcePolls() {}

  /** Polls {@code source} into {@code events} until it holds at least {@code n} (10 s at most). */
  public static void awaitEvents(ChangeSource source, List<RowEvent> events, int n) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              events.addAll(source.poll(Duration.ofMillis(100)).events());
              return events.size() >= n;
            });
  }
}

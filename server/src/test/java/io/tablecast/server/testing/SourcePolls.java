package io.tablecast.server.testing;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.RowEvent;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

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

  /**
   * The source's snapshot: each row as its JSON text ({@link Rows#text}), by the integer value of
   * its column {@code column}, in that order.
   */
  public static SortedMap<Integer, String> snapshotTexts(ChangeSource source, String column)
      throws SQLException {
    SortedMap<Integer, String> rows = new TreeMap<>();
    source.snapshot(
        (t, row) -> {
          ObjectNode json = Rows.json(t, row);
          rows.put(json.get(column).asInt(), Rows.text(json));
        });
    return rows;
  }
}

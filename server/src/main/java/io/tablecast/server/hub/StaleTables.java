package io.tablecast.server.hub;

import io.tablecast.protocol.Message;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import io.tablecast.server.tail.CommittedBatch;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;

/**
 * The cached tables whose mirrors the server knows may differ from the table, and why: each table
 * is stale while any of its causes holds (a changed row that could not be read, named by its key).
 * When a table turns stale or follows its table again, its subscribed sessions are told ({@code
 * table_status}), the log says so (ERROR when it turns stale) and so does {@code
 * tablecast.table.stale{table}}. Hub thread only, except {@link #count()}.
 */
final class StaleTables {

  private static final Logger LOG = RecentEvents.logger(StaleTables.class);

  private final ServerMetrics metrics;

  /** Per table, cause -> reason, in the order found. */
  private final Map<String, Map<String, String>> causes = new TreeMap<>();

  /** How many tables are stale, for {@code /health} (which must not wait for the hub). */
  private volatile int count;

  StaleTables(ServerMetrics metrics) {
    this.metrics = metrics;
  }

  /** Applies one change and tells whoever should know when the table's status changed. */
  void apply(CommittedBatch.Staleness s, Collection<Subscriber> sessions) {
    Message.TableStatus status = apply(s);
    if (status == null) {
      return;
    }
    count = causes.size();
    metrics.tableStale(s.table(), status.stale());
    if (status.stale()) {
      LOG.error(
          "table {} is stale: its mirrors may differ from it until it is repaired: {}",
          s.table(),
          status.reason());
    } else {
      LOG.info("table {} follows its table again", s.table());
    }
    for (Subscriber session : sessions) {
      if (session.tables().contains(s.table())) {
        session.sendMessage(status);
      }
    }
  }

  /** How many tables are stale now. Any thread. */
  int count() {
    return count;
  }

  /**
   * Applies one change; returns the table's new status when it turned stale or fresh, or when a
   * cause it is stale for was said again in other words that change its status's reason (the tail
   * said every table stale as unanswered, and then with the error its reads fail on); null when its
   * status did not change (another cause came or went). Before, a cause said again was kept but
   * never told: the mirrors kept the first words.
   */
  Message.TableStatus apply(CommittedBatch.Staleness s) {
    Map<String, String> reasons = causes.get(s.table());
    boolean wasStale = reasons != null;
    String saidBefore = wasStale ? status(s.table()).reason() : null;
    String causeBefore = wasStale ? reasons.get(s.cause()) : null;
    if (s.reason() != null) {
      causes.computeIfAbsent(s.table(), t -> new LinkedHashMap<>()).put(s.cause(), s.reason());
    } else if (reasons != null) {
      reasons.remove(s.cause());
      if (reasons.isEmpty()) {
        causes.remove(s.table());
      }
    }
    boolean stale = causes.containsKey(s.table());
    if (stale != wasStale) {
      return status(s.table());
    }
    boolean reworded = causeBefore != null && s.reason() != null && !causeBefore.equals(s.reason());
    if (reworded) {
      Message.TableStatus now = status(s.table());
      return now.reason().equals(saidBefore) ? null : now;
    }
    return null;
  }

  /** The table's status: stale with its first reason (and how many more), or fresh. */
  Message.TableStatus status(String table) {
    Map<String, String> reasons = causes.get(table);
    if (reasons == null) {
      return new Message.TableStatus(table, false, null);
    }
    String first = reasons.values().iterator().next();
    return new Message.TableStatus(
        table,
        true,
        reasons.size() == 1 ? first : first + " (and " + (reasons.size() - 1) + " more)");
  }

  boolean isStale(String table) {
    return causes.containsKey(table);
  }

  /** Every stale table with its reason (see {@link #status}). */
  Map<String, String> all() {
    Map<String, String> out = new LinkedHashMap<>();
    causes.keySet().forEach(t -> out.put(t, status(t).reason()));
    return out;
  }
}

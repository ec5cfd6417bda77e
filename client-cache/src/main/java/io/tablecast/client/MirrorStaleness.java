package io.tablecast.client;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Why a mirror may differ from its table: what the server said ({@code table_status}) and what the
 * mirror found itself ({@link RowFit}), as one reason its readers see and its stale listeners hear
 * when it changes. Written on the event loop, read from any thread.
 */
final class MirrorStaleness {
  private static final Logger log = LoggerFactory.getLogger(MirrorStaleness.class);

  private final String table;
  private final RowFit fit;
  private final ListenerDispatcher dispatcher;
  private final List<StaleListener> listeners = new CopyOnWriteArrayList<>();

  /** What the server said (null: it follows the table). */
  private volatile String server;

  /**
   * The rows came from a mirror file and no server has brought them up to date yet (null: they did,
   * or they did not come from a file).
   */
  private volatile String restored;

  /**
   * A server refused the table after the mirror had followed it (null: it did not, or a server has
   * served it since).
   */
  private volatile String refused;

  private volatile String reason;

  MirrorStaleness(String table, RowFit fit, ListenerDispatcher dispatcher) {
    this.table = table;
    this.fit = fit;
    this.dispatcher = dispatcher;
  }

  /** Why the mirror may differ from its table, or null. Any thread. */
  String reason() {
    return reason;
  }

  Subscription addListener(StaleListener listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** The server said whether the table is stale (reason) or followed (null). Event loop only. */
  void server(String serverReason) {
    server = serverReason;
    refresh();
  }

  /**
   * The rows came from a mirror file ({@code why} says which), until {@link #caughtUp}. Before the
   * mirror is attached, or on the event loop.
   */
  void restored(String why) {
    restored = why;
    refresh();
  }

  /**
   * A server refused the table ({@code why}, the server's words) after the mirror had followed it:
   * its rows are as they were, and the client asks for the table again at each reconnect. Event
   * loop only.
   */
  void refused(String why) {
    refused = refusal(why);
    refresh();
  }

  /** The reason of a mirror whose table a server refused ({@code why}) after it was served. */
  static String refusal(String why) {
    return why
        + "; the mirror keeps the rows it held and asks for the table again at each reconnect";
  }

  /**
   * A snapshot or resume brought the mirror up to date: rows from a file and rows a server had
   * refused to keep current are current again. Event loop only.
   */
  void caughtUp() {
    restored = null;
    refused = null;
    refresh();
  }

  /**
   * Tells readers and listeners when the server's reason or the row type's fit changed. Event loop
   * only.
   */
  void refresh() {
    String now = join(join(join(refused, restored), server), fit.reason());
    if (Objects.equals(now, reason)) {
      return;
    }
    reason = now;
    if (now != null) {
      log.warn("mirror of {} is stale: {}", table, now);
    } else {
      log.info("mirror of {} follows its table again", table);
    }
    for (StaleListener l : listeners) {
      dispatcher.run("stale listener of " + table, () -> l.staleChanged(now));
    }
  }

  private static String join(String a, String b) {
    return a == null ? b : b == null ? a : a + "; " + b;
  }
}

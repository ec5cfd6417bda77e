package io.tablecast.server.log;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last WARN and ERROR lines the server logged, kept in memory for the operations console:
 * whatever logging backend is installed (slf4j-simple today, another later) and whatever level it
 * is configured at. The server's classes take their logger from {@link #logger(Class)}, which logs
 * through SLF4J as before and also records its WARN and ERROR lines here. Process-wide, like the
 * loggers: a JVM running two servers (tests) shows the events of both. Thread-safe.
 */
public final class RecentEvents {

  /** How many events are kept; the oldest goes first. */
  public static final int CAPACITY = 200;

  /** Longest message kept, in characters; a longer one is cut and ends with an ellipsis. */
  static final int MAX_MESSAGE_CHARS = 2000;

  private static final RecentEvents GLOBAL = new RecentEvents(CAPACITY);

  /**
   * One logged line.
   *
   * @param timeMillis when it was logged (epoch ms)
   * @param level {@code WARN} or {@code ERROR}
   * @param logger the logger's name (the class that logged it)
   * @param thread the thread that logged it
   * @param message the message with its arguments filled in
   * @param error the exception's class and message when one was logged, else null
   */
  public record Event(
      long timeMillis, String level, String logger, String thread, String message, String error) {}

  private final int capacity;
  private final ArrayDeque<Event> events;
  private long warnings;
  private long errors;

  /** An empty recorder of the last {@code capacity} events (tests; the server uses one). */
  public RecentEvents(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
    }
    this.capacity = capacity;
    this.events = new ArrayDeque<>(capacity);
  }

  /** The recorder of this process, which {@link #logger(Class)}'s loggers write to. */
  public static RecentEvents global() {
    return GLOBAL;
  }

  /**
   * The SLF4J logger of {@code type}, whose WARN and ERROR lines are also kept in {@link
   * #global()}.
   */
  public static Logger logger(Class<?> type) {
    return new RecordingLogger(LoggerFactory.getLogger(type), GLOBAL);
  }

  /** Keeps one event, dropping the oldest when full. */
  public void record(Event event) {
    Event kept =
        event.message() != null && event.message().length() > MAX_MESSAGE_CHARS
            ? new Event(
                event.timeMillis(),
                event.level(),
                event.logger(),
                event.thread(),
                event.message().substring(0, MAX_MESSAGE_CHARS) + "…",
                event.error())
            : event;
    synchronized (this) {
      if (events.size() == capacity) {
        events.removeFirst();
      }
      events.addLast(kept);
      if ("ERROR".equals(kept.level())) {
        errors++;
      } else {
        warnings++;
      }
    }
  }

  /** The kept events, newest first. */
  public synchronized List<Event> newestFirst() {
    List<Event> out = new ArrayList<>(events.size());
    events.descendingIterator().forEachRemaining(out::add);
    return out;
  }

  /** WARN lines recorded since the start, including those no longer kept. */
  public synchronized long warnings() {
    return warnings;
  }

  /** ERROR lines recorded since the start, including those no longer kept. */
  public synchronized long errors() {
    return errors;
  }
}

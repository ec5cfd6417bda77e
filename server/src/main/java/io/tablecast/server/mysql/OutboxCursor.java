package io.tablecast.server.mysql;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * Where a MySQL/MariaDB tail stands in the outbox, as text a later run resumes after ({@code
 * ChangeSource.cursor}): the highest id delivered and the ids below it that may still appear (the
 * {@link GapTracker}'s gaps: single ids, and ranges with the ids already delivered in them). A
 * resumed tail takes every gap as unsettled again: its next looks at the open transactions (or lock
 * probes) settle it as a new gap would be, so resuming waits for late commits and never skips one.
 *
 * <p>Text: {@code mysql1;<maxSeen>;<gap>,<gap>...;<from>-<to>:<delivered>.<delivered>...|...}.
 *
 * @param maxSeen the highest outbox id delivered
 * @param gaps ids below {@code maxSeen} not delivered that may still appear
 * @param ranges runs of such ids too long to list, each with the ids delivered inside it
 */
record OutboxCursor(long maxSeen, List<Long> gaps, List<Range> ranges) {
  static final String PREFIX = "mysql1";

  /**
   * The longest cursor recorded: it travels in a NATS header beside a batch part, which leaves 4
   * KiB for headers ({@code GroupPublisher.HEADER_ROOM}). A position with more unresolved ids than
   * that (hundreds of transactions in flight at once) is recorded as {@link #TOO_LONG}, after which
   * a restart takes a snapshot.
   */
  static final int MAX_CHARS = 2048;

  /** Recorded instead of a cursor longer than {@link #MAX_CHARS}: no resume from here. */
  static final String TOO_LONG = PREFIX + ";too-many-gaps";

  /** Ids in {@code [from, to)} that may still appear, except {@code delivered}. */
  record Range(long from, long to, List<Long> delivered) {}

  OutboxCursor {
    gaps = List.copyOf(gaps);
    ranges = List.copyOf(ranges);
  }

  /** Rows below this id are delivered or rolled back: what may be pruned once acknowledged. */
  long lowestUnresolved() {
    long low = maxSeen;
    for (long g : gaps) {
      low = Math.min(low, g);
    }
    for (Range r : ranges) {
      low = Math.min(low, r.from());
    }
    return low;
  }

  String encode() {
    StringJoiner g = new StringJoiner(",");
    gaps.forEach(id -> g.add(Long.toString(id)));
    StringJoiner r = new StringJoiner("|");
    for (Range range : ranges) {
      StringJoiner d = new StringJoiner(".");
      range.delivered().forEach(id -> d.add(Long.toString(id)));
      r.add(range.from() + "-" + range.to() + ":" + d);
    }
    String text = PREFIX + ";" + maxSeen + ";" + g + ";" + r;
    return text.length() <= MAX_CHARS ? text : TOO_LONG;
  }

  /**
   * @throws IllegalArgumentException when {@code text} is not a cursor of this form
   */
  static OutboxCursor parse(String text) {
    if (text.equals(TOO_LONG)) {
      throw new IllegalArgumentException(
          "the outbox position recorded last had more unresolved ids than a cursor holds");
    }
    String[] parts = text.split(";", -1);
    if (parts.length != 4 || !parts[0].equals(PREFIX)) {
      throw new IllegalArgumentException("not a MySQL/MariaDB outbox cursor: " + text);
    }
    try {
      List<Long> gaps = ids(parts[2], ",");
      List<Range> ranges = new ArrayList<>();
      if (!parts[3].isEmpty()) {
        for (String range : parts[3].split("\\|", -1)) {
          int dash = range.indexOf('-');
          int colon = range.indexOf(':');
          ranges.add(
              new Range(
                  Long.parseLong(range.substring(0, dash)),
                  Long.parseLong(range.substring(dash + 1, colon)),
                  ids(range.substring(colon + 1), ".")));
        }
      }
      return new OutboxCursor(Long.parseLong(parts[1]), gaps, ranges);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a MySQL/MariaDB outbox cursor: " + text, e);
    }
  }

  private static List<Long> ids(String list, String separator) {
    List<Long> ids = new ArrayList<>();
    if (!list.isEmpty()) {
      for (String id : list.split(java.util.regex.Pattern.quote(separator), -1)) {
        ids.add(Long.parseLong(id));
      }
    }
    return ids;
  }
}

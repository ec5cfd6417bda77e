package io.tablecast.server.tail;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;

/**
 * A source's position as a {@link ChangeSource#cursor()} carries it: the position in the outbox and
 * the database instance it was read from ({@link InstanceWatch}), so that a capture resuming after
 * a failover of the database does not read on from a position of another instance. A cursor of a
 * version before it has no instance and resumes as before.
 *
 * @param instance null when not known
 */
record InstanceCursor(String position, DatabaseInstance instance) {
  private static final String MARK = "#db=";

  /** {@code position}, with {@code instance} when known; null when {@code position} is. */
  static String join(String position, DatabaseInstance instance) {
    if (position == null || instance == null) {
      return position;
    }
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    Instant started = instance.started();
    return position
        + MARK
        + b64.encodeToString(instance.name().getBytes(StandardCharsets.UTF_8))
        + ","
        + instant(started)
        + ","
        + instance.slack().toMillis()
        + (instance.recovered() == null ? "" : "," + instant(instance.recovered()));
  }

  private static String instant(Instant t) {
    return t.getEpochSecond() + "." + t.getNano();
  }

  private static Instant instant(String text) {
    String[] parts = text.split("\\.", -1);
    return Instant.ofEpochSecond(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
  }

  /**
   * @throws IllegalArgumentException when the instance part is malformed
   */
  static InstanceCursor parse(String cursor) {
    int at = cursor.lastIndexOf(MARK);
    if (at < 0) {
      return new InstanceCursor(cursor, null);
    }
    String[] parts = cursor.substring(at + MARK.length()).split(",", -1);
    try {
      return new InstanceCursor(
          cursor.substring(0, at),
          new DatabaseInstance(
              new String(Base64.getUrlDecoder().decode(parts[0]), StandardCharsets.UTF_8),
              instant(parts[1]),
              Duration.ofMillis(Long.parseLong(parts[2])),
              parts.length > 3 ? instant(parts[3]) : null));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a cursor of this source: " + cursor, e);
    }
  }
}

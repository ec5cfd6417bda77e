package io.tablecast.server.stream;

import io.nats.client.impl.Headers;

/**
 * The headers of the stream's messages. A committed batch is one message group: one message, or
 * parts when it is larger than the server's {@code max_payload}; every part carries the group's id
 * and its number, and a server applies a group only once it holds all its parts.
 */
final class StreamHeaders {

  /** The group's id: the capture run's id and the group's number in that run. */
  static final String GROUP = "Tablecast-Group";

  /** {@code i/n}: this message is part i (from 1) of the n parts of its group. */
  static final String PART = "Tablecast-Part";

  /** What the group holds: one of the {@code KIND_*} values. */
  static final String KIND = "Tablecast-Kind";

  /** On the last part of the last group of a batch: where the source resumes after it. */
  static final String CURSOR = "Tablecast-Cursor";

  /** Epoch millis of the newest change in the group, as the outbox recorded it. */
  static final String CAPTURE_MILLIS = "Tablecast-Capture-Millis";

  /** Committed changes (whole transactions), or a table read of reconciliation or resync. */
  static final String KIND_BATCH = "batch";

  /** One table of a snapshot capture took at its start. */
  static final String KIND_SNAPSHOT = "snapshot";

  /** The last table of a snapshot: after it, the snapshot is whole. */
  static final String KIND_SNAPSHOT_END = "snapshot-end";

  private StreamHeaders() {}

  /** Part number and count of a message. */
  record Part(int number, int count) {
    static Part of(Headers h) {
      String text = h == null ? null : h.getFirst(PART);
      if (text == null) {
        throw new IllegalArgumentException("a message without " + PART + ": not Tablecast's");
      }
      int slash = text.indexOf('/');
      return new Part(
          Integer.parseInt(text.substring(0, slash)), Integer.parseInt(text.substring(slash + 1)));
    }

    boolean last() {
      return number == count;
    }

    @Override
    public String toString() {
      return number + "/" + count;
    }
  }
}

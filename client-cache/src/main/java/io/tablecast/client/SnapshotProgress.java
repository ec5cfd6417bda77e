package io.tablecast.client;

/**
 * How far a mirror's latest snapshot has come: the rows received and the rows the server announced
 * at its start ({@link TableMirror#snapshotProgress()}). A snapshot is complete when the mirror is
 * ready; rows changed meanwhile may make the two counts differ slightly.
 *
 * @param rowsReceived rows of the snapshot received so far
 * @param rowsExpected rows the server said the snapshot holds
 */
public record SnapshotProgress(long rowsReceived, long rowsExpected) {

  /** Before the first snapshot began. */
  public static final SnapshotProgress NONE = new SnapshotProgress(0, 0);
}

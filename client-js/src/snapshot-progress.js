// How far a mirror's latest snapshot has come, and the snapshots the end of the connection cut
// short: the JavaScript side of the Java client's SnapshotProgress and its counter
// tablecast.client.snapshots.cut. Internal module, used by table-mirror.js.

/** Rows received of the rows the server announced, and the snapshots lost to a connection's end. */
export class SnapshotProgress {
  rowsReceived = 0;
  rowsExpected = 0;
  /** Snapshots the end of the connection cut short since the mirror was created. */
  cutShort = 0;
  /** Of those, since the table was last in sync. */
  #inARow = 0;
  #inFlight = false;

  /** A snapshot of `rowsExpected` rows begins. */
  begin(rowsExpected) {
    this.rowsReceived = 0;
    this.rowsExpected = rowsExpected ?? 0;
    this.#inFlight = true;
  }

  /** `count` more rows of it came. */
  add(count) {
    this.rowsReceived += count;
  }

  /** The table is in sync again (its snapshot ended, or it was resumed). */
  settled() {
    this.#inFlight = false;
    this.#inARow = 0;
  }

  /** The server refused the table: no snapshot is in flight any more, none was cut short. */
  dropped() {
    this.#inFlight = false;
  }

  /**
   * The connection ended: the detail of a `snapshotcut` event when a snapshot was in flight
   * (`{rowsReceived, rowsExpected, inARow}`), else null.
   */
  cut() {
    if (!this.#inFlight) return null;
    this.#inFlight = false;
    this.cutShort++;
    this.#inARow++;
    return Object.freeze({
      rowsReceived: this.rowsReceived,
      rowsExpected: this.rowsExpected,
      inARow: this.#inARow,
    });
  }

  /** A frozen copy for applications: `{rowsReceived, rowsExpected}`. */
  view() {
    return Object.freeze({ rowsReceived: this.rowsReceived, rowsExpected: this.rowsExpected });
  }
}

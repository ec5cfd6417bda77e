// Why a mirror may differ from its table, as one reason: what the server said (`table_status`),
// rows read from a saved file that no server brought up to date yet, and a table a server refused
// after it was served. Internal module of TableMirror; the Java client's counterpart is
// `MirrorStaleness`.

export class MirrorStaleness {
  /** The reason readers see, or null while the mirror follows its table. */
  reason = null;
  /** After a snapshot or resume: a stale table is said at once; a batch first means it is followed. */
  #due = false;
  /** The rows came from a saved file and no resume or snapshot followed yet. */
  #restored = false;
  /** A server refused the table after it was served, and no resume or snapshot followed yet. */
  #refused = false;
  #changed;

  /** @param changed called with the new reason (or null) each time it changes */
  constructor(changed) {
    this.#changed = changed;
  }

  /** The server said whether the table is stale (`table_status`), or the mirror itself did. */
  set(stale, reason) {
    this.#due = false;
    const next = stale ? (reason ?? 'stale') : null;
    if (next === this.reason) return;
    this.reason = next;
    this.#changed(next);
  }

  /** The rows came from a saved file (`why`): stale until caught up. */
  restored(why) {
    this.#restored = true;
    this.set(true, why);
  }

  /** A server refused the table after it was served (`why`, its words): stale until caught up. */
  refused(why) {
    this.#refused = true;
    this.set(true, `${why}; the mirror keeps the rows it held and asks for the table again at each reconnect`);
  }

  /**
   * A snapshot or resume brought the rows up to date: staleness of the client's own ends, and the
   * server's word on the table is due (a batch before it means the table is followed).
   */
  caughtUp() {
    if (this.#restored || this.#refused) {
      this.#restored = false;
      this.#refused = false;
      this.set(false, null);
    }
    this.#due = true;
  }

  /** A batch came: if the server's word was due and none came, the table is followed. */
  batch() {
    if (this.#due) this.set(false, null);
  }
}

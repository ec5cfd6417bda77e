// How long a mirror's last transaction took from its write in the database to the mirror, shown
// for a second and then 0, so that an idle table shows no lag instead of its last one: the
// JavaScript side of the Java client's gauge tablecast.client.mirror.lag. Internal module, used by
// table-mirror.js.

/** How long a transaction's lag is shown; then 0 until the next (the Java client's too). */
export const LAG_HOLD_MS = 1000;

export class MirrorLag {
  #lastMs = 0;
  #appliedAt = -Infinity;
  #now;

  /** @param {() => number} now the wall clock in epoch ms (compared with the database's). */
  constructor(now = Date.now) {
    this.#now = now;
  }

  /**
   * A transaction written at `captureMillis` (the database's clock, epoch ms; 0 or absent: unknown)
   * was applied now.
   */
  applied(captureMillis) {
    if (!(captureMillis > 0)) return;
    const now = this.#now();
    this.#lastMs = Math.max(0, now - captureMillis);
    this.#appliedAt = now;
  }

  /** The last transaction's lag in ms if it was applied within the last second, else 0. */
  get millis() {
    return this.#now() - this.#appliedAt < LAG_HOLD_MS ? this.#lastMs : 0;
  }
}

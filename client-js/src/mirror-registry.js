// The mirrors of one Tablecast JavaScript client (table → TableMirror) and the position to resume
// them from. Knows nothing of sockets or message order: the ServerSession hands it whole
// snapshots, resumes and batches. The resume rules it keeps are the Java client's (README.md,
// "How it resumes"). Internal module (TablecastClient builds it).

import { CREATED_BY_CLIENT, TableMirror } from './table-mirror.js';

/**
 * Every mirror of a client by table, and `(lastEpoch, lastPosition)`: the newest position of
 * the last server epoch up to which the mirrors that follow the stream are known to be exact.
 */
export class MirrorRegistry {
  #mirrors = new Map(); // table → TableMirror (failed mirrors are replaced on mirror())
  #shapes = new Map(); // table → its mirror's shape ({ filter, params, columns }), when it has one
  /** The epoch of the current (or last) server session. */
  #sessionEpoch = null;
  #lastEpoch = null;
  #lastPosition = -1;

  /** The epoch of the current (or last) server session, or null before the first welcome. */
  get sessionEpoch() {
    return this.#sessionEpoch;
  }

  /** The epoch `lastPosition` belongs to, or null while nothing was applied. */
  get lastEpoch() {
    return this.#lastEpoch;
  }

  /** The position resumable mirrors are at, -1 while nothing was applied. */
  get lastPosition() {
    return this.#lastPosition;
  }

  /**
   * The mirror of `table`: the existing one unless it failed, else a new one. `created` says
   * whether it is new (to be subscribed), `replaced` whether it took a failed mirror's place.
   */
  mirror(table, shape = null) {
    const existing = this.#mirrors.get(table);
    if (existing && !existing.failed) {
      const held = this.#shapes.get(table) ?? null;
      if (JSON.stringify(held) !== JSON.stringify(shape)) {
        throw new TypeError(`the mirror of ${table} holds ${held ? JSON.stringify(held) : 'the whole table'}, `
            + `not ${shape ? JSON.stringify(shape) : 'the whole table'}: a table has one shape per client`);
      }
      return { mirror: existing, created: false, replaced: false };
    }
    const mirror = new TableMirror(CREATED_BY_CLIENT, table);
    this.#mirrors.set(table, mirror);
    if (shape) this.#shapes.set(table, shape);
    else this.#shapes.delete(table);
    return { mirror, created: true, replaced: existing !== undefined };
  }

  /** The shapes of those of `tables` that have one, by table; undefined when none has. */
  shapes(tables) {
    const out = {};
    for (const t of tables) {
      if (this.#shapes.has(t)) out[t] = this.#shapes.get(t);
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }

  /**
   * Installs what a saved file held into the new mirror of its table; the first restored before
   * anything was applied gives the position to resume from.
   */
  restore(mirror, saved) {
    mirror._restore(saved);
    if (this.#lastEpoch === null) {
      this.#lastEpoch = saved.epoch;
      this.#lastPosition = saved.position;
    }
  }

  /** Every mirror, failed or not. */
  all() {
    return [...this.#mirrors.values()];
  }

  /** The shape of `table`'s mirror, or null. */
  shape(table) {
    return this.#shapes.get(table) ?? null;
  }

  /** The mirror of `table` (possibly failed), or undefined. */
  get(table) {
    return this.#mirrors.get(table);
  }

  /** A session with server epoch `epoch` began (welcome). */
  beginSession(epoch) {
    this.#sessionEpoch = epoch;
  }

  /**
   * What to subscribe on a new session: `resume`, the tables known to be exactly at
   * `(lastEpoch, lastPosition)`, to be resumed from there; `fresh`, the others (a snapshot).
   * Failed mirrors are left out. Every listed table leaves the stream until answered.
   */
  subscriptions() {
    const resume = [];
    const fresh = [];
    for (const m of this.#mirrors.values()) {
      if (m.failed) continue;
      (this.#lastEpoch !== null && m._resumableFrom(this.#lastEpoch, this.#lastPosition) ? resume : fresh)
          .push(m.table);
      m._subscribing();
    }
    return { resume, fresh };
  }

  /** These tables are subscribed fresh in the current session: they leave the stream until answered. */
  subscribing(tables) {
    for (const t of tables) this.#mirrors.get(t)?._subscribing();
  }

  /** A table's snapshot ended at `position`: swapped in, and the mirror follows the stream from there. */
  snapshotEnded(table, position) {
    const m = this.#mirrors.get(table);
    if (m && !m.failed && m._endSnapshot(this.#sessionEpoch, position)) this.#recordPosition(m.position);
  }

  /** The server resumed `tables` after `position`; `schemas` are their `{table, columns, primaryKey}`. */
  resumed(tables, schemas, position) {
    const byTable = new Map(schemas.map((s) => [s.table, s]));
    for (const t of tables) {
      const m = this.#mirrors.get(t);
      if (m && !m.failed) m._resumed(this.#sessionEpoch, byTable.get(t), position);
    }
    this.#recordPosition(position);
  }

  /** Applies one whole batch: each mirror its own changes at once, or just the new position. */
  applyBatch(position, changes, captureMillis) {
    const byTable = new Map();
    for (const c of changes) {
      let list = byTable.get(c.table);
      if (!list) byTable.set(c.table, (list = []));
      list.push(c);
    }
    let anyInStream = false;
    for (const m of this.#mirrors.values()) {
      if (m.failed) continue;
      const own = byTable.get(m.table);
      if (own) m._apply(own, position, captureMillis);
      else m._advance(position);
      anyInStream ||= m._inStream;
    }
    // a batch before any table follows this session's stream (e.g. a heartbeat before the first
    // answer) says nothing about them; recording it would let them resume from a later position
    if (anyInStream) this.#recordPosition(position);
  }

  /** The connection dropped: snapshots in flight are discarded, synced rows stay. */
  disconnected() {
    for (const m of this.#mirrors.values()) m._disconnected();
  }

  /** The server refused the subscription to `table`. */
  fail(table, error) {
    const m = this.#mirrors.get(table);
    if (m && !m.failed) m._fail(error);
  }

  /** The client closed: mirrors not ready yet reject with `error`. */
  failIfNotReady(error) {
    for (const m of this.#mirrors.values()) {
      if (!m.failed) m._failIfNotReady(error);
    }
  }

  /**
   * A connection-level refusal (`error`; `why` in the server's words): mirrors not ready yet reject
   * with it, ready ones are stale with `why` until a resume or snapshot brings them up to date.
   */
  connectionRefused(error, why) {
    for (const m of this.#mirrors.values()) {
      if (!m.failed) m._connectionRefused(error, why);
    }
  }

  /** Within one epoch the position only grows; a new epoch starts where its session put us. */
  #recordPosition(position) {
    if (this.#sessionEpoch !== null && this.#sessionEpoch === this.#lastEpoch) {
      this.#lastPosition = Math.max(this.#lastPosition, position);
    } else {
      this.#lastEpoch = this.#sessionEpoch;
      this.#lastPosition = position;
    }
  }
}

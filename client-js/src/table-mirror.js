// A live copy of one table, fed by the client's ServerSession through its MirrorRegistry. Internal
// module: import the package entry point (tablecast.js), which re-exports TableMirror and rowKey.

import { MirrorIndex } from './mirror-index.js';
import { refuseUnknownOptions } from './option-names.js';
import { SnapshotProgress } from './snapshot-progress.js';
import { MirrorLag } from './mirror-lag.js';
import { MirrorStaleness } from './mirror-staleness.js';
import { batchEvents, snapshotEvents } from './row-diff.js';
import { freeze, givenValue, jsonEqual, refuseKeyNoRowCanHave, rowKey } from './json-values.js';
import { rowInOtherForms } from './key-forms.js';

export { rowKey };

/** Passed by MirrorRegistry.mirror() (client.mirror()); a mirror built any other way would never be fed. */
export const CREATED_BY_CLIENT = Symbol('tablecast.TableMirror');

/** A CustomEvent (or, where there is none, an Event with a `detail`). */
export function makeEvent(type, detail) {
  if (typeof CustomEvent === 'function') {
    return new CustomEvent(type, { detail });
  }
  const e = new Event(type);
  Object.defineProperty(e, 'detail', { value: detail });
  return e;
}

/**
 * A live copy of one table. `rows` maps the row key (see {@link rowKey}) to the row object
 * (column name → value). Events: `ready`, `change` (detail `{op, key, oldRow, newRow}`),
 * `error` (detail: a TablecastError), `snapshotprogress` (detail `{rowsReceived, rowsExpected}`)
 * and `snapshotcut` (detail `{rowsReceived, rowsExpected, inARow}`: the connection's end cut a
 * snapshot short; it is asked for again on reconnect).
 */
export class TableMirror extends EventTarget {
  #readyResolve;
  #readyReject;
  #rows = new Map();
  /** Why the mirror may differ from its table; its reason is null while it follows it. */
  #staleness = new MirrorStaleness((reason) => this.dispatchEvent(makeEvent('stale', { stale: reason !== null, reason })));
  /** Secondary indexes by name. */
  #indexes = new Map();
  #progress = new SnapshotProgress();
  #lag = new MirrorLag();
  // stream state, as in the Java client's TableFeed
  /** @internal */ _synced = false;
  /** @internal */ _inStream = false;
  /** @internal */ _pending = null;
  /** @internal */ _pendingPosition = -1;

  /** Not for applications: use `client.mirror(table)`. */
  constructor(token, table) {
    if (token !== CREATED_BY_CLIENT) {
      throw new TypeError('a TableMirror is created by client.mirror(table), not with new');
    }
    super();
    /** The qualified table name, `schema.table`. */
    this.table = table;
    /** Columns `[{name, dbType, kind}]` in table order; empty until the first snapshot. */
    this.columns = [];
    /** Primary-key column names in key order; empty until the first snapshot. */
    this.primaryKey = [];
    /** The stream position the rows are at, -1 before the first snapshot. */
    this.position = -1;
    /** The server epoch `position` belongs to. */
    this.epoch = null;
    /** True once the first snapshot (or resume) was applied. */
    this.isReady = false;
    /** The error that failed this mirror, or null. */
    this.error = null;
    this.ready = new Promise((resolve, reject) => {
      this.#readyResolve = resolve;
      this.#readyReject = reject;
    });
    this.ready.catch(() => {}); // rejections are reported via `error` too; never unhandled
  }

  /** Rows received of the latest snapshot and rows it announced: `{rowsReceived, rowsExpected}`. */
  get snapshotProgress() {
    return this.#progress.view();
  }

  /** Snapshots the end of the connection cut short (each asked for again on reconnect). */
  get snapshotsCutShort() {
    return this.#progress.cutShort;
  }

  /**
   * How long the last transaction applied took from its write in the database (its clock) to this
   * mirror, in ms, for a second after it was applied; then 0 until the next (an idle table has none).
   */
  get lagMillis() {
    return this.#lag.millis;
  }

  /** Rows by key; treat as read-only (rows are frozen). */
  get rows() {
    return this.#rows;
  }

  get size() {
    return this.#rows.size;
  }

  /** The row with these primary-key values (in primary-key order), or undefined. */
  get(...keyParts) {
    const where = `get() of ${this.table}`;
    const given = keyParts.map((v, i) => givenValue(this.#kindOf(this.primaryKey[i]), v, where));
    const row = this.#rows.get(rowKey(given)) ?? rowInOtherForms(this.#rows, this.primaryKey,
      (name) => this.columns.find((c) => c.name === name), keyParts, given);
    if (row === undefined) refuseKeyNoRowCanHave(this.primaryKey, keyParts, (c) => this.#kindOf(c), where);
    return row;
  }

  /** The kind of column `name` (`INTEGER`...), or undefined before the columns are known. */
  #kindOf(name) {
    return this.columns.find((c) => c.name === name)?.kind;
  }

  /** The key string of a row of this table. */
  keyOf(row) {
    return rowKey(this.primaryKey.map((c) => row[c]));
  }

  /**
   * Why the mirror may differ from its table, as the server said (e.g. a changed row it could not
   * read: the mirror keeps that row as it was), or null while it follows its table. A `stale`
   * event fires on each change.
   */
  get stale() {
    return this.#staleness.reason;
  }

  /**
   * The secondary index `name` on `columns` (one name or several), created on first call: a hash
   * index for `get(key)`, or with `{ sorted: true }` also `range(...)` and `ordered()` in key order.
   * Kept inside each applied batch, so it never disagrees with `rows`. Values compare by the
   * column's kind (numbers and decimals by value, times as points in time, text by code unit).
   */
  index(name, columns, options = {}) {
    refuseUnknownOptions(`index(${JSON.stringify(name)}, columns, options)`, options ?? {}, ['sorted']);
    const sorted = options?.sorted ?? false;
    if (typeof sorted !== 'boolean') throw new TypeError(`the sorted option of index ${name} must be true or false, was ${JSON.stringify(sorted)}`);
    const cols = typeof columns === 'string' ? [columns] : columns;
    if (typeof name !== 'string' || name === '' || !Array.isArray(cols) || cols.length === 0
        || cols.some((c) => typeof c !== 'string' || c === '')) {
      throw new TypeError('index(name, columns, {sorted}) needs a name and one or more column names');
    }
    const existing = this.#indexes.get(name);
    if (existing) {
      if (existing.sorted !== sorted || existing.columns.join('\u0000') !== cols.join('\u0000')) {
        throw new TypeError(`index ${name} of ${this.table} exists on ${existing.columns.join(', ')}`
            + `${existing.sorted ? ' (sorted)' : ''}`);
      }
      return existing;
    }
    const index = new MirrorIndex(this, name, cols, sorted);
    index._rebuild(this.#rows, this.columns);
    this.#indexes.set(name, index);
    return index;
  }

  #rebuildIndexes() {
    for (const index of this.#indexes.values()) index._rebuild(this.#rows, this.columns);
  }

  /**
   * Whether the mirror failed (e.g. UNKNOWN_TABLE before it was ever served); a failed mirror is
   * never resubscribed. One refused after it was served is stale instead, and asked for again.
   */
  get failed() {
    return this.error !== null;
  }

  // ---------------------------------------------------------------- internal (client only)

  /** @internal */
  _resumableFrom(lastEpoch, lastPosition) {
    return this._synced && this._pending === null && this.epoch !== null
        && this.epoch === lastEpoch && (this._inStream || this.position === lastPosition);
  }

  /** @internal A subscribe for this table was sent: it leaves the stream until answered. */
  _subscribing() {
    this._inStream = false;
  }

  /** @internal */
  _beginSnapshot(m) {
    this.columns = m.columns ?? [];
    this.primaryKey = m.primaryKey ?? [];
    this._pending = new Map();
    this._pendingPosition = m.position;
    this._synced = false;
    this._inStream = false;
    this.#progress.begin(m.rowCount);
    this.dispatchEvent(makeEvent('snapshotprogress', this.#progress.view()));
  }

  /** @internal */
  _snapshotRows(rows) {
    if (this._pending === null) return;
    for (const row of rows ?? []) {
      this._pending.set(this.keyOf(row), freeze(row));
    }
    this.#progress.add(rows?.length ?? 0);
    this.dispatchEvent(makeEvent('snapshotprogress', this.#progress.view()));
  }

  /** @internal Swaps the snapshot in; after the first one, emits only real differences. */
  _endSnapshot(epoch, position) {
    if (this._pending === null) return false;
    this.#progress.settled();
    this.#staleness.caughtUp();
    const fresh = this._pending;
    this._pending = null;
    position = Math.max(position, this._pendingPosition);
    const events = this.isReady ? snapshotEvents(this.#rows, fresh) : [];
    this.#rows = fresh;
    this.#rebuildIndexes();
    this._synced = true;
    this._inStream = true;
    this.epoch = epoch;
    this.position = position;
    this.#emit(events);
    this.#becomeReady();
    return true;
  }

  /**
   * @internal Rows read from this mirror's saved file (warm restart): ready at once, stale until
   * a resume or snapshot brings them up to date.
   */
  _restore(saved) {
    this.columns = saved.columns;
    this.primaryKey = saved.primaryKey;
    const rows = new Map();
    for (const row of saved.rows) rows.set(this.keyOf(row), freeze(row));
    this.#rows = rows;
    this.#rebuildIndexes();
    this._synced = true;
    this._inStream = false;
    this.epoch = saved.epoch;
    this.position = saved.position;
    this.#staleness.restored(`restored from its saved file (position ${saved.position}, saved `
        + `${new Date(saved.savedAt).toISOString()}); not yet brought up to date by a server`);
    this.#becomeReady();
  }

  /** @internal The server resumed the stream after `position`. */
  _resumed(epoch, schema, position) {
    this.#staleness.caughtUp();
    if (schema) {
      this.columns = schema.columns ?? this.columns;
      this.primaryKey = schema.primaryKey ?? this.primaryKey;
    }
    this._pending = null;
    this.#progress.settled();
    this._synced = true;
    this._inStream = true;
    this.epoch = epoch;
    this.position = position; // the server accepted our position: it is the truth
    this.#becomeReady();
  }

  /** @internal The table's columns changed while serving (`schema_changed`): the next batches use them. */
  _schemaChanged(m) {
    this.columns = m.columns;
    const keyChanged = this.primaryKey.length > 0 && !jsonEqual(this.primaryKey, m.primaryKey);
    this.primaryKey = m.primaryKey;
    if (keyChanged) this.#rekey();
    else this.#rebuildIndexes(); // the columns' kinds may have changed
    this.dispatchEvent(makeEvent('schema', { version: m.version, columns: m.columns, primaryKey: m.primaryKey }));
  }

  /**
   * The primary key changed: every row is keyed anew by it (rows and a snapshot in flight). A row
   * lacking a new key column leaves, with a DELETE change event (the server sends it again).
   */
  #rekey() {
    const rekey = (rows, gone) => {
      const out = new Map();
      for (const [key, row] of rows) {
        if (this.primaryKey.every((c) => c in row)) out.set(this.keyOf(row), row);
        else if (gone) gone.push({ op: 'DELETE', key, oldRow: row, newRow: undefined });
      }
      return out;
    };
    if (this._pending !== null) this._pending = rekey(this._pending, null);
    const gone = [];
    this.#rows = rekey(this.#rows, gone);
    this.#rebuildIndexes();
    this.#emit(gone);
  }

  /** @internal The server said whether the table is stale (`table_status`). */
  _status(stale, reason) {
    this.#staleness.set(stale, reason);
  }

  /** @internal A batch without changes for this table. */
  _advance(position) {
    this.#staleness.batch();
    if (this._inStream && position > this.position) this.position = position;
  }

  /** @internal This table's part of one batch (written at `captureMillis`): applied entirely, then events fire. */
  _apply(changes, position, captureMillis) {
    this.#staleness.batch();
    if (this._pending !== null) {
      if (position > this._pendingPosition) {
        for (const c of changes) this.#applyChange(this._pending, c, null);
        this._pendingPosition = position; // the pending rows are now at this position
      }
      return;
    }
    if (!this._inStream || position <= this.position) return;
    const before = new Map(); // key → row before this batch (first touch wins)
    for (const c of changes) this.#applyChange(this.#rows, c, before);
    this.position = position;
    this.#lag.applied(captureMillis);
    const events = batchEvents(before, this.#rows);
    for (const index of this.#indexes.values()) {
      for (const e of events) index._changed(e.key, e.oldRow, e.newRow);
    }
    this.#emit(events);
  }

  #applyChange(rows, c, before) {
    const key = rowKey(c.key ?? []);
    const touch = (k) => {
      if (before !== null && !before.has(k)) before.set(k, rows.get(k));
    };
    if (c.op === 'UPDATE' && c.before && this.primaryKey.length > 0) {
      const oldKey = this.keyOf(c.before);
      if (oldKey !== key) {
        touch(oldKey);
        rows.delete(oldKey);
      }
    }
    touch(key);
    if (c.op === 'DELETE' || !c.after) {
      rows.delete(key);
    } else {
      rows.set(key, freeze(c.after));
    }
  }

  /** @internal The connection dropped: a snapshot in flight is discarded (and told), synced data stays. */
  _disconnected() {
    this._pending = null;
    const cut = this.#progress.cut();
    if (cut) this.dispatchEvent(makeEvent('snapshotcut', cut));
  }

  /**
   * @internal The server refused this table's subscription. A mirror that was served (a server
   * restarted without the table, or with a policy that denies it) keeps its rows and is stale
   * until a server serves it again: it is asked for at each reconnect. Any other fails.
   */
  _fail(error) {
    this._pending = null;
    this.#progress.dropped();
    this._synced = false;
    this._inStream = false;
    if (this.isReady) {
      this.#staleness.refused(error.message);
      this.dispatchEvent(makeEvent('error', error));
      return;
    }
    this.error = error;
    this.#readyReject(error);
    this.dispatchEvent(makeEvent('error', error));
  }

  /** @internal The client closed while not ready yet. */
  _failIfNotReady(error) {
    if (!this.isReady) {
      this.#readyReject(error);
      this.dispatchEvent(makeEvent('error', error));
    }
  }

  /**
   * @internal A server refused the connection (`why`, its words). Not ready yet: `ready` rejects
   * with `error`. Ready: the rows are kept and the mirror is stale until a resume or snapshot, what
   * it held kept for that resume (before, it looked current for ever while the client retried,
   * say with an expired token).
   */
  _connectionRefused(error, why) {
    if (this.isReady) {
      this.#staleness.refused(why);
    } else {
      this._failIfNotReady(error);
    }
  }

  #becomeReady() {
    if (!this.isReady) {
      this.isReady = true;
      this.#readyResolve(this);
      this.dispatchEvent(makeEvent('ready', this));
    }
  }

  /** One `change` per row, then one `batch` with them all (none when nothing changed). */
  #emit(events) {
    if (events.length === 0) return;
    for (const detail of events) this.dispatchEvent(makeEvent('change', detail));
    this.dispatchEvent(makeEvent('batch', { changes: Object.freeze(events) }));
  }
}

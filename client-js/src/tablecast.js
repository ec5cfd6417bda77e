// Tablecast JavaScript client: live in-memory mirrors of database tables over WebSocket.
// No dependencies; runs in browsers and in Node (pass a WebSocket constructor, e.g. from `ws`).
// Protocol: docs/PROTOCOL.md (JSON form of the messages). Row values: docs/TYPES.md.
//
// This is the package's entry point. The work is split by role, as in the Java client:
//   reconnector.js     Reconnector: the socket, servers in turn, backoff, liveness
//   server-session.js  ServerSession: hello/welcome, subscribe, snapshots, resume, batches, errors
//   mirror-registry.js MirrorRegistry: table → mirror, and the position to resume from
//   table-mirror.js    TableMirror: one table's rows and events
// README.md ("How it resumes") describes the resume algorithm the two clients share.

import { TableMirror, makeEvent, rowKey } from './table-mirror.js';
import { TablecastError } from './tablecast-error.js';
import { Reconnector } from './reconnector.js';
import { ServerSession } from './server-session.js';
import { MirrorRegistry } from './mirror-registry.js';
import { decode, encode, fileName, fileStore } from './mirror-files.js';
import { checkedBackoff, checkedOptions } from './client-options.js';
import { refuseUnknownOptions } from './option-names.js';

export { TableMirror, TablecastError, rowKey, fileStore };

const DEFAULT_BACKOFF = { minMs: 500, maxMs: 30_000 };
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
const DEFAULT_SYNC_TIMEOUT_MS = 10_000;
const DEFAULT_SAVE_EVERY_MS = 5 * 60_000;

/**
 * Connects to a Tablecast server over WebSocket and keeps mirrors of tables up to date,
 * reconnecting (and resuming where possible) after failures. Events: `statechange`
 * (detail `{state}`), `error` (detail: a TablecastError for connection-level errors).
 */
export class TablecastClient extends EventTarget {
  #state = 'idle';
  #registry = new MirrorRegistry();
  #reconnector;
  #session;
  /** Where mirrors are saved for a warm restart (`{load, save}`), or null. */
  #store = null;
  #saveTimer = null;

  /**
   * @param {object} options `url` (ws://host:port/ws), `clientName`, `token`, `user`,
   *   `password`, `WebSocket` (constructor; default globalThis.WebSocket), `backoff`
   *   `{minMs, maxMs}`, `handshakeTimeoutMs`, `warmRestart` `{store, saveEveryMs}` (mirrors
   *   saved through `store`, e.g. `fileStore(dir, fs)`, on close and every `saveEveryMs`,
   *   default 5 minutes, and started from what it holds). An unknown option, or one of the
   *   wrong kind, throws a TypeError naming it.
   */
  constructor(options) {
    super();
    checkedOptions(options);
    const WebSocket = options.WebSocket ?? globalThis.WebSocket;
    if (typeof WebSocket !== 'function') {
      throw new TypeError('no WebSocket implementation: pass options.WebSocket (e.g. from "ws")');
    }
    this.#reconnector = new Reconnector({
      urls: [options.url],
      WebSocket,
      backoff: checkedBackoff(options.backoff, DEFAULT_BACKOFF),
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
    }, {
      opened: () => this.#session.opened(),
      received: (msg) => this.#session.received(msg),
      disconnected: () => this.#session.disconnected(),
      stateChanged: (state) => this.#setState(state),
      failed: (error) => this.#reportError(error),
    });
    const { clientName, user, password, token } = options;
    this.#session = new ServerSession(this.#reconnector, this.#registry, { clientName, user, password, token },
        (error) => this.#reportError(error));
    if (options.warmRestart) this.#startSaving(options.warmRestart);
    this.#reconnector.start();
  }

  #startSaving({ store, saveEveryMs = DEFAULT_SAVE_EVERY_MS }) {
    if (!store || typeof store.load !== 'function' || typeof store.save !== 'function') {
      throw new TypeError('warmRestart.store needs load(name) and save(name, text), e.g. fileStore(dir, fs)');
    }
    if (!(saveEveryMs >= 1000)) throw new TypeError(`warmRestart.saveEveryMs must be at least 1000, was ${saveEveryMs}`);
    this.#store = store;
    this.#saveTimer = setInterval(() => this.save(), saveEveryMs);
    this.#saveTimer.unref?.();
  }

  /**
   * Saves every mirror that follows its table now (with `warmRestart`; also done on close and
   * on its schedule). A mirror that cannot be saved keeps its old file; the client's `error`
   * event says why.
   */
  save() {
    if (this.#store === null) return;
    for (const m of this.#registry.all()) {
      if (m.failed || !m.isReady || !m._synced || m._pending !== null || m.epoch === null) continue;
      const shape = this.#registry.shape(m.table);
      try {
        this.#store.save(fileName(m.table, shape), encode(m, shape));
      } catch (e) {
        this.#reportError(new TablecastError(`could not save the mirror of ${m.table}: ${e.message}`, { table: m.table }));
      }
    }
  }

  /** Reads the new mirror of `table` from its saved file, when there is a good one. */
  #restore(mirror, shape) {
    let text;
    try {
      text = this.#store.load(fileName(mirror.table, shape));
    } catch (e) {
      this.#reportError(new TablecastError(`could not read the saved mirror of ${mirror.table}: ${e.message}`, { table: mirror.table }));
      return;
    }
    if (text === null || text === undefined) return;
    try {
      this.#registry.restore(mirror, decode(text, mirror.table, shape));
    } catch (e) {
      this.#reportError(new TablecastError(
          `the saved mirror of ${mirror.table} is ignored: ${e.message}`, { table: mirror.table }));
    }
  }

  /** `idle`, `connecting`, `connected` (welcome received), `disconnected` (waiting to retry) or `closed`. */
  get state() {
    return this.#state;
  }

  /** The epoch of the current (or last) server session, or null. */
  get epoch() {
    return this.#registry.sessionEpoch;
  }

  /**
   * The mirror of a table (`schema.table`); the same object for repeated calls unless it
   * failed, in which case a new mirror (and subscription) replaces it. `shape` (optional):
   * `{ filter, params, columns }`, the rows and columns the mirror holds, applied by the server
   * (see README.md, "Subscription shapes"); a table has one shape per client.
   */
  mirror(table, shape = undefined) {
    if (typeof table !== 'string' || table.trim() === '') {
      throw new TypeError(`table must be a qualified name like schema.table, was ${JSON.stringify(table)}`);
    }
    if (this.#reconnector.closed) throw new TablecastError(`client is closed; cannot mirror ${table}`);
    const checked = checkedShape(table, shape);
    const { mirror, created, replaced } = this.#registry.mirror(table, checked);
    if (created && this.#store !== null) this.#restore(mirror, checked);
    if (created) this.#session.mirrorCreated(table, replaced);
    return mirror;
  }

  /**
   * Checks the connection at once (called on wake-up events): reconnects now if it is dead or
   * waiting for a retry; otherwise sends a `ping` and drops the connection (reconnecting at
   * once) if nothing arrives within `handshakeTimeoutMs`, so a socket that died while the
   * machine slept or the network changed is not trusted for three heartbeats.
   */
  checkLiveness() {
    this.#reconnector.checkLiveness();
  }

  /**
   * Read-your-writes: resolves once every mirror holds every change committed in the database
   * before the call (write through your backend, then `await client.sync()`, then read the
   * mirror). Rejects with a TablecastError when the server cannot answer (it serves from a NATS
   * stream, or is of a release without sync), after `timeoutMs` (default 10 s), or on close.
   */
  sync(options = {}) {
    try {
      refuseUnknownOptions('sync()', options ?? {}, ['timeoutMs']);
    } catch (e) {
      return Promise.reject(e);
    }
    const timeoutMs = options?.timeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS;
    if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
      return Promise.reject(new TypeError(`sync() timeoutMs must be a positive number of milliseconds, was ${JSON.stringify(timeoutMs)}`));
    }
    if (this.#reconnector.closed) return Promise.reject(new TablecastError('client is closed'));
    return this.#session.sync(timeoutMs);
  }

  /** Closes the connection for good; mirrors keep their rows but stop updating. */
  close() {
    if (this.#reconnector.closed) return;
    if (this.#saveTimer !== null) clearInterval(this.#saveTimer);
    this.save(); // what the mirrors hold now, for the next start
    this.#session.closed();
    this.#reconnector.close();
    this.#registry.failIfNotReady(new TablecastError('client closed'));
    this.#setState('closed');
  }

  #setState(state) {
    if (this.#state !== state) {
      this.#state = state;
      this.dispatchEvent(makeEvent('statechange', { state }));
    }
  }

  #reportError(error) {
    this.dispatchEvent(makeEvent('error', error));
  }
}

export default TablecastClient;

/** A mirror's shape as the subscribe carries it, checked; null for the whole table. */
function checkedShape(table, shape) {
  if (shape === undefined || shape === null) return null;
  if (typeof shape !== 'object') throw new TypeError(`the shape of ${table} must be an object like { filter, params, columns }`);
  refuseUnknownOptions(`the shape of ${table}`, shape, ['filter', 'params', 'columns']);
  const { filter, params, columns } = shape;
  if (filter !== undefined && (typeof filter !== 'string' || filter.trim() === '')) throw new TypeError(`the filter of the shape of ${table} must be a non-blank string`);
  if (params !== undefined && (!Array.isArray(params) || params.some((p) => !['string', 'number', 'boolean'].includes(typeof p)))) {
    throw new TypeError(`the params of the shape of ${table} must be strings, numbers or booleans (write IS NULL for NULL)`);
  }
  if (columns !== undefined && (!Array.isArray(columns) || columns.some((c) => typeof c !== 'string' || c.trim() === ''))) {
    throw new TypeError(`the columns of the shape of ${table} must be column names`);
  }
  const out = {};
  if (filter !== undefined) out.filter = filter;
  if (params !== undefined && params.length > 0) out.params = [...params];
  if (columns !== undefined) out.columns = [...columns];
  return Object.keys(out).length === 0 ? null : Object.freeze(out);
}

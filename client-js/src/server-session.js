// The session protocol of the Tablecast JavaScript client (docs/PROTOCOL.md, JSON form): `hello`
// on each new socket; on `welcome`, `subscribe`s that resume or start fresh; mirrors created
// later subscribed in later `subscribe`s; snapshots, `resumed`, `change_part`s kept aside until
// their `change_batch`, `table_status`, `schema_changed`, `ping`, and `error`s. It sends and
// hangs up through its connection (a Reconnector) and applies what arrives to its MirrorRegistry.
// Internal module (TablecastClient builds it); the Java client's counterpart is its session role.

import { TablecastError } from './tablecast-error.js';

/**
 * Version 5 adds subscription shapes (and `fetch`, which this client does not use), 4 adds
 * `sync`/`synced`; the JSON of every other message is as in 2.
 */
const PROTOCOL_VERSION = 5;
/** Said to a server that refused version 5 (a release before shapes). */
const SYNC_VERSION = 4;
/** Said to a server that refused version 4 (a release before `sync`): its JSON is the same. */
const OLDER_VERSION = 2;
/** The first version whose servers apply subscription shapes. */
const SHAPES_VERSION = 5;
/** Errors without a table after which every mirror learns that the server refused us. */
const REFUSALS = new Set(['AUTHENTICATION_FAILED', 'UNSUPPORTED_VERSION', 'ACCESS_DENIED']);

/**
 * One client's conversation with the server, across connections. Per-connection state (what
 * was subscribed, parts of a batch) is void after `disconnected()`.
 */
export class ServerSession {
  #connection;
  #registry;
  #hello;
  /** Sockets opened so far: a token asked for one is sent only if it is still the current one. */
  #openings = 0;
  #reportError;
  #subscribed = new Set();
  #toSubscribe = [];
  #flushQueued = false;
  /** Changes of a batch arriving in `change_part`s, kept aside until its `change_batch`; null when none. */
  #parts = null;
  #partPosition = -1;
  /** The version said in `hello`: PROTOCOL_VERSION, or OLDER_VERSION once a server refused it. */
  #version = PROTOCOL_VERSION;
  /** The version of the current session (its `welcome`'s); 0 while not welcomed. */
  #sessionVersion = 0;
  /** Open `sync` requests by id: `{resolve, reject, timer}`; asked again on each new session. */
  #syncs = new Map();
  #lastSyncId = 0;

  /**
   * @param connection `send(msg)`, `drop(reason)`, `reconnect()`, `welcomed(heartbeatMillis)`
   *   and `connected` (a Reconnector)
   * @param registry the client's MirrorRegistry
   * @param hello `{clientName, user, password, token}` for the `hello` message
   * @param reportError called with a TablecastError for connection-level server errors
   */
  constructor(connection, registry, hello, reportError) {
    this.#connection = connection;
    this.#registry = registry;
    this.#hello = hello;
    this.#reportError = reportError;
  }

  /**
   * A new socket opened: introduce ourselves. A `token` function is asked for the token of this
   * connection (a string, or a promise of one); a token that comes after the socket was replaced is
   * not sent, and one that fails drops the socket (the next attempt asks again after the backoff).
   */
  opened() {
    const { clientName, user, password, token } = this.#hello;
    const opening = ++this.#openings;
    const hello = (t) => this.#connection.send({ type: 'hello', protocolVersion: this.#version, clientName, user, password, token: t });
    if (typeof token !== 'function') {
      hello(token);
      return;
    }
    new Promise((resolve) => resolve(token())).then((t) => {
      if (opening !== this.#openings) return; // that socket was replaced meanwhile
      if (t !== undefined && t !== null && typeof t !== 'string') {
        throw new TypeError(`options.token() must give a string (or a promise of one), gave ${typeof t}`);
      }
      hello(t ?? undefined);
    }).catch((e) => {
      if (opening === this.#openings) this.#connection.drop(`options.token() failed: ${e?.message ?? e}`);
    });
  }

  /**
   * Read-your-writes: resolves once every mirror holds every change committed in the database
   * before the call (the server answers after a read of its outbox that began after the request,
   * behind the changes that read found). Asked again on each new session until answered; rejects
   * with a TablecastError when the server cannot answer, after `timeoutMs`, or when closed.
   */
  sync(timeoutMs) {
    const id = ++this.#lastSyncId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#syncs.delete(id);
        reject(new TablecastError(`sync: no answer within ${timeoutMs} ms (${this.#sessionVersion > 0
          ? 'connected, and the server has not read the database since the call'
          : 'not connected; reconnecting'})`));
      }, timeoutMs);
      this.#syncs.set(id, { resolve, reject, timer });
      if (this.#sessionVersion === 0) return; // sent with the next welcome
      if (this.#flushQueued) this.#flushSubscribes(); // mirrors created before the call go first
      this.#sendSyncs([id]);
    });
  }

  /** The client closed: open `sync` requests fail. */
  closed() {
    this.#failSyncs('client closed');
  }

  #sendSyncs(ids) {
    if (this.#sessionVersion < SYNC_VERSION) {
      this.#failSyncs(`the server speaks protocol version ${this.#sessionVersion}, which has no sync `
        + `(version ${SYNC_VERSION}): upgrade it to use sync()`);
      return;
    }
    for (const id of ids) this.#connection.send({ type: 'sync', id });
  }

  #failSyncs(reason) {
    const open = [...this.#syncs.values()];
    this.#syncs.clear();
    for (const { reject, timer } of open) {
      clearTimeout(timer);
      reject(new TablecastError(reason));
    }
  }

  #onSynced(s) {
    const open = this.#syncs.get(s.id);
    if (!open) return; // given up by its caller
    this.#syncs.delete(s.id);
    clearTimeout(open.timer);
    if (s.failure) open.reject(new TablecastError(`the server cannot answer sync: ${s.failure}`));
    else open.resolve();
  }

  /** The socket is gone: what was subscribed on it and parts of an unfinished batch are void. */
  disconnected() {
    this.#sessionVersion = 0;
    this.#parts = null;
    this.#partPosition = -1;
    this.#subscribed.clear();
    this.#toSubscribe = [];
    this.#registry.disconnected();
  }

  /**
   * A mirror was created (`replaced`: in place of a failed one): subscribed with the next
   * welcome, or, when welcomed already, together with the others created in the same task.
   */
  mirrorCreated(table, replaced) {
    if (replaced) this.#subscribed.delete(table);
    if (!this.#connection.connected) return;
    this.#toSubscribe.push(table);
    if (!this.#flushQueued) {
      this.#flushQueued = true;
      queueMicrotask(() => this.#flushSubscribes());
    }
  }

  /** One message from the server. */
  received(msg) {
    switch (msg.type) {
      case 'change_batch': this.#onBatch(msg); break;
      case 'change_part': this.#onPart(msg); break;
      case 'table_status': this.#registry.get(msg.table)?._status(msg.stale, msg.reason); break;
      case 'schema_changed': this.#registry.get(msg.table)?._schemaChanged(msg); break;
      case 'snapshot_rows': this.#registry.get(msg.table)?._snapshotRows(msg.rows); break;
      case 'snapshot_begin': this.#registry.get(msg.table)?._beginSnapshot(msg); break;
      case 'snapshot_end': this.#registry.snapshotEnded(msg.table, msg.position); break;
      case 'welcome': this.#onWelcome(msg); break;
      case 'resumed': this.#registry.resumed(msg.tables ?? [], msg.schemas ?? [], msg.position); break;
      case 'synced': this.#onSynced(msg); break;
      case 'ping': this.#connection.send({ type: 'pong', nonce: msg.nonce }); break;
      case 'error': this.#onError(msg); break;
      default: break; // `pong` answers the connection's own liveness ping; unknown types are ignored
    }
  }

  #onWelcome(w) {
    this.#registry.beginSession(w.epoch);
    this.#connection.welcomed(Number(w.heartbeatMillis) || 0);
    this.#sessionVersion = Number(w.protocolVersion) || OLDER_VERSION;
    const { resume, fresh } = this.#registry.subscriptions();
    if (resume.length > 0) {
      this.#subscribe(resume, { resumeEpoch: this.#registry.lastEpoch, resumePosition: this.#registry.lastPosition });
    }
    if (fresh.length > 0) this.#subscribe(fresh, { resumePosition: -1 });
    for (const t of [...resume, ...fresh]) this.#subscribed.add(t);
    if (this.#syncs.size > 0) this.#sendSyncs([...this.#syncs.keys()]); // behind the subscribes
  }

  #flushSubscribes() {
    this.#flushQueued = false;
    const tables = this.#toSubscribe.filter((t) => !this.#subscribed.has(t));
    this.#toSubscribe = [];
    if (!this.#connection.connected || tables.length === 0) return;
    const unique = [...new Set(tables)];
    for (const t of unique) this.#subscribed.add(t);
    this.#registry.subscribing(unique);
    this.#subscribe(unique, { resumePosition: -1 });
  }

  /**
   * Sends a subscribe of `tables` with their shapes. A server older than shapes would ignore a
   * shape and send the whole table: a shaped table is not subscribed there, its mirror fails.
   */
  #subscribe(tables, position) {
    let served = tables;
    const shapes = this.#registry.shapes(tables);
    if (shapes && this.#sessionVersion < SHAPES_VERSION) {
      served = tables.filter((t) => !(t in shapes));
      for (const t of Object.keys(shapes)) {
        this.#registry.fail(t, new TablecastError(`the server speaks protocol version ${this.#sessionVersion}, `
            + `which has no subscription shapes (version ${SHAPES_VERSION}): the mirror of ${t} is not `
            + 'subscribed; upgrade the server, or mirror the whole table', { table: t }));
      }
    }
    if (served.length === 0) return;
    const mine = this.#registry.shapes(served);
    this.#connection.send({ type: 'subscribe', tables: served, ...position, ...(mine ? { shapes: mine } : {}) });
  }

  /** A part of a batch too large for one frame: kept aside, applied with the batch's end. */
  #onPart(p) {
    if (this.#parts !== null && p.position !== this.#partPosition) {
      this.#connection.drop(`protocol violation: a part of batch ${p.position} before batch ${this.#partPosition} ended`);
      return;
    }
    if (this.#parts === null) {
      this.#parts = [];
      this.#partPosition = p.position;
    }
    for (const c of p.changes ?? []) this.#parts.push(c);
  }

  #onBatch(b) {
    let all = b.changes ?? [];
    if (this.#parts !== null) {
      if (b.position !== this.#partPosition) {
        this.#connection.drop(
            `protocol violation: batch ${this.#partPosition} came in parts and did not end before batch ${b.position}`);
        return;
      }
      for (const c of all) this.#parts.push(c);
      all = this.#parts;
      this.#parts = null;
      this.#partPosition = -1;
    }
    this.#registry.applyBatch(b.position, all, b.captureMillis);
  }

  #onError(e) {
    const text = `${e.code}: ${e.message}`;
    if (e.code === 'UNSUPPORTED_VERSION' && !e.table && this.#sessionVersion === 0
        && this.#version !== OLDER_VERSION) {
      // a server of an older release: say 4 to it (no shapes), then 2 (no sync either)
      this.#version = this.#version === PROTOCOL_VERSION ? SYNC_VERSION : OLDER_VERSION;
      this.#connection.reconnect();
      return;
    }
    if (e.table) {
      this.#registry.fail(e.table, new TablecastError(`server refused subscription to ${e.table}: ${text}`,
          { code: e.code, table: e.table }));
      return;
    }
    const err = new TablecastError(`server reported ${text}; reconnecting`, { code: e.code });
    this.#reportError(err);
    if (REFUSALS.has(e.code)) this.#registry.connectionRefused(err, `server refused the connection: ${text}`);
    this.#connection.reconnect();
  }
}

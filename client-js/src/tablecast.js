// Tablecast JavaScript client: live in-memory mirrors of database tables over WebSocket.
// No dependencies; runs in browsers and in Node (pass a WebSocket constructor, e.g. from `ws`).
// Protocol: docs/PROTOCOL.md (JSON form of the messages). Row values: docs/TYPES.md.

import { CREATED_BY_CLIENT, TableMirror, makeEvent, rowKey } from './table-mirror.js';

export { TableMirror, rowKey };

const PROTOCOL_VERSION = 2;
const DEFAULT_BACKOFF = { minMs: 500, maxMs: 30_000 };
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
/** Errors without a table after which not-yet-ready mirrors learn that the server refused us. */
const REFUSALS = new Set(['AUTHENTICATION_FAILED', 'UNSUPPORTED_VERSION', 'ACCESS_DENIED']);

/** An error reported by the server (`code` is an ErrorCode name) or by the client itself. */
export class TablecastError extends Error {
  constructor(message, { code = null, table = null } = {}) {
    super(message);
    this.name = 'TablecastError';
    this.code = code;
    this.table = table;
  }
}

/**
 * Connects to a Tablecast server over WebSocket and keeps mirrors of tables up to date,
 * reconnecting (and resuming where possible) after failures. Events: `statechange`
 * (detail `{state}`), `error` (detail: a TablecastError for connection-level errors).
 */
export class TablecastClient extends EventTarget {
  #opts;
  #WebSocket;
  #mirrors = new Map(); // table → TableMirror (failed mirrors are replaced on mirror())
  #ws = null;
  #state = 'idle';
  #closed = false;
  #welcomed = false;
  #sessionEpoch = null;
  #heartbeatMillis = 0;
  #lastEpoch = null;
  #lastPosition = -1;
  /** Changes of a batch arriving in `change_part`s, kept aside until its `change_batch`; null when none. */
  #parts = null;
  #partPosition = -1;
  #subscribed = new Set();
  #toSubscribe = [];
  #flushQueued = false;
  #attempt = 0;
  #reconnectTimer = null;
  #livenessTimer = null;
  #socketOpenedAt = 0;
  #lastFrameAt = 0;
  #probeNonce = 0;
  #probeSentAt = 0; // when the unanswered liveness ping was sent; 0 = none outstanding
  /** [target, event type, listener] registered on the page, removed by close(). */
  #pageListeners = [];

  /**
   * @param {object} options `url` (ws://host:port/ws), `clientName`, `token`, `user`,
   *   `password`, `WebSocket` (constructor; default globalThis.WebSocket), `backoff`
   *   `{minMs, maxMs}`, `handshakeTimeoutMs`.
   */
  constructor(options) {
    super();
    if (!options || typeof options.url !== 'string') {
      throw new TypeError('TablecastClient needs options.url, e.g. ws://localhost:7070/ws');
    }
    this.#opts = {
      ...options,
      backoff: { ...DEFAULT_BACKOFF, ...(options.backoff ?? {}) },
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
    };
    this.#WebSocket = options.WebSocket ?? globalThis.WebSocket;
    if (typeof this.#WebSocket !== 'function') {
      throw new TypeError('no WebSocket implementation: pass options.WebSocket (e.g. from "ws")');
    }
    this.#listenToPage();
    queueMicrotask(() => this.#connect());
  }

  /** `idle`, `connecting`, `connected` (welcome received), `disconnected` (waiting to retry) or `closed`. */
  get state() {
    return this.#state;
  }

  /** The epoch of the current (or last) server session, or null. */
  get epoch() {
    return this.#sessionEpoch;
  }

  /**
   * The mirror of a table (`schema.table`); the same object for repeated calls unless it
   * failed, in which case a new mirror (and subscription) replaces it.
   */
  mirror(table) {
    if (typeof table !== 'string' || table.trim() === '') {
      throw new TypeError(`table must be a qualified name like schema.table, was ${JSON.stringify(table)}`);
    }
    if (this.#closed) throw new TablecastError(`client is closed; cannot mirror ${table}`);
    const existing = this.#mirrors.get(table);
    if (existing && !existing.failed) return existing;
    const m = new TableMirror(CREATED_BY_CLIENT, table);
    this.#mirrors.set(table, m);
    if (existing) this.#subscribed.delete(table);
    if (this.#welcomed) {
      this.#toSubscribe.push(table);
      if (!this.#flushQueued) {
        this.#flushQueued = true;
        queueMicrotask(() => this.#flushSubscribes());
      }
    }
    return m;
  }

  /**
   * Checks the connection at once (called on wake-up events): reconnects now if it is dead or
   * waiting for a retry; otherwise sends a `ping` and drops the connection (reconnecting at
   * once) if nothing arrives within `handshakeTimeoutMs`, so a socket that died while the
   * machine slept or the network changed is not trusted for three heartbeats.
   */
  checkLiveness() {
    if (this.#closed) return;
    if (this.#ws === null) {
      this.#reconnectNow();
      return;
    }
    if (this.#checkDeadlines() || !this.#welcomed || this.#probeSentAt !== 0) return;
    this.#probeSentAt = Date.now();
    this.#send({ type: 'ping', nonce: ++this.#probeNonce });
  }

  /** Drops the connection when a deadline passed; true if it did. Runs every 250 ms. */
  #checkDeadlines() {
    const now = Date.now();
    const timeout = this.#opts.handshakeTimeoutMs;
    if (!this.#welcomed) {
      if (now - this.#socketOpenedAt <= timeout) return false;
      this.#drop(`no welcome within ${timeout} ms`);
      return true;
    }
    if (this.#probeSentAt !== 0 && now - Math.max(this.#probeSentAt, this.#lastFrameAt) > timeout) {
      this.#drop(`no answer to a liveness ping within ${timeout} ms`, true);
      return true;
    }
    if (this.#heartbeatMillis > 0 && now - this.#lastFrameAt > 3 * this.#heartbeatMillis) {
      this.#drop(`no frame for ${now - this.#lastFrameAt} ms (3 heartbeats = ${3 * this.#heartbeatMillis} ms)`);
      return true;
    }
    return false;
  }

  /** Connects now if waiting for a retry (instead of after the backoff). */
  #reconnectNow() {
    if (this.#ws === null && this.#reconnectTimer !== null) {
      clearTimeout(this.#reconnectTimer);
      this.#reconnectTimer = null;
      this.#connect();
    }
  }

  /**
   * Browser realities: a tab coming back (visibilitychange, pageshow, Page Lifecycle `resume`)
   * or the network coming back (`online`) checks liveness at once; `offline` drops the
   * connection, which cannot work without a network (reconnects follow the backoff until
   * `online`). A connection attempt still waiting for `welcome` when the network comes back
   * was made without one: it is replaced at once.
   */
  #listenToPage() {
    const doc = globalThis.document;
    const win = globalThis.window;
    const wake = () => this.checkLiveness();
    const listen = (target, type, fn) => {
      if (typeof target?.addEventListener !== 'function') return;
      target.addEventListener(type, fn);
      this.#pageListeners.push([target, type, fn]);
    };
    listen(doc, 'visibilitychange', () => {
      if (doc.visibilityState !== 'hidden') wake();
    });
    listen(doc, 'resume', wake);
    listen(win, 'pageshow', wake);
    listen(win, 'online', () => {
      if (this.#ws !== null && !this.#welcomed) {
        this.#drop('the network came back while connecting', true);
      } else {
        wake();
      }
    });
    listen(win, 'offline', () => this.#drop('the browser went offline'));
  }

  /** Closes the connection for good; mirrors keep their rows but stop updating. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    clearInterval(this.#livenessTimer);
    this.#reconnectTimer = null;
    for (const [target, type, fn] of this.#pageListeners) target.removeEventListener(type, fn);
    this.#pageListeners = [];
    const ws = this.#ws;
    this.#ws = null;
    if (ws) this.#closeSocket(ws);
    const err = new TablecastError('client closed');
    for (const m of this.#mirrors.values()) {
      if (!m.isReady && !m.failed) m._failIfNotReady(err);
    }
    this.#setState('closed');
  }

  // ------------------------------------------------------------------ connection

  #setState(state) {
    if (this.#state !== state) {
      this.#state = state;
      this.dispatchEvent(makeEvent('statechange', { state }));
    }
  }

  #connect() {
    if (this.#closed || this.#ws !== null) return;
    this.#reconnectTimer = null;
    this.#setState('connecting');
    let ws;
    try {
      ws = new this.#WebSocket(this.#opts.url);
    } catch (e) {
      this.dispatchEvent(makeEvent('error', new TablecastError(`cannot connect to ${this.#opts.url}: ${e.message}`)));
      this.#scheduleReconnect();
      return;
    }
    this.#ws = ws;
    this.#welcomed = false;
    this.#probeSentAt = 0;
    this.#socketOpenedAt = Date.now();
    this.#lastFrameAt = this.#socketOpenedAt;
    ws.onopen = () => {
      if (ws !== this.#ws) return;
      this.#send({
        type: 'hello',
        protocolVersion: PROTOCOL_VERSION,
        clientName: this.#opts.clientName,
        user: this.#opts.user,
        password: this.#opts.password,
        token: this.#opts.token,
      });
    };
    ws.onmessage = (ev) => {
      if (ws !== this.#ws) return;
      this.#lastFrameAt = Date.now();
      let msg;
      try {
        msg = JSON.parse(typeof ev.data === 'string' ? ev.data : new TextDecoder().decode(ev.data));
      } catch (e) {
        this.#drop(`malformed message from server: ${e.message}`);
        return;
      }
      this.#onMessage(msg);
    };
    ws.onclose = () => {
      if (ws === this.#ws) this.#onDisconnected();
    };
    ws.onerror = () => {}; // followed by close
    clearInterval(this.#livenessTimer);
    this.#livenessTimer = setInterval(() => this.#checkDeadlines(), 250);
  }

  #closeSocket(ws) {
    ws.onopen = ws.onmessage = ws.onclose = null;
    ws.onerror = () => {}; // e.g. "closed before the connection was established"
    try {
      if (typeof ws.terminate === 'function') ws.terminate();
      else ws.close();
    } catch {
      // already closed
    }
  }

  /**
   * Abandons the current socket now (without waiting for a close handshake) and reconnects
   * after the backoff, or at once.
   */
  #drop(reason, reconnectAtOnce = false) {
    const ws = this.#ws;
    if (!ws) return;
    this.dispatchEvent(makeEvent('error', new TablecastError(`connection dropped: ${reason}`)));
    this.#closeSocket(ws);
    this.#onDisconnected();
    if (reconnectAtOnce) this.#reconnectNow();
  }

  #onDisconnected() {
    this.#ws = null;
    this.#parts = null;
    this.#partPosition = -1;
    this.#welcomed = false;
    this.#subscribed.clear();
    this.#toSubscribe = [];
    clearInterval(this.#livenessTimer);
    this.#livenessTimer = null;
    for (const m of this.#mirrors.values()) m._disconnected();
    if (!this.#closed) {
      this.#setState('disconnected');
      this.#scheduleReconnect();
    }
  }

  #scheduleReconnect() {
    if (this.#closed || this.#reconnectTimer !== null) return;
    const { minMs, maxMs } = this.#opts.backoff;
    const ceiling = Math.min(maxMs, minMs * 2 ** Math.min(this.#attempt, 30));
    this.#attempt++;
    const delay = Math.random() * ceiling; // full jitter
    this.#reconnectTimer = setTimeout(() => this.#connect(), delay);
  }

  #send(msg) {
    const ws = this.#ws;
    if (!ws) return;
    const clean = {};
    for (const [k, v] of Object.entries(msg)) if (v !== undefined && v !== null) clean[k] = v;
    try {
      ws.send(JSON.stringify(clean));
    } catch (e) {
      this.#drop(`send failed: ${e.message}`);
    }
  }

  // ------------------------------------------------------------------ messages

  #onMessage(msg) {
    switch (msg.type) {
      case 'change_batch': this.#onBatch(msg); break;
      case 'change_part': this.#onPart(msg); break;
      case 'table_status': this.#mirrors.get(msg.table)?._status(msg.stale, msg.reason); break;
      case 'schema_changed': this.#mirrors.get(msg.table)?._schemaChanged(msg); break;
      case 'snapshot_rows': this.#mirrors.get(msg.table)?._snapshotRows(msg.rows); break;
      case 'snapshot_begin': this.#mirrors.get(msg.table)?._beginSnapshot(msg); break;
      case 'snapshot_end': {
        const m = this.#mirrors.get(msg.table);
        if (m && !m.failed && m._endSnapshot(this.#sessionEpoch, msg.position)) {
          this.#recordPosition(m.position);
        }
        break;
      }
      case 'welcome': this.#onWelcome(msg); break;
      case 'resumed': this.#onResumed(msg); break;
      case 'ping': this.#send({ type: 'pong', nonce: msg.nonce }); break;
      case 'pong':
        if (msg.nonce === this.#probeNonce) this.#probeSentAt = 0;
        break;
      case 'error': this.#onError(msg); break;
      default: break; // unknown types are ignored
    }
  }

  #onWelcome(w) {
    this.#welcomed = true;
    this.#sessionEpoch = w.epoch;
    this.#heartbeatMillis = Number(w.heartbeatMillis) || 0;
    this.#attempt = 0;
    this.#setState('connected');
    const resume = [];
    const fresh = [];
    for (const m of this.#mirrors.values()) {
      if (m.failed) continue;
      // resume only tables known to be exactly at (lastEpoch, lastPosition)
      (this.#lastEpoch !== null && m._resumableFrom(this.#lastEpoch, this.#lastPosition) ? resume : fresh)
          .push(m.table);
      m._inStream = false;
    }
    if (resume.length > 0) {
      this.#send({ type: 'subscribe', tables: resume, resumeEpoch: this.#lastEpoch, resumePosition: this.#lastPosition });
    }
    if (fresh.length > 0) {
      this.#send({ type: 'subscribe', tables: fresh, resumePosition: -1 });
    }
    for (const t of [...resume, ...fresh]) this.#subscribed.add(t);
  }

  #flushSubscribes() {
    this.#flushQueued = false;
    const tables = this.#toSubscribe.filter((t) => !this.#subscribed.has(t));
    this.#toSubscribe = [];
    if (!this.#welcomed || tables.length === 0) return;
    const unique = [...new Set(tables)];
    for (const t of unique) {
      this.#subscribed.add(t);
      this.#mirrors.get(t)._inStream = false;
    }
    this.#send({ type: 'subscribe', tables: unique, resumePosition: -1 });
  }

  #onResumed(r) {
    const schemas = new Map((r.schemas ?? []).map((s) => [s.table, s]));
    for (const t of r.tables ?? []) {
      const m = this.#mirrors.get(t);
      if (m && !m.failed) m._resumed(this.#sessionEpoch, schemas.get(t), r.position);
    }
    this.#recordPosition(r.position);
  }

  /** A part of a batch too large for one frame: kept aside, applied with the batch's end. */
  #onPart(p) {
    if (this.#parts !== null && p.position !== this.#partPosition) {
      this.#drop(`protocol violation: a part of batch ${p.position} before batch ${this.#partPosition} ended`);
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
        this.#drop(`protocol violation: batch ${this.#partPosition} came in parts and did not end before batch ${b.position}`);
        return;
      }
      for (const c of all) this.#parts.push(c);
      all = this.#parts;
      this.#parts = null;
      this.#partPosition = -1;
    }
    const byTable = new Map();
    for (const c of all) {
      let list = byTable.get(c.table);
      if (!list) byTable.set(c.table, (list = []));
      list.push(c);
    }
    let anyInStream = false;
    for (const m of this.#mirrors.values()) {
      if (m.failed) continue;
      const changes = byTable.get(m.table);
      if (changes) m._apply(changes, b.position);
      else m._advance(b.position);
      anyInStream ||= m._inStream;
    }
    // a batch before any table follows this session's stream says nothing about them
    if (anyInStream) this.#recordPosition(b.position);
  }

  #recordPosition(position) {
    if (this.#sessionEpoch !== null && this.#sessionEpoch === this.#lastEpoch) {
      this.#lastPosition = Math.max(this.#lastPosition, position);
    } else {
      this.#lastEpoch = this.#sessionEpoch;
      this.#lastPosition = position;
    }
  }

  #onError(e) {
    const text = `${e.code}: ${e.message}`;
    if (e.table) {
      const m = this.#mirrors.get(e.table);
      if (m && !m.failed) {
        m._fail(new TablecastError(`server refused subscription to ${e.table}: ${text}`,
            { code: e.code, table: e.table }));
      }
      return;
    }
    const err = new TablecastError(`server reported ${text}; reconnecting`, { code: e.code });
    this.dispatchEvent(makeEvent('error', err));
    if (REFUSALS.has(e.code)) {
      for (const m of this.#mirrors.values()) if (!m.failed) m._failIfNotReady(err);
    }
    const ws = this.#ws;
    if (ws) {
      this.#closeSocket(ws);
      this.#onDisconnected();
    }
  }
}

export default TablecastClient;

// Reconnect for the Tablecast JavaScript client: one WebSocket at a time, to its servers in turn,
// capped exponential backoff with full jitter between attempts, and liveness (a `welcome` within
// the handshake timeout, a frame at least every three heartbeats or else an answer to a `ping`
// within one more, an answer to a wake-up `ping`).
// It knows the session protocol only as far as liveness needs: `welcomed()` is called on a
// welcome, and it answers its own pings' `pong`s. Internal module (TablecastClient builds it); the
// Java client's counterpart is its reconnect role (servers in turn, Backoff, the idle handler).

import { connectFailure, socketErrorText } from './connect-failure.js';
import { TablecastError } from './tablecast-error.js';
import { parseJson } from './json-values.js';

/** How often the deadlines are checked; they are `Date.now()` deltas, so throttling cannot hide them. */
const DEADLINE_CHECK_MS = 250;

/** Capped exponential backoff with full jitter: a uniform delay in [0, min(maxMs, minMs · 2^n)). */
export class Backoff {
  #minMs;
  #maxMs;
  #random;
  #attempt = 0;

  /** @param random a function returning a number in [0, 1), default Math.random */
  constructor({ minMs, maxMs }, random = Math.random) {
    this.#minMs = minMs;
    this.#maxMs = maxMs;
    this.#random = random;
  }

  /** The upper bound of the delay drawn at attempt `n` (0-based): min(maxMs, minMs · 2^n). */
  capMs(n) {
    return Math.min(this.#maxMs, this.#minMs * 2 ** Math.min(n, 30));
  }

  /** The delay before the next attempt, growing with each call until {@link reset}. */
  nextDelayMs() {
    const cap = this.capMs(this.#attempt);
    this.#attempt = Math.min(this.#attempt + 1, 31);
    return this.#random() * cap;
  }

  reset() {
    this.#attempt = 0;
  }
}

/**
 * Keeps a WebSocket to one of `urls` open (taken in turn, one per attempt) and tells its handlers
 * what happens: `opened()` (say hello), `received(message)` (each parsed message),
 * `disconnected()` (the socket is gone: per-connection state is void), `stateChanged(state)`
 * (`connecting`, `connected` once welcomed, `disconnected` while waiting to retry) and
 * `failed(error)` (a connection-level TablecastError: cannot connect, and why; lost; dropped). After `close()`
 * it never connects again.
 */
export class Reconnector {
  #urls;
  #WebSocket;
  #handshakeTimeoutMs;
  #backoff;
  #handlers;
  #nextUrl = 0;
  #ws = null;
  #closed = false;
  #welcomed = false;
  #heartbeatMillis = 0;
  #reconnectTimer = null;
  #deadlineTimer = null;
  #socketOpenedAt = 0;
  #lastFrameAt = 0;
  #probeNonce = 0;
  #probeSentAt = 0; // when the unanswered liveness ping was sent; 0 = none outstanding
  #probeWaitMs = 0; // how long that ping may go without any frame
  #probeForSilence = false; // sent after three silent heartbeats (else on a wake-up event)
  /** [target, event type, listener] registered on the page, removed by close(). */
  #pageListeners = [];

  /**
   * @param {object} options `urls` (tried in turn), `WebSocket` (constructor), `backoff`
   *   `{minMs, maxMs}`, `handshakeTimeoutMs`; `random` for the backoff's jitter (tests); `page`
   *   `{document, window}` whose wake-up events are watched (default: the globals, if any).
   * @param {object} handlers `opened`, `received`, `disconnected`, `stateChanged`, `failed`.
   */
  constructor({ urls, WebSocket, backoff, handshakeTimeoutMs, random = Math.random, page }, handlers) {
    if (!Array.isArray(urls) || urls.length === 0) throw new TypeError('Reconnector needs at least one url');
    this.#urls = [...urls];
    this.#WebSocket = WebSocket;
    this.#backoff = new Backoff(backoff, random);
    this.#handshakeTimeoutMs = handshakeTimeoutMs;
    this.#handlers = handlers;
    this.#listenToPage(page ?? { document: globalThis.document, window: globalThis.window });
  }

  /** Connects soon (in a microtask, so that mirrors created right after construction are subscribed at once). */
  start() {
    queueMicrotask(() => this.#connect());
  }

  get closed() {
    return this.#closed;
  }

  /** Whether the current socket's `welcome` arrived (and the socket is still the current one). */
  get connected() {
    return this.#ws !== null && this.#welcomed;
  }

  /** The server welcomed us: heartbeats every `heartbeatMillis` (0: none) are due from now on. */
  welcomed(heartbeatMillis) {
    this.#welcomed = true;
    this.#heartbeatMillis = heartbeatMillis;
    this.#backoff.reset();
    this.#handlers.stateChanged('connected');
  }

  /** Sends a message (null and undefined fields left out); a failed send drops the connection. */
  send(msg) {
    const ws = this.#ws;
    if (!ws) return;
    const clean = {};
    for (const [k, v] of Object.entries(msg)) if (v !== undefined && v !== null) clean[k] = v;
    try {
      ws.send(JSON.stringify(clean));
    } catch (e) {
      this.drop(`send failed: ${e.message}`);
    }
  }

  /**
   * Abandons the current socket now (without waiting for a close handshake), reports why, and
   * reconnects after the backoff, or at once.
   */
  drop(reason, reconnectAtOnce = false) {
    if (!this.#ws) return;
    this.#handlers.failed(new TablecastError(`connection dropped: ${reason}`));
    this.reconnect();
    if (reconnectAtOnce) this.#reconnectNow();
  }

  /** Abandons the current socket without a report (the caller said why) and reconnects after the backoff. */
  reconnect() {
    const ws = this.#ws;
    if (!ws) return;
    this.#closeSocket(ws);
    this.#onDisconnected();
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
    this.#probe(this.#handshakeTimeoutMs, false);
  }

  /** Sends a liveness ping; without any frame within `waitMs` the connection is dropped. */
  #probe(waitMs, forSilence) {
    this.#probeSentAt = Date.now();
    this.#probeWaitMs = waitMs;
    this.#probeForSilence = forSilence;
    this.send({ type: 'ping', nonce: ++this.#probeNonce });
  }

  /** Stops for good: the socket is closed, no retry follows, page listeners are removed. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    clearInterval(this.#deadlineTimer);
    this.#reconnectTimer = null;
    for (const [target, type, fn] of this.#pageListeners) target.removeEventListener(type, fn);
    this.#pageListeners = [];
    const ws = this.#ws;
    this.#ws = null;
    if (ws) this.#closeSocket(ws);
  }

  /** Drops the connection when a deadline passed; true if it did. Runs every 250 ms. */
  #checkDeadlines() {
    const now = Date.now();
    const timeout = this.#handshakeTimeoutMs;
    if (!this.#welcomed) {
      if (now - this.#socketOpenedAt <= timeout) return false;
      this.drop(`no welcome within ${timeout} ms`);
      return true;
    }
    if (this.#probeSentAt !== 0 && now - Math.max(this.#probeSentAt, this.#lastFrameAt) > this.#probeWaitMs) {
      if (this.#probeForSilence) {
        this.drop(`no frame for ${now - this.#lastFrameAt} ms (3 heartbeats = ${3 * this.#heartbeatMillis} ms) `
          + `and no answer to a ping within ${this.#probeWaitMs} ms`);
      } else {
        this.drop(`no answer to a liveness ping within ${timeout} ms`, true);
      }
      return true;
    }
    // Three silent heartbeats: ask before giving up. Our own pauses (a throttled or frozen tab,
    // a long task) look exactly like a silent server when this timer runs before the queued
    // frames are handled; the answer, or any frame, within one more heartbeat tells them apart.
    const silence = 3 * this.#heartbeatMillis;
    if (this.#heartbeatMillis > 0 && this.#probeSentAt === 0 && now - this.#lastFrameAt > silence) {
      this.#probe(this.#heartbeatMillis, true);
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
  #listenToPage({ document: doc, window: win }) {
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
        this.drop('the network came back while connecting', true);
      } else {
        wake();
      }
    });
    listen(win, 'offline', () => this.drop('the browser went offline'));
  }

  #connect() {
    if (this.#closed || this.#ws !== null) return;
    this.#reconnectTimer = null;
    this.#handlers.stateChanged('connecting');
    const url = this.#urls[this.#nextUrl];
    this.#nextUrl = (this.#nextUrl + 1) % this.#urls.length;
    let ws;
    try {
      ws = new this.#WebSocket(url);
    } catch (e) {
      this.#handlers.failed(new TablecastError(`cannot connect to ${url}: ${e.message}`));
      this.#scheduleReconnect();
      return;
    }
    this.#ws = ws;
    this.#welcomed = false;
    this.#probeSentAt = 0;
    this.#socketOpenedAt = Date.now();
    this.#lastFrameAt = this.#socketOpenedAt;
    let opened = false;
    let errorText = null; // what the socket's error event said, if anything
    ws.onopen = () => {
      opened = true;
      if (ws === this.#ws) this.#handlers.opened();
    };
    ws.onmessage = (ev) => {
      if (ws !== this.#ws) return;
      this.#lastFrameAt = Date.now();
      let msg;
      try {
        msg = parseJson(typeof ev.data === 'string' ? ev.data : new TextDecoder().decode(ev.data));
      } catch (e) {
        this.drop(`malformed message from server: ${e.message}`);
        return;
      }
      if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.type !== 'string') {
        this.drop('malformed message from server: expected a JSON object with a "type", got '
          + String(JSON.stringify(msg)).slice(0, 80));
        return;
      }
      if (msg.type === 'pong' && msg.nonce === this.#probeNonce) this.#probeSentAt = 0;
      try {
        this.#handlers.received(msg);
      } catch (e) {
        // a message the session cannot apply (malformed fields, or a bug): this connection's stream
        // can no longer be trusted; drop it and resume, rather than throw out of the socket handler
        // (in Node, an exception there ends the process)
        this.drop(`cannot handle a ${msg.type} message from server: ${e.message}`);
      }
    };
    ws.onclose = (ev) => {
      if (ws !== this.#ws) return;
      const why = this.#welcomed
        ? `connection to ${url} lost${errorText === null ? '' : `: ${errorText}`}${closeCode(ev)}`
        : connectFailure(url, opened, errorText, ev);
      this.#handlers.failed(new TablecastError(why));
      this.#onDisconnected();
    };
    ws.onerror = (ev) => {
      errorText = socketErrorText(ev); // the close that follows reports it
    };
    clearInterval(this.#deadlineTimer);
    this.#deadlineTimer = setInterval(() => this.#checkDeadlines(), DEADLINE_CHECK_MS);
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

  #onDisconnected() {
    this.#ws = null;
    this.#welcomed = false;
    clearInterval(this.#deadlineTimer);
    this.#deadlineTimer = null;
    this.#handlers.disconnected();
    if (!this.#closed) {
      this.#handlers.stateChanged('disconnected');
      this.#scheduleReconnect();
    }
  }

  #scheduleReconnect() {
    if (this.#closed || this.#reconnectTimer !== null) return;
    this.#reconnectTimer = setTimeout(() => this.#connect(), this.#backoff.nextDelayMs());
  }
}

/** ` (close code N)` for a close event that has one (1000 and 1001 say nothing more than "lost"). */
function closeCode(ev) {
  return typeof ev?.code === 'number' && ev.code !== 1000 && ev.code !== 1001 ? ` (close code ${ev.code})` : '';
}

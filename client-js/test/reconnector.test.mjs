// The Reconnector alone: backoff, servers in turn, liveness deadlines, on a fake WebSocket and
// Node's mock timers (setTimeout, setInterval and Date move only when a test ticks them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff, Reconnector } from '../src/reconnector.js';

/** A WebSocket the test plays the server of: `open()`, `receive(msg)`, `lose()`. */
class FakeSocket {
  constructor(url) {
    if (url.startsWith('bad:')) throw new SyntaxError(`invalid url ${url}`);
    this.url = url;
    this.sent = [];
    this.closedByClient = false;
    this.onopen = this.onmessage = this.onclose = this.onerror = null;
  }

  send(data) {
    this.sent.push(JSON.parse(data));
  }

  close() {
    this.closedByClient = true;
  }

  open() {
    this.onopen?.({});
  }

  receive(msg) {
    this.onmessage?.({ data: typeof msg === 'string' ? msg : JSON.stringify(msg) });
  }

  /** The connection ends from the server's side (or the network's). */
  lose() {
    this.onclose?.({});
  }
}

/** A started Reconnector on mock timers with a fixed jitter (half the cap); `log` records the handlers' calls. */
async function started(t, options = {}, handlers = {}) {
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 1_000_000 });
  const log = [];
  const sockets = [];
  class Socket extends FakeSocket {
    constructor(url) {
      super(url);
      sockets.push(this);
    }
  }
  const r = new Reconnector({
    urls: ['ws://a/ws'], WebSocket: Socket, backoff: { minMs: 100, maxMs: 1000 },
    handshakeTimeoutMs: 1000, random: () => 0.5, page: {}, ...options,
  }, {
    opened: () => log.push('opened'),
    received: (m) => log.push(`received ${m.type}`),
    disconnected: () => log.push('disconnected'),
    stateChanged: (s) => log.push(`state ${s}`),
    failed: (e) => log.push(`failed ${e.message}`),
    ...handlers,
  });
  t.after(() => r.close());
  r.start();
  await null; // start() connects in a microtask
  return { r, log, sockets, tick: (ms) => t.mock.timers.tick(ms) };
}

test('Backoff: the cap doubles from minMs up to maxMs, delays are drawn below it, reset starts over', () => {
  const b = new Backoff({ minMs: 500, maxMs: 30_000 }, () => 0.5);
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7, 31, 5000].map((n) => b.capMs(n)),
    [500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  assert.deepEqual([1, 2, 3, 4].map(() => b.nextDelayMs()), [250, 500, 1000, 2000]);
  for (let i = 0; i < 100; i++) b.nextDelayMs();
  assert.equal(b.nextDelayMs(), 15_000, 'never above maxMs, however many attempts');
  b.reset();
  assert.equal(b.nextDelayMs(), 250);
  const jitter = new Backoff({ minMs: 500, maxMs: 30_000 }, () => 0);
  assert.equal(jitter.nextDelayMs(), 0, 'full jitter: a retry may come at once');
});

test('servers are taken in turn, one per attempt, each after the backoff; a welcome resets the backoff', async (t) => {
  const { r, log, sockets, tick } = await started(t, { urls: ['ws://a/ws', 'ws://b/ws', 'ws://c/ws'] });
  assert.deepEqual(sockets.map((s) => s.url), ['ws://a/ws']);
  assert.deepEqual(log, ['state connecting']);
  sockets[0].lose();
  assert.deepEqual(log.slice(1), ['failed cannot connect to ws://a/ws (a browser gives no reason here: its console does)',
    'disconnected', 'state disconnected']);
  tick(49);
  assert.equal(sockets.length, 1, 'the first retry waits half of minMs (jitter 0.5)');
  tick(1);
  sockets[1].lose();
  tick(99);
  assert.equal(sockets.length, 2, 'the second retry waits half of 2 · minMs');
  tick(1);
  sockets[2].lose();
  tick(200);
  assert.deepEqual(sockets.map((s) => s.url), ['ws://a/ws', 'ws://b/ws', 'ws://c/ws', 'ws://a/ws']);
  sockets[3].open();
  r.welcomed(0);
  assert.equal(r.connected, true);
  sockets[3].lose();
  assert.equal(r.connected, false);
  tick(50);
  assert.equal(sockets.at(-1).url, 'ws://b/ws', 'after a welcome: the next server, after minMs / 2 again');
  assert.deepEqual(log.filter((e) => e.startsWith('state')).slice(-3),
    ['state connected', 'state disconnected', 'state connecting']);
});

test('a server that cannot be reached is reported and the next one tried after the backoff', async (t) => {
  const { log, sockets, tick } = await started(t, { urls: ['bad:x', 'ws://b/ws'] });
  assert.equal(sockets.length, 0);
  assert.deepEqual(log, ['state connecting', 'failed cannot connect to bad:x: invalid url bad:x']);
  tick(50);
  assert.deepEqual(sockets.map((s) => s.url), ['ws://b/ws']);
});

test('every end before the welcome says why, in the words the socket gave; a welcomed one lost says so', async (t) => {
  const { r, log, sockets, tick } = await started(t);
  sockets[0].onerror({ message: 'connect ECONNREFUSED 10.0.0.1:7070' });
  sockets[0].onclose({ code: 1006, reason: '' });
  assert.deepEqual(log.slice(1, 2), ['failed cannot connect to ws://a/ws: connection refused (connect ECONNREFUSED 10.0.0.1:7070): '
    + 'is the server running and listening on that port?']);
  tick(50);
  sockets[1].open();
  sockets[1].onclose({ code: 1011, reason: 'overloaded' });
  assert.deepEqual(log.slice(-3), ['failed ws://a/ws closed the connection before the welcome (close code 1011: overloaded)',
    'disconnected', 'state disconnected']);
  tick(100);
  sockets[2].open();
  r.welcomed(0);
  sockets[2].onerror({ message: 'read ECONNRESET' });
  sockets[2].onclose({ code: 1006, reason: '' });
  assert.deepEqual(log.slice(-3), ['failed connection to ws://a/ws lost: read ECONNRESET (close code 1006)',
    'disconnected', 'state disconnected']);
  tick(50);
  sockets[3].open();
  r.welcomed(0);
  r.reconnect();
  assert.equal(log.filter((e) => e.startsWith('failed')).length, 3, 'an end the caller asked for is not reported again');
});

test('no welcome within the handshake timeout drops the socket', async (t) => {
  const { r, log, sockets, tick } = await started(t);
  sockets[0].open();
  assert.deepEqual(sockets[0].sent, [], 'the session says hello, not the reconnector');
  tick(1000);
  assert.equal(sockets[0].closedByClient, false, 'exactly the timeout is still in time');
  tick(250);
  assert.equal(sockets[0].closedByClient, true);
  assert.deepEqual(log.slice(1), ['opened', 'failed connection dropped: no welcome within 1000 ms',
    'disconnected', 'state disconnected']);
  assert.equal(r.connected, false);
});

test('after the welcome, three heartbeats without a frame bring a ping; every frame counts; no answer within one more heartbeat drops the socket', async (t) => {
  const { r, log, sockets, tick } = await started(t);
  sockets[0].open();
  r.welcomed(100);
  tick(250);
  sockets[0].receive({ type: 'change_batch', position: 1, changes: [] });
  tick(250);
  assert.equal(r.connected, true, '250 ms since the last frame: less than 3 heartbeats');
  assert.deepEqual(sockets[0].sent, [], 'no ping yet');
  tick(250);
  assert.deepEqual(sockets[0].sent, [{ type: 'ping', nonce: 1 }], 'silent for 3 heartbeats: asked');
  assert.equal(r.connected, true, 'not given up before the answer is due');
  sockets[0].receive({ type: 'pong', nonce: 1 });
  tick(250);
  assert.equal(r.connected, true, 'answered: the silence was ours (a paused tab, a long task), not the server\'s');
  tick(250);
  assert.equal(sockets[0].sent.length, 2, 'silent again: asked again');
  tick(250);
  assert.equal(r.connected, false, 'unanswered for a heartbeat');
  assert.match(log.join('\n'), /failed connection dropped: no frame for \d+ ms \(3 heartbeats = 300 ms\) and no answer to a ping within 100 ms/);
  assert.ok(log.includes('received change_batch'));
});

test('checkLiveness pings a welcomed socket: an answer keeps it, silence drops it and reconnects at once', async (t) => {
  const { r, log, sockets, tick } = await started(t, { backoff: { minMs: 60_000, maxMs: 60_000 } });
  sockets[0].open();
  r.welcomed(0);
  r.checkLiveness();
  assert.deepEqual(sockets[0].sent, [{ type: 'ping', nonce: 1 }]);
  r.checkLiveness();
  assert.equal(sockets[0].sent.length, 1, 'one probe at a time');
  sockets[0].receive({ type: 'pong', nonce: 1 });
  assert.equal(log.at(-1), 'received pong', 'the session sees the pong too');
  tick(5000);
  assert.equal(r.connected, true, 'answered: no deadline');
  r.checkLiveness();
  assert.deepEqual(sockets[0].sent.at(-1), { type: 'ping', nonce: 2 });
  tick(1000);
  assert.equal(sockets.length, 1);
  tick(250);
  assert.ok(log.includes('failed connection dropped: no answer to a liveness ping within 1000 ms'), log.join('\n'));
  assert.equal(sockets.length, 2, 'reconnected without waiting for the (one minute) backoff');
});

test('checkLiveness while waiting for a retry connects at once; a closed reconnector never connects again', async (t) => {
  const { r, sockets, tick, log } = await started(t, { backoff: { minMs: 60_000, maxMs: 60_000 } });
  sockets[0].lose();
  r.checkLiveness();
  assert.equal(sockets.length, 2);
  r.close();
  assert.equal(sockets[1].closedByClient, true);
  const before = log.length;
  r.checkLiveness();
  tick(600_000);
  assert.equal(sockets.length, 2);
  assert.equal(log.length, before, 'no handler is called after close()');
  assert.equal(r.closed, true);
});

test('the page going offline drops the socket; online while connecting replaces the attempt', async (t) => {
  const page = { document: Object.assign(new EventTarget(), { visibilityState: 'visible' }), window: new EventTarget() };
  const { log, sockets } = await started(t, { page, backoff: { minMs: 60_000, maxMs: 60_000 } });
  page.window.dispatchEvent(new Event('offline'));
  assert.equal(sockets[0].closedByClient, true);
  assert.ok(log.includes('failed connection dropped: the browser went offline'));
  page.window.dispatchEvent(new Event('online'));
  assert.equal(sockets.length, 2, 'online: reconnected at once');
  page.window.dispatchEvent(new Event('online'));
  assert.equal(sockets[1].closedByClient, true, 'an attempt still waiting for welcome is replaced');
  assert.equal(sockets.length, 3);
});

test('send leaves out null and undefined fields; a frame that is not JSON drops the socket', async (t) => {
  const { log, sockets, r } = await started(t);
  r.send({ type: 'hello', protocolVersion: 2, clientName: undefined, token: null, n: 0 });
  assert.deepEqual(sockets[0].sent, [{ type: 'hello', protocolVersion: 2, n: 0 }]);
  sockets[0].receive('{"type": "welc');
  assert.match(log.join('\n'), /failed connection dropped: malformed message from server: /);
  assert.equal(sockets[0].closedByClient, true);
});

test('a frame that is JSON but not a message (null, an array, no type) drops the socket instead of throwing', async (t) => {
  for (const frame of ['null', '[1]', '42', '{"no": "type"}']) {
    const { log, sockets } = await started(t);
    assert.doesNotThrow(() => sockets[0].receive(frame), frame);
    assert.match(log.join('\n'), /failed connection dropped: malformed message from server: /, frame);
    assert.equal(sockets[0].closedByClient, true, frame);
    assert.equal(log.some((l) => l.startsWith('received')), false, frame);
    t.mock.timers.reset();
  }
});

test('a handler that throws on a message drops the socket with the error instead of breaking the socket handler', async (t) => {
  const { sockets, log } = await started(t, {}, { received: (m) => { throw new TypeError(`cannot apply ${m.type}`); } });
  assert.doesNotThrow(() => sockets[0].receive('{"type": "change_batch"}'));
  assert.match(log.join('\n'), /failed connection dropped: cannot handle a change_batch message from server: cannot apply change_batch/);
  assert.equal(sockets[0].closedByClient, true);
});

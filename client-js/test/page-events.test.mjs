// Browser realities without a browser: the page's `document` and `window` are EventTargets the
// tests dispatch visibilitychange, resume, offline and online on; the server is the fake one.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { TablecastClient } from '../src/tablecast.js';
import { startFakeServer, until, ins } from './fake-server.mjs';

const T = 'public.items';
const NEVER_MS = 60_000; // a backoff or heartbeat that must not be what makes a test pass

/** An EventTarget that counts its listeners, to see that close() removes them. */
class CountingTarget extends EventTarget {
  listeners = 0;

  addEventListener(...args) {
    this.listeners++;
    super.addEventListener(...args);
  }

  removeEventListener(...args) {
    this.listeners--;
    super.removeEventListener(...args);
  }
}

let server;
let client;
let doc;
let win;

beforeEach(async () => {
  server = await startFakeServer();
  doc = Object.assign(new CountingTarget(), { visibilityState: 'visible' });
  win = new CountingTarget();
  globalThis.document = doc;
  globalThis.window = win;
});

afterEach(async () => {
  client?.close();
  client = undefined;
  delete globalThis.document;
  delete globalThis.window;
  await server.close();
});

function newClient(extra = {}) {
  client = new TablecastClient({
    url: server.url, WebSocket, backoff: { minMs: NEVER_MS, maxMs: NEVER_MS }, ...extra,
  });
  return client;
}

/** A client with a ready mirror of T at position 1 in epoch E, on a connection it returns. */
async function synced(extra = {}) {
  newClient(extra);
  const m = client.mirror(T);
  const conn = await server.nextConnection();
  await conn.handshake({ epoch: 'E', heartbeatMillis: NEVER_MS });
  await conn.next('subscribe');
  conn.snapshot(T, ['id', 'name'], ['id'], 1, [{ id: 1, name: 'a' }]);
  await m.ready;
  return { m, conn };
}

test('browser wake-up events (online, visibilitychange) reconnect at once', async () => {
  newClient();
  client.mirror(T);
  let conn = await server.nextConnection();
  await conn.handshake({ heartbeatMillis: NEVER_MS });
  conn.kill();
  await until(() => client.state === 'disconnected');
  win.dispatchEvent(new Event('online'));
  conn = await server.nextConnection(1000);
  await conn.handshake({ heartbeatMillis: NEVER_MS });
  await conn.next('subscribe');
  conn.kill();
  await until(() => client.state === 'disconnected');
  doc.dispatchEvent(new Event('visibilitychange'));
  conn = await server.nextConnection(1000);
  await conn.handshake();
});

test('offline drops the connection at once; online reconnects at once and resumes', async () => {
  const { m, conn } = await synced();
  const errors = [];
  client.addEventListener('error', (e) => errors.push(e.detail.message));
  win.dispatchEvent(new Event('offline'));
  assert.equal(client.state, 'disconnected', 'dropped synchronously, without waiting for a timeout');
  assert.ok(errors.some((e) => /went offline/.test(e)), errors.join());
  await conn.closed;
  assert.equal(m.get(1).name, 'a', 'rows stay readable while offline');

  win.dispatchEvent(new Event('online'));
  const next = await server.nextConnection(1000); // the backoff is a minute
  await next.handshake({ epoch: 'E', heartbeatMillis: NEVER_MS });
  assert.deepEqual(await next.next('subscribe'), { type: 'subscribe', tables: [T], resumeEpoch: 'E', resumePosition: 1 });
  next.send({ type: 'resumed', tables: [T], schemas: [], position: 1 });
  next.batch(2, [ins(T, [2], { id: 2, name: 'b' })]);
  await until(() => m.get(2)?.name === 'b');
});

test('online with a live connection pings it and keeps it when the pong comes', async () => {
  const { conn } = await synced({ handshakeTimeoutMs: 200 });
  win.dispatchEvent(new Event('online'));
  const ping = await conn.next('ping', 1000);
  conn.send({ type: 'pong', nonce: ping.nonce });
  await new Promise((r) => setTimeout(r, 600)); // three probe timeouts: a lost pong would drop it by now
  assert.equal(client.state, 'connected');
  assert.equal(server.connections.length, 1);
});

test('online with a dead connection: the unanswered ping drops it and reconnects at once', async () => {
  const { conn } = await synced({ handshakeTimeoutMs: 300 });
  const errors = [];
  client.addEventListener('error', (e) => errors.push(e.detail.message));
  // the socket looks open but nothing comes back (a laptop woke up on another network)
  win.dispatchEvent(new Event('online'));
  await conn.next('ping', 1000);
  const started = Date.now();
  const next = await server.nextConnection(3000); // heartbeats and backoff are a minute
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 250, `dropped after ${elapsed} ms, before the probe timed out`);
  assert.ok(errors.some((e) => /no answer to a liveness ping within 300 ms/.test(e)), errors.join());
  await next.handshake({ epoch: 'E' });
  assert.deepEqual(await next.next('subscribe'), { type: 'subscribe', tables: [T], resumeEpoch: 'E', resumePosition: 1 });
});

test('a frozen page that resumes checks liveness the same way', async () => {
  const { conn } = await synced({ handshakeTimeoutMs: 300 });
  doc.dispatchEvent(new Event('resume'));
  await conn.next('ping', 1000);
  await server.nextConnection(3000);
});

test('online while a connection attempt waits for welcome replaces the attempt at once', async () => {
  newClient({ handshakeTimeoutMs: NEVER_MS });
  client.mirror(T);
  const stuck = await server.nextConnection();
  await stuck.next('hello'); // never answered: the attempt was made without a network
  win.dispatchEvent(new Event('online'));
  const next = await server.nextConnection(1000);
  await stuck.closed;
  await next.handshake();
  await next.next('subscribe');
  assert.equal(client.state, 'connected');
});

test('close() removes the page listeners', async () => {
  const { conn } = await synced();
  assert.ok(doc.listeners > 0 && win.listeners > 0, `${doc.listeners} / ${win.listeners} listeners`);
  client.close();
  await conn.closed;
  assert.equal(doc.listeners, 0, 'document listeners left after close()');
  assert.equal(win.listeners, 0, 'window listeners left after close()');
});

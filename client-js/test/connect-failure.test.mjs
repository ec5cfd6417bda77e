// Why an attempt to connect failed, as the client's `error` event tells it: the real `ws` library
// against real sockets of each kind a misconfigured client meets (a closed port, a wrong path,
// the port of a service that is not HTTP, TLS to a plaintext server, a server that requires TLS,
// one that is starting, one that closes before its welcome), and the browser's case, where the
// platform gives no reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { TablecastClient } from '../src/tablecast.js';
import { connectFailure, socketErrorText } from '../src/connect-failure.js';

/** Listens on a free port of 127.0.0.1; resolves to the port. */
function listening(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

/** Closes `server` after the test, with the connections a failed client may have left open. */
function closedAfter(t, server) {
  const sockets = new Set();
  server.on('connection', (socket) => sockets.add(socket));
  t.after(() => new Promise((resolve) => {
    server.close(resolve);
    for (const socket of sockets) socket.destroy();
  }));
}

/** An HTTP server answering every request with `status` and `body`. */
async function httpAnswering(t, status, body = '') {
  const server = createHttpServer((req, res) => res.writeHead(status, { 'Content-Type': 'text/plain' }).end(body));
  closedAfter(t, server);
  return listening(server);
}

/** The first `error` event of a client of `url`: its message. */
async function firstError(t, url) {
  const client = new TablecastClient({ url, WebSocket, backoff: { minMs: 60_000, maxMs: 60_000 } });
  t.after(() => client.close());
  client.mirror('public.items').ready.catch(() => {});
  const event = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no error event within 5 s for ${url}`)), 5000);
    client.addEventListener('error', (e) => resolve(e, clearTimeout(timer)), { once: true });
  });
  assert.equal(event.detail.code, null, 'a client-side error has no server code');
  return event.detail.message;
}

test('a port nobody listens on: connection refused, naming the url', async (t) => {
  const probe = createTcpServer();
  const port = await listening(probe);
  await new Promise((resolve) => probe.close(resolve));
  const url = `ws://127.0.0.1:${port}/ws`;
  assert.match(await firstError(t, url), new RegExp(`^cannot connect to ${url}: connection refused \\(connect ECONNREFUSED`));
});

test('a path other than /ws: the server answered 404, and a Tablecast server takes sessions at /ws', async (t) => {
  const port = await httpAnswering(t, 404, 'not found');
  assert.equal(await firstError(t, `ws://127.0.0.1:${port}/socket`), `cannot connect to ws://127.0.0.1:${port}/socket: `
    + 'the server answered HTTP 404 instead of a WebSocket upgrade: a Tablecast server takes WebSocket sessions at /ws, not /socket');
  assert.match(await firstError(t, `ws://127.0.0.1:${port}/ws`), /HTTP 404 .*nothing takes WebSocket sessions there; is it a Tablecast server\?$/);
});

test('the port of a service that does not speak HTTP is said not to be a Tablecast server\'s', async (t) => {
  const server = createTcpServer((socket) => socket.end('INFO {"server_id":"nats"}\r\n'));
  closedAfter(t, server);
  const port = await listening(server);
  assert.match(await firstError(t, `ws://127.0.0.1:${port}/ws`),
    /: it does not answer in HTTP, so it is not a Tablecast server's port \(Parse Error/);
});

test('wss:// to a plaintext server: it did not answer in TLS, and the way out', async (t) => {
  const port = await httpAnswering(t, 404);
  assert.match(await firstError(t, `wss://127.0.0.1:${port}/ws`),
    /^cannot connect to wss:\/\/127\.0\.0\.1:\d+\/ws: the server did not answer in TLS \((?:wrong version number|packet length too long)\): connect with ws:\/\/ or turn TLS on at the server$/);
});

test('ws:// to a server that requires TLS (it answers 400): connect with wss://', async (t) => {
  const port = await httpAnswering(t, 400, 'TLS is required');
  assert.match(await firstError(t, `ws://127.0.0.1:${port}/ws`),
    /HTTP 400 instead of a WebSocket upgrade: a Tablecast server that requires TLS answers a plaintext connection so: connect with wss:\/\/$/);
});

test('503: the server is starting or at its max_connections, and the client retries', async (t) => {
  const port = await httpAnswering(t, 503, 'starting');
  assert.match(await firstError(t, `ws://127.0.0.1:${port}/ws`), /HTTP 503 .*while it starts .*and at its max_connections; the client retries$/);
});

test('a WebSocket server that closes before its welcome is said to have done so, with its close code and reason', async (t) => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/ws' });
  await new Promise((resolve) => wss.on('listening', resolve));
  wss.on('connection', (ws) => ws.close(4000, 'not today'));
  t.after(() => new Promise((resolve) => wss.close(resolve)));
  const url = `ws://127.0.0.1:${wss.address().port}/ws`;
  assert.equal(await firstError(t, url), `${url} closed the connection before the welcome (close code 4000: not today)`);
});

test('a browser gives no reason: the close code is said, and where the reason is', () => {
  assert.equal(socketErrorText({ type: 'error' }), null, 'a browser\'s error event is a plain Event');
  assert.equal(connectFailure('wss://h/ws', false, null, { code: 1006, reason: '' }),
    'cannot connect to wss://h/ws (close code 1006) (a browser gives no reason here: its console does)');
  assert.equal(socketErrorText({ error: new Error('fetch failed', { cause: new Error('connect ECONNREFUSED') }) }),
    'fetch failed', 'an Error event carrying an Error gives its message');
  assert.equal(socketErrorText({ error: { cause: { message: 'connect ECONNREFUSED 1.2.3.4:7070' } } }),
    'connect ECONNREFUSED 1.2.3.4:7070');
});

// The options of `new TablecastClient(...)`: a misspelt or ill-typed option throws at once,
// naming it (and the option it resembles), before any socket is opened; a client built from
// options it accepts runs with exactly those.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TablecastClient } from '../src/tablecast.js';

/** A WebSocket constructor that records the sockets a client opens and never connects them. */
function recordingWebSocket() {
  const opened = [];
  class Recorded {
    constructor(url) {
      opened.push(url);
    }
    send() {}
    close() {}
  }
  return { WebSocket: Recorded, opened };
}

const url = 'ws://127.0.0.1:1/ws';

/** `new TablecastClient(options)` throws `expected`; a client built instead is closed, and fails the test. */
function refused(options, expected) {
  assert.throws(() => {
    const client = new TablecastClient(options);
    client.close();
  }, expected);
}

test('a misspelt option throws naming it, the option it resembles and the options there are, and opens nothing', () => {
  const { WebSocket, opened } = recordingWebSocket();
  refused({ url, WebSocket, pasword: 'secret' },
      { name: 'TypeError', message: /TablecastClient has no option pasword \(did you mean password\?\): it takes url, clientName, token, user, password, WebSocket, backoff, handshakeTimeoutMs, warmRestart/ });
  refused({ url, Websocket: WebSocket }, /no option Websocket \(did you mean WebSocket\?\)/);
  refused({ url, WebSocket, handshakeTimeout: 5000 }, /no option handshakeTimeout \(did you mean handshakeTimeoutMs\?\)/);
  refused({ url, WebSocket, reconnect: true }, /no option reconnect: it takes url/);
  refused({ url, WebSocket, backoff: { min: 100, max: 1000 } },
      /the TablecastClient option backoff has no option min \(did you mean minMs\?\), max \(did you mean maxMs\?\): it takes minMs, maxMs/);
  refused({ url, WebSocket, warmRestart: { store: {}, every: 1000 } },
      /option warmRestart has no option every: it takes store, saveEveryMs/);
  assert.deepEqual(opened, [], 'no socket was opened');
});

test('an option of the wrong kind throws naming it and the value', () => {
  const { WebSocket, opened } = recordingWebSocket();
  refused(undefined, /TablecastClient needs options/);
  refused('ws://h:7070/ws', /TablecastClient needs options/);
  refused({ WebSocket }, /needs options\.url/);
  refused({ url: ' ', WebSocket }, /needs options\.url/);
  refused({ url, WebSocket, token: 42 }, /option token must be a string or a function giving one \(or a promise of one\), was 42/);
  refused({ url, WebSocket, backoff: 500 }, /option backoff must be an object like \{ minMs: 500, maxMs: 30000 \}, was 500/);
  refused({ url, WebSocket, backoff: { minMs: '500' } }, /backoff\.minMs must be a number of milliseconds, 0 or more, was "500"/);
  refused({ url, WebSocket, backoff: { maxMs: -1 } }, /backoff\.maxMs must be a number .* was -1/);
  refused({ url, WebSocket, backoff: { minMs: 60_000 } }, /backoff\.minMs must be at most backoff\.maxMs, was 60000 > 30000/);
  refused({ url, WebSocket, handshakeTimeoutMs: 0 }, /handshakeTimeoutMs must be a positive number of milliseconds, was 0/);
  refused({ url, WebSocket, handshakeTimeoutMs: NaN }, /handshakeTimeoutMs must be a positive number .* was null/);
  assert.deepEqual(opened, [], 'no socket was opened');
});

test('options it accepts: undefined counts as absent, and the client opens its socket', async (t) => {
  const { WebSocket, opened } = recordingWebSocket();
  const client = new TablecastClient({
    url, WebSocket, clientName: 'app', token: undefined, user: 'u', password: 'p',
    backoff: { minMs: 0, maxMs: 0 }, handshakeTimeoutMs: 1000, warmRestart: undefined,
  });
  t.after(() => client.close());
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(opened, [url]);
});

test('sync() options: a misspelt one or a bad timeout rejects naming it', async (t) => {
  const { WebSocket } = recordingWebSocket();
  const client = new TablecastClient({ url, WebSocket });
  t.after(() => client.close());
  await assert.rejects(client.sync({ timeout: 5000 }), /sync\(\) has no option timeout \(did you mean timeoutMs\?\): it takes timeoutMs/);
  await assert.rejects(client.sync({ timeoutMs: -5 }), /sync\(\) timeoutMs must be a positive number of milliseconds, was -5/);
});

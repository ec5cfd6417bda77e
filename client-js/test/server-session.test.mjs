// The ServerSession alone: the protocol's messages against a real MirrorRegistry and a recording
// stand-in for its connection (the Reconnector).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServerSession } from '../src/server-session.js';
import { MirrorRegistry } from '../src/mirror-registry.js';
import { ins, upd } from './fake-server.mjs';

const T = 's.items';
const COLUMNS = [{ name: 'id', dbType: 'int', kind: 'INTEGER' }, { name: 'name', dbType: 'text', kind: 'STRING' }];

/** What the session did to its connection: `sent` messages, `drops` (reasons), `reconnects`, `heartbeat`. */
class RecordingConnection {
  sent = [];
  drops = [];
  reconnects = 0;
  heartbeat = null;
  connected = false;

  send(msg) {
    this.sent.push(msg);
  }

  drop(reason) {
    this.drops.push(reason);
  }

  reconnect() {
    this.reconnects++;
  }

  welcomed(heartbeatMillis) {
    this.connected = true;
    this.heartbeat = heartbeatMillis;
  }

  /** The messages of one type sent since the last call. */
  take(type) {
    const out = this.sent.filter((m) => m.type === type);
    this.sent = this.sent.filter((m) => m.type !== type);
    return out;
  }
}

function newSession(tables = [T]) {
  const connection = new RecordingConnection();
  const registry = new MirrorRegistry();
  const errors = [];
  const session = new ServerSession(connection, registry, { clientName: 'unit', token: 't' }, (e) => errors.push(e));
  for (const t of tables) session.mirrorCreated(t, registry.mirror(t).replaced);
  return { connection, registry, session, errors };
}

function welcome(session, connection, epoch = 'E', heartbeatMillis = 500, protocolVersion = 5) {
  connection.connected = false;
  session.opened();
  session.received({ type: 'welcome', protocolVersion, serverName: 'x', epoch, position: 0, heartbeatMillis });
}

function snapshot(session, table, position, rows) {
  session.received({ type: 'snapshot_begin', table, columns: COLUMNS, primaryKey: ['id'], position, rowCount: rows.length });
  session.received({ type: 'snapshot_rows', table, rows });
  session.received({ type: 'snapshot_end', table, position });
}

test('hello on each socket; a welcome resumes the tables at the last position and subscribes the others fresh', () => {
  const { connection, registry, session } = newSession();
  welcome(session, connection);
  assert.deepEqual(connection.take('hello'), [{ type: 'hello', protocolVersion: 5, clientName: 'unit', user: undefined, password: undefined, token: 't' }]);
  assert.equal(connection.heartbeat, 500);
  assert.deepEqual(connection.take('subscribe'), [{ type: 'subscribe', tables: [T], resumePosition: -1 }]);
  snapshot(session, T, 3, [{ id: 1, name: 'a' }]);
  session.received({ type: 'change_batch', position: 4, changes: [] });

  session.disconnected();
  registry.mirror('s.later');
  session.mirrorCreated('s.later', false); // while disconnected: waits for the welcome
  welcome(session, connection, 'E', 0);
  assert.equal(connection.heartbeat, 0);
  assert.deepEqual(connection.take('subscribe'), [
    { type: 'subscribe', tables: [T], resumeEpoch: 'E', resumePosition: 4 },
    { type: 'subscribe', tables: ['s.later'], resumePosition: -1 },
  ]);
  session.received({ type: 'resumed', tables: [T], schemas: [], position: 4 });
  assert.equal(registry.get(T).position, 4);
});

test('mirrors created while welcomed are subscribed together in one later subscribe', async () => {
  const { connection, registry, session } = newSession();
  welcome(session, connection);
  connection.take('subscribe');
  for (const t of ['s.b', 's.c']) session.mirrorCreated(t, registry.mirror(t).replaced);
  session.mirrorCreated('s.b', false);
  assert.deepEqual(connection.take('subscribe'), [], 'not before the current task ends');
  await null;
  assert.deepEqual(connection.take('subscribe'), [{ type: 'subscribe', tables: ['s.b', 's.c'], resumePosition: -1 }]);

  // a mirror created by a `statechange` listener while the welcome is handled joins its subscribe, once
  session.disconnected();
  connection.welcomed = (heartbeatMillis) => {
    RecordingConnection.prototype.welcomed.call(connection, heartbeatMillis);
    session.mirrorCreated('s.d', registry.mirror('s.d').replaced);
  };
  welcome(session, connection, 'E2');
  await null;
  assert.deepEqual(connection.take('subscribe'), [{ type: 'subscribe', tables: [T, 's.b', 's.c', 's.d'], resumePosition: -1 }]);
});

test('parts are kept aside until their batch ends; a part of another batch is a protocol violation', () => {
  const { connection, registry, session } = newSession();
  welcome(session, connection);
  snapshot(session, T, 3, [{ id: 1, name: 'a' }]);
  const m = registry.get(T);
  session.received({ type: 'change_part', position: 4, changes: [ins(T, [2], { id: 2, name: 'b' })] });
  session.received({ type: 'ping', nonce: 9 });
  assert.deepEqual(connection.take('pong'), [{ type: 'pong', nonce: 9 }]);
  assert.deepEqual([m.size, m.position], [1, 3], 'nothing of the batch is visible before its end');
  session.received({ type: 'change_batch', position: 4, changes: [upd(T, [1], { id: 1, name: 'a' }, { id: 1, name: 'A' })] });
  assert.deepEqual([m.size, m.get(1).name, m.get(2).name, m.position], [2, 'A', 'b', 4]);

  session.received({ type: 'change_part', position: 5, changes: [] });
  session.received({ type: 'change_part', position: 6, changes: [] });
  assert.deepEqual(connection.drops, ['protocol violation: a part of batch 6 before batch 5 ended']);
  session.disconnected(); // the parts of batch 5 are gone with the connection
  welcome(session, connection);
  session.received({ type: 'change_batch', position: 6, changes: [] });
  assert.equal(connection.drops.length, 1);
});

test('an error for a table fails only its mirror; a refusal is reported, fails mirrors not ready and reconnects', async () => {
  const { connection, registry, session, errors } = newSession([T, 's.nope', 's.waiting']);
  welcome(session, connection);
  snapshot(session, T, 3, []);
  session.received({ type: 'error', code: 'UNKNOWN_TABLE', message: 'no such table', table: 's.nope' });
  await assert.rejects(registry.get('s.nope').ready, (e) => e.code === 'UNKNOWN_TABLE' && e.table === 's.nope'
      && e.message === 'server refused subscription to s.nope: UNKNOWN_TABLE: no such table');
  assert.deepEqual([errors.length, connection.reconnects], [0, 0]);

  let settled = false;
  registry.get('s.waiting').ready.then(() => { settled = true; }, () => { settled = true; });
  session.received({ type: 'error', code: 'SHUTTING_DOWN', message: 'bye' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(settled, false, 'a server going away is no refusal: the mirror waits for the next one');
  assert.deepEqual(errors.map((e) => [e.code, e.message]), [['SHUTTING_DOWN', 'server reported SHUTTING_DOWN: bye; reconnecting']]);
  assert.equal(connection.reconnects, 1);

  session.received({ type: 'error', code: 'ACCESS_DENIED', message: 'not yours' });
  assert.equal(errors[1].message, 'server reported ACCESS_DENIED: not yours; reconnecting');
  assert.equal(connection.reconnects, 2);
  await assert.rejects(registry.get('s.waiting').ready, (e) => e === errors[1]);
  assert.equal(registry.get('s.waiting').failed, false, 'a connection error never fails a mirror for good');
  assert.equal(registry.get(T).isReady, true);
});

test('sync: sent behind the subscribes, answered after the batches before it, asked again on the next session', async () => {
  const { connection, registry, session } = newSession();
  const early = session.sync(5000); // before any session: sent with the welcome, behind the subscribe
  welcome(session, connection);
  assert.deepEqual(connection.sent.map((m) => m.type), ['hello', 'subscribe', 'sync']);
  const [{ id: first }] = connection.take('sync');
  snapshot(session, T, 3, [{ id: 1, name: 'a' }]);
  session.received({ type: 'change_batch', position: 4, changes: [ins(T, [2], { id: 2, name: 'b' })] });
  session.received({ type: 'synced', id: first, position: 4 });
  await early;
  assert.equal(registry.get(T).get(2).name, 'b', 'the batch before the answer is applied');

  const dropped = session.sync(5000);
  const [{ id: second }] = connection.take('sync');
  session.disconnected(); // its answer is lost with the connection: asked again
  welcome(session, connection);
  assert.deepEqual(connection.take('sync'), [{ type: 'sync', id: second }]);
  session.received({ type: 'synced', id: second, position: 5 });
  await dropped;

  const refused = session.sync(5000);
  const [{ id: third }] = connection.take('sync');
  session.received({ type: 'synced', id: third, position: -1, failure: 'it serves from a NATS stream' });
  await assert.rejects(refused, (e) => e.message === 'the server cannot answer sync: it serves from a NATS stream');
  await assert.rejects(session.sync(20), (e) => /^sync: no answer within 20 ms \(connected/.test(e.message));
  const open = session.sync(5000);
  session.closed();
  await assert.rejects(open, (e) => e.message === 'client closed');
});

test('a server that refuses versions 5 and 4 is spoken to in version 2; sync then rejects naming its version', async () => {
  const { connection, registry, session, errors } = newSession();
  session.opened();
  assert.equal(connection.take('hello')[0].protocolVersion, 5);
  session.received({ type: 'error', code: 'UNSUPPORTED_VERSION', message: 'this server speaks protocol version 2 to 4' });
  session.opened();
  assert.equal(connection.take('hello')[0].protocolVersion, 4, 'one version down: sync kept');
  session.received({ type: 'error', code: 'UNSUPPORTED_VERSION', message: 'this server speaks protocol version 2 or 3' });
  assert.deepEqual([connection.reconnects, errors.length], [2, 0], 'a quiet fallback, no refusal');
  welcome(session, connection, 'E', 500, 2);
  assert.equal(connection.take('hello')[0].protocolVersion, 2);
  snapshot(session, T, 3, [{ id: 1, name: 'a' }]);
  assert.equal(registry.get(T).isReady, true);
  await assert.rejects(session.sync(5000), (e) => e.message.startsWith('the server speaks protocol version 2, which has no sync'));
});

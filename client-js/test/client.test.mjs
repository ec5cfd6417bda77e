import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TablecastError, TableMirror, rowKey } from '../src/tablecast.js';
import { recordChanges, until, ins, upd, del } from './fake-server.mjs';
import { fakeServerPerTest } from './per-test-server.mjs';

const fake = fakeServerPerTest();
const T = 'public.items';
const COLS = ['id', 'name'];

test('hello, subscribe, snapshot then batches: rows and change events', async () => {
  fake.newClient();
  const items = fake.client.mirror(T);
  const events = recordChanges(items);
  const conn = await fake.server.nextConnection();
  const hello = await conn.handshake({ epoch: 'e1', position: 3 });
  assert.deepEqual(hello, { type: 'hello', protocolVersion: 5, clientName: 'test', token: 'tok' });
  const sub = await conn.next('subscribe');
  assert.deepEqual(sub, { type: 'subscribe', tables: [T], resumePosition: -1 });

  conn.snapshot(T, COLS, ['id'], 3, [{ id: 1, name: 'a' }, { id: 2, name: 'b' }, { id: 3, name: 'c' }]);
  assert.equal(await items.ready, items);
  assert.equal(items.size, 3);
  assert.deepEqual(items.get(2), { id: 2, name: 'b' });
  assert.deepEqual(items.rows.get('[2]'), { id: 2, name: 'b' });
  assert.deepEqual(items.primaryKey, ['id']);
  assert.deepEqual(items.columns.map((c) => c.name), COLS);
  assert.equal(items.position, 3);
  assert.equal(events.length, 0, 'the first snapshot fires ready, not change events');

  conn.batch(4, [ins(T, [4], { id: 4, name: 'd' }), upd(T, [1], { id: 1, name: 'a' }, { id: 1, name: 'A' })]);
  conn.batch(5, [del(T, [2], { id: 2, name: 'b' })]);
  await until(() => items.position === 5);
  assert.deepEqual([...items.rows.keys()].sort(), ['[1]', '[3]', '[4]']);
  assert.deepEqual(items.get(1), { id: 1, name: 'A' });
  assert.deepEqual(events, [
    { op: 'INSERT', key: '[4]', oldRow: undefined, newRow: { id: 4, name: 'd' } },
    { op: 'UPDATE', key: '[1]', oldRow: { id: 1, name: 'a' }, newRow: { id: 1, name: 'A' } },
    { op: 'DELETE', key: '[2]', oldRow: { id: 2, name: 'b' }, newRow: undefined },
  ]);
  assert.ok(Object.isFrozen(items.get(1)));
});

test('composite keys and key-changing updates', async () => {
  fake.newClient();
  const m = fake.client.mirror('s.orders');
  const events = recordChanges(m);
  const conn = await fake.server.nextConnection();
  await conn.handshake();
  await conn.next('subscribe');
  conn.snapshot('s.orders', ['region', 'id', 'qty'], ['region', 'id'], 0, [
    { region: 'eu', id: 1, qty: 5 }, { region: 'us', id: 1, qty: 7 },
  ]);
  await m.ready;
  assert.equal(m.size, 2);
  assert.deepEqual(m.get('eu', 1), { region: 'eu', id: 1, qty: 5 });
  assert.throws(() => m.get('eu', '1'), /key column id is INTEGER, so "1" \(string\) never finds a row/, 'key parts are typed');
  assert.equal(m.keyOf({ qty: 0, id: 1, region: 'us' }), rowKey(['us', 1]));
  assert.ok(m.rows.has('["us",1]'));

  // update that moves ("eu",1) to ("ap",1)
  conn.batch(1, [upd('s.orders', ['ap', 1], { region: 'eu', id: 1, qty: 5 }, { region: 'ap', id: 1, qty: 5 })]);
  await until(() => m.position === 1);
  assert.equal(m.get('eu', 1), undefined);
  assert.deepEqual(m.get('ap', 1), { region: 'ap', id: 1, qty: 5 });
  assert.deepEqual(events.map((e) => [e.op, e.key]), [['DELETE', '["eu",1]'], ['INSERT', '["ap",1]']]);
});

test('a batch is applied whole before its events fire; events are net per row', async () => {
  fake.newClient();
  const m = fake.client.mirror(T);
  const conn = await fake.server.nextConnection();
  await conn.handshake();
  await conn.next('subscribe');
  conn.snapshot(T, COLS, ['id'], 0, [{ id: 1, name: 'a' }]);
  await m.ready;
  const seen = [];
  m.addEventListener('change', (e) => {
    // every listener sees the state after the whole batch
    seen.push({ key: e.detail.key, size: m.size, one: m.get(1)?.name, two: m.get(2)?.name, pos: m.position });
  });
  conn.batch(7, [
    ins(T, [2], { id: 2, name: 'x' }),
    upd(T, [1], { id: 1, name: 'a' }, { id: 1, name: 'b' }),
    upd(T, [2], { id: 2, name: 'x' }, { id: 2, name: 'y' }),
    ins(T, [3], { id: 3, name: 'tmp' }),
    del(T, [3], { id: 3, name: 'tmp' }),
  ]);
  await until(() => m.position === 7);
  assert.deepEqual(seen, [
    { key: '[2]', size: 2, one: 'b', two: 'y', pos: 7 },
    { key: '[1]', size: 2, one: 'b', two: 'y', pos: 7 },
  ]);
});

test('a batch fires one batch event after its change events, with them in order', async () => {
  fake.newClient();
  const m = fake.client.mirror(T);
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E' });
  await conn.next('subscribe');
  conn.snapshot(T, COLS, ['id'], 0, [{ id: 1, name: 'a' }, { id: 4, name: 'd' }]);
  await m.ready;
  const order = [];
  const batches = [];
  const positions = [];
  m.addEventListener('change', (e) => order.push(`change ${e.detail.key}`));
  m.addEventListener('batch', (e) => {
    order.push(`batch of ${e.detail.changes.length}`);
    batches.push(e.detail.changes);
    positions.push(m.position); // visible when told
    assert.throws(() => e.detail.changes.push({}), TypeError);
  });
  conn.batch(7, [
    ins(T, [2], { id: 2, name: 'x' }),
    upd(T, [1], { id: 1, name: 'a' }, { id: 1, name: 'b' }),
    ins(T, [3], { id: 3, name: 'tmp' }),
    del(T, [3], { id: 3, name: 'tmp' }),
  ]);
  conn.batch(8, []); // nothing changed: no event
  conn.batch(9, [del(T, [4], { id: 4, name: 'd' })]);
  await until(() => m.position === 9);
  await until(() => batches.length === 2);
  assert.deepEqual(order, ['change [2]', 'change [1]', 'batch of 2', 'change [4]', 'batch of 1']);
  assert.deepEqual(positions, [7, 9]);
  assert.deepEqual(batches[0].map((c) => [c.op, c.key]), [['INSERT', '[2]'], ['UPDATE', '[1]']]);

  // a re-snapshot after a failed resume: its differences as one batch
  conn.kill();
  const again = await fake.server.nextConnection();
  await again.handshake({ epoch: 'E2', position: 20 });
  await again.next('subscribe');
  again.snapshot(T, COLS, ['id'], 20, [{ id: 1, name: 'b' }, { id: 2, name: 'y' }, { id: 5, name: 'e' }]);
  await until(() => batches.length === 3);
  assert.deepEqual(
    batches[2].map((c) => [c.op, c.key]).sort(),
    [['INSERT', '[5]'], ['UPDATE', '[2]']],
  );
});

test('a batch in parts is applied whole at its end; a connection lost mid-batch resumes before it', async () => {
  fake.newClient();
  const m = fake.client.mirror(T);
  let conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E' });
  await conn.next('subscribe');
  conn.snapshot(T, COLS, ['id'], 3, [{ id: 1, name: 'a' }]);
  await m.ready;
  const events = recordChanges(m);
  conn.send({ type: 'change_part', position: 4, changes: [ins(T, [2], { id: 2, name: 'b' })] });
  conn.send({ type: 'change_part', position: 4, changes: [upd(T, [1], { id: 1, name: 'a' }, { id: 1, name: 'A' })] });
  conn.send({ type: 'ping', nonce: 1 }); // pings may come between parts
  await conn.next('pong');
  assert.equal(m.size, 1, 'parts are kept aside until the batch ends');
  assert.equal(m.get(1).name, 'a');
  assert.equal(m.position, 3);
  conn.kill(); // the batch never ended: its parts are dropped, the mirror resumes from 3

  conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E', position: 4 });
  const sub = await conn.next('subscribe');
  assert.equal(sub.resumePosition, 3);
  conn.send({ type: 'resumed', tables: [T], schemas: [], position: 3 });
  conn.batchInParts(4, [[ins(T, [2], { id: 2, name: 'b' })], [ins(T, [5], { id: 5, name: 'e' })]],
    [upd(T, [1], { id: 1, name: 'a' }, { id: 1, name: 'A' })]);
  await until(() => m.position === 4);
  assert.deepEqual([m.size, m.get(1).name, m.get(2).name, m.get(5).name], [3, 'A', 'b', 'e']);
  assert.equal(events.length, 3);
});

test('a part of another batch before the batch ended is a protocol violation: reconnect', async () => {
  fake.newClient();
  const m = fake.client.mirror(T);
  const errors = [];
  fake.client.addEventListener('error', (e) => errors.push(e.detail.message));
  let conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E' });
  await conn.next('subscribe');
  conn.snapshot(T, COLS, ['id'], 3, [{ id: 1, name: 'a' }]);
  await m.ready;
  conn.send({ type: 'change_part', position: 4, changes: [ins(T, [2], { id: 2, name: 'b' })] });
  conn.batch(5, [ins(T, [3], { id: 3, name: 'c' })]);
  conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E', position: 5 });
  assert.equal((await conn.next('subscribe')).resumePosition, 3);
  assert.match(errors.join('\n'), /protocol violation: batch 4 came in parts and did not end before batch 5/);
  assert.equal(m.size, 1);
});

test('a mirror says when it is stale and when it follows its table again; after a resume the server says', async () => {
  fake.newClient();
  const m = fake.client.mirror(T);
  const heard = [];
  m.addEventListener('stale', (e) => heard.push(e.detail));
  let conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E' });
  await conn.next('subscribe');
  conn.snapshot(T, COLS, ['id'], 3, [{ id: 1, name: 'a' }]);
  await m.ready;
  assert.equal(m.stale, null);
  const first = 'the server has read no changes from the database since 12:00 (Socket error)';
  conn.send({ type: 'table_status', table: T, stale: true, reason: first });
  await until(() => m.stale === first);
  // the same cause in other words (PROTOCOL.md, Stale tables): readers and listeners get them
  const why = 'the server has read no changes from the database since 12:00 (Access denied)';
  conn.send({ type: 'table_status', table: T, stale: true, reason: why });
  await until(() => m.stale === why);
  conn.kill();

  conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E', position: 3 });
  await conn.next('subscribe');
  conn.send({ type: 'resumed', tables: [T], schemas: [], position: 3 });
  conn.batch(4, []); // nothing said before the next batch: the table is followed again
  await until(() => m.position === 4);
  assert.equal(m.stale, null);
  assert.deepEqual(heard, [
    { stale: true, reason: first },
    { stale: true, reason: why },
    { stale: false, reason: null },
  ]);
});

test('schema_changed gives the mirror its new columns before the rows that use them', async () => {
  fake.newClient();
  const m = fake.client.mirror(T);
  const heard = [];
  m.addEventListener('schema', (e) => heard.push(e.detail.version));
  const conn = await fake.server.nextConnection();
  await conn.handshake();
  await conn.next('subscribe');
  conn.snapshot(T, COLS, ['id'], 3, [{ id: 1, name: 'a' }]);
  await m.ready;
  const cols = [{ name: 'id', dbType: 'int4', kind: 'INTEGER' }, { name: 'title', dbType: 'text', kind: 'STRING' }];
  conn.send({ type: 'schema_changed', table: T, version: 2, columns: cols, primaryKey: ['id'] });
  conn.batch(4, [upd(T, [1], { id: 1, name: 'a' }, { id: 1, title: 'a' })]);
  await until(() => m.position === 4);
  assert.deepEqual(m.columns.map((c) => c.name), ['id', 'title']);
  assert.deepEqual(m.get(1), { id: 1, title: 'a' });
  assert.deepEqual(heard, [2]);
});

test('a new primary key in schema_changed re-keys the rows; rows lacking it leave until the server sends them', async () => {
  fake.newClient();
  const m = fake.client.mirror(T);
  const events = recordChanges(m);
  const conn = await fake.server.nextConnection();
  await conn.handshake();
  await conn.next('subscribe');
  conn.snapshot(T, ['id', 'code'], ['id'], 3, [{ id: 1, code: 'x' }, { id: 2, code: 'y' }, { id: 3 }]);
  await m.ready;
  const cols = [{ name: 'id', dbType: 'int4', kind: 'INTEGER' }, { name: 'code', dbType: 'text', kind: 'STRING' }];
  conn.send({ type: 'schema_changed', table: T, version: 2, columns: cols, primaryKey: ['code'] });
  conn.batch(4, [ins(T, ['z'], { id: 3, code: 'z' }), upd(T, ['x'], { id: 1, code: 'x' }, { id: 10, code: 'x' })]);
  await until(() => m.position === 4);
  assert.deepEqual(m.primaryKey, ['code']);
  assert.deepEqual(m.get('x'), { id: 10, code: 'x' });
  assert.deepEqual(m.get('y'), { id: 2, code: 'y' });
  assert.deepEqual(m.get('z'), { id: 3, code: 'z' });
  assert.throws(() => m.get(1), /key column code is STRING/, "the old key's kind no longer fits: refused");
  assert.equal(m.size, 3);
  assert.deepEqual(events.map((e) => [e.op, e.key]),
    [['DELETE', rowKey([3])], ['INSERT', rowKey(['z'])], ['UPDATE', rowKey(['x'])]]);
});

test('UNKNOWN_TABLE fails only that mirror; later mirrors subscribe separately', async () => {
  fake.newClient();
  const good = fake.client.mirror(T);
  const bad = fake.client.mirror('public.nope');
  const errors = [];
  bad.addEventListener('error', (e) => errors.push(e.detail));
  const conn = await fake.server.nextConnection();
  await conn.handshake();
  const sub = await conn.next('subscribe');
  assert.deepEqual(sub.tables, [T, 'public.nope']);
  conn.send({ type: 'error', code: 'UNKNOWN_TABLE', message: 'no such table; cached: public.items', table: 'public.nope' });
  conn.snapshot(T, COLS, ['id'], 0, [{ id: 1, name: 'a' }]);
  await assert.rejects(bad.ready, (e) => e instanceof TablecastError && e.code === 'UNKNOWN_TABLE'
      && e.table === 'public.nope' && /no such table/.test(e.message));
  await good.ready;
  assert.equal(errors.length, 1);
  assert.ok(bad.failed);
  assert.equal(fake.client.state, 'connected');

  const later = fake.client.mirror('public.later');
  const sub2 = await conn.next('subscribe');
  assert.deepEqual(sub2, { type: 'subscribe', tables: ['public.later'], resumePosition: -1 });
  conn.snapshot('public.later', COLS, ['id'], 0, []);
  await later.ready;
  assert.equal(later.size, 0);
});

test('after a dropped connection the client resumes with epoch and position', async () => {
  fake.newClient();
  const a = fake.client.mirror('s.a');
  const b = fake.client.mirror('s.b');
  const events = recordChanges(a);
  let conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E' });
  await conn.next('subscribe');
  conn.snapshot('s.a', COLS, ['id'], 5, [{ id: 1, name: 'a' }]);
  conn.snapshot('s.b', COLS, ['id'], 5, []);
  conn.batch(6, [ins('s.a', [2], { id: 2, name: 'b' })]);
  conn.batch(8, [ins('s.b', [1], { id: 1, name: 'x' })]);
  conn.batch(9, []);
  await until(() => a.position === 9 && b.position === 9);
  conn.kill();

  conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E', position: 11 });
  const sub = await conn.next('subscribe');
  assert.deepEqual(sub, { type: 'subscribe', tables: ['s.a', 's.b'], resumeEpoch: 'E', resumePosition: 9 });
  conn.send({ type: 'resumed', tables: ['s.a', 's.b'], schemas: [], position: 9 });
  conn.batch(10, [upd('s.a', [1], { id: 1, name: 'a' }, { id: 1, name: 'a2' })]);
  await until(() => a.get(1)?.name === 'a2');
  assert.equal(events.length, 2);
  assert.equal(a.size, 2);
  assert.equal(b.size, 1);
});

test('a table whose snapshot was cut off is subscribed fresh, synced tables resume', async () => {
  fake.newClient();
  const a = fake.client.mirror('s.a');
  let conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E' });
  await conn.next('subscribe');
  conn.snapshot('s.a', COLS, ['id'], 5, [{ id: 1, name: 'a' }]);
  await a.ready;
  const b = fake.client.mirror('s.b');
  await conn.next('subscribe');
  conn.send({ type: 'snapshot_begin', table: 's.b', columns: [], primaryKey: ['id'], position: 6, rowCount: 5 });
  conn.send({ type: 'snapshot_rows', table: 's.b', rows: [{ id: 1 }] });
  await new Promise((r) => setTimeout(r, 20));
  conn.kill();
  conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E' });
  const s1 = await conn.next('subscribe');
  const s2 = await conn.next('subscribe');
  assert.deepEqual(s1, { type: 'subscribe', tables: ['s.a'], resumeEpoch: 'E', resumePosition: 5 });
  assert.deepEqual(s2, { type: 'subscribe', tables: ['s.b'], resumePosition: -1 });
  assert.equal(b.isReady, false);
});

test('a mirror refused when it reconnects keeps its rows, is stale, and is asked for again until served', async () => {
  fake.newClient();
  const m = fake.client.mirror(T);
  const stale = [];
  const errors = [];
  m.addEventListener('stale', (e) => stale.push(e.detail));
  m.addEventListener('error', (e) => errors.push(e.detail.code));
  let conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'old' });
  await conn.next('subscribe');
  conn.snapshot(T, COLS, ['id'], 100, [{ id: 1, name: 'a' }]);
  await m.ready;
  conn.kill();

  // a server restarted without the table in cached_tables
  conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'new', position: 0 });
  await conn.next('subscribe');
  conn.send({ type: 'error', code: 'UNKNOWN_TABLE', message: 'table is not cached by this server', table: T });
  await until(() => m.stale !== null);
  assert.equal(m.stale, `server refused subscription to ${T}: UNKNOWN_TABLE: table is not cached by this server; `
    + 'the mirror keeps the rows it held and asks for the table again at each reconnect');
  assert.deepEqual(errors, ['UNKNOWN_TABLE'], 'the refusal is also told as an error');
  assert.equal(m.failed, false, 'not failed: it was served, and may be again');
  assert.equal(fake.client.mirror(T), m, 'the same mirror');
  assert.deepEqual(m.get(1), { id: 1, name: 'a' });
  conn.kill();

  // served again: a snapshot, and the mirror follows its table
  conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'new', position: 0 });
  assert.deepEqual(await conn.next('subscribe'), { type: 'subscribe', tables: [T], resumePosition: -1 });
  conn.snapshot(T, COLS, ['id'], 3, [{ id: 1, name: 'b' }]);
  await until(() => m.stale === null);
  assert.deepEqual(m.get(1), { id: 1, name: 'b' });
  assert.deepEqual(stale.map((d) => d.stale), [true, false]);
});

test('a mirror whose client is refused when it reconnects is stale until a server resumes it', async () => {
  // a token that expired before a reconnect, a password rotated: the client retries with what it
  // has, and the mirror says its rows may be old instead of looking current for ever
  fake.newClient();
  const m = fake.client.mirror(T);
  const stale = [];
  m.addEventListener('stale', (e) => stale.push(e.detail));
  let conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E' });
  await conn.next('subscribe');
  conn.snapshot(T, COLS, ['id'], 100, [{ id: 1, name: 'a' }]);
  await m.ready;
  conn.kill();

  conn = await fake.server.nextConnection();
  await conn.next('hello');
  conn.send({ type: 'error', code: 'AUTHENTICATION_FAILED', message: 'token expired' });
  await until(() => m.stale !== null);
  assert.equal(m.stale, 'server refused the connection: AUTHENTICATION_FAILED: token expired; '
    + 'the mirror keeps the rows it held and asks for the table again at each reconnect');
  assert.equal(m.isReady, true);
  assert.equal(m.failed, false);
  assert.deepEqual(m.get(1), { id: 1, name: 'a' });
  conn.kill();

  conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E', position: 100 });
  assert.deepEqual(await conn.next('subscribe'),
    { type: 'subscribe', tables: [T], resumeEpoch: 'E', resumePosition: 100 }, 'resumed where it was');
  conn.send({ type: 'resumed', tables: [T], schemas: [], position: 100 });
  await until(() => m.stale === null);
  assert.deepEqual(stale.map((d) => d.stale), [true, false]);
});

test('server restart: new epoch, re-snapshot emits only the differences', async () => {
  fake.newClient();
  const m = fake.client.mirror(T);
  const events = recordChanges(m);
  let conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'old' });
  await conn.next('subscribe');
  conn.snapshot(T, COLS, ['id'], 100, [{ id: 1, name: 'a' }, { id: 2, name: 'b' }, { id: 3, name: 'c' }]);
  await m.ready;
  const unchanged = m.get(1);
  conn.kill();

  conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'new', position: 0 });
  const sub = await conn.next('subscribe');
  assert.deepEqual(sub, { type: 'subscribe', tables: [T], resumeEpoch: 'old', resumePosition: 100 });
  // the server does not know epoch "old": it falls back to a snapshot; a batch arrives meanwhile
  conn.send({ type: 'snapshot_begin', table: T, columns: COLS.map((name) => ({ name, dbType: 'text', kind: 'STRING' })), primaryKey: ['id'], position: 0, rowCount: 3 });
  conn.send({ type: 'snapshot_rows', table: T, rows: [{ id: 1, name: 'a' }, { id: 2, name: 'B' }, { id: 4, name: 'd' }] });
  assert.equal(m.get(2).name, 'b', 'old rows stay visible until snapshot_end');
  conn.send({ type: 'snapshot_end', table: T, position: 0 });
  conn.batch(1, [ins(T, [5], { id: 5, name: 'e' })]);
  await until(() => m.position === 1);
  assert.equal(m.epoch, 'new');
  assert.equal(m.get(1), unchanged, 'unchanged rows keep their identity');
  const sorted = events.map((e) => `${e.op} ${e.key}`).sort();
  assert.deepEqual(sorted, ['DELETE [3]', 'INSERT [4]', 'INSERT [5]', 'UPDATE [2]']);
  assert.deepEqual(events.find((e) => e.key === '[2]'), { op: 'UPDATE', key: '[2]', oldRow: { id: 2, name: 'b' }, newRow: { id: 2, name: 'B' } });

  // and the next drop resumes from the new epoch
  conn.kill();
  conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'new' });
  assert.deepEqual(await conn.next('subscribe'), { type: 'subscribe', tables: [T], resumeEpoch: 'new', resumePosition: 1 });
});

test('batches during a snapshot: only those after its position reach the pending rows', async () => {
  fake.newClient();
  const m = fake.client.mirror(T);
  const conn = await fake.server.nextConnection();
  await conn.handshake();
  await conn.next('subscribe');
  conn.send({ type: 'snapshot_begin', table: T, columns: [], primaryKey: ['id'], position: 10, rowCount: 1 });
  conn.send({ type: 'snapshot_rows', table: T, rows: [{ id: 1, name: 'a' }] });
  conn.batch(10, [ins(T, [9], { id: 9, name: 'old' })]);
  conn.batch(11, [upd(T, [1], { id: 1, name: 'a' }, { id: 1, name: 'a11' })]);
  conn.send({ type: 'snapshot_end', table: T, position: 10 });
  await m.ready;
  conn.batch(11, [ins(T, [7], { id: 7, name: 'dup' })]); // not newer than the position: skipped
  conn.batch(12, []);
  await until(() => m.position === 12);
  assert.deepEqual([...m.rows.values()], [{ id: 1, name: 'a11' }]);
});

test('a TableMirror comes only from fake.client.mirror(): new throws', () => {
  assert.throws(() => new TableMirror(), /client\.mirror\(table\)/);
  assert.throws(() => new TableMirror({}, T), TypeError);
});

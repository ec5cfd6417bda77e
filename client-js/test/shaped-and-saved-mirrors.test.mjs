// Mirrors that hold a chosen part of their table (subscription shapes) and mirrors saved for a
// warm restart, against the fake server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TablecastError } from '../src/tablecast.js';
import { recordChanges, until, upd, del } from './fake-server.mjs';
import { fakeServerPerTest } from './per-test-server.mjs';

const fake = fakeServerPerTest();
const T = 'public.items';
const COLS = ['id', 'name'];

test('a shaped mirror: the subscribe carries its shape, again on resume; one shape per table', async () => {
  fake.newClient();
  const shape = { filter: 'region = ? AND price < ?', params: ['eu', 100], columns: ['price'] };
  const cheap = fake.client.mirror('shop.products', shape);
  assert.equal(fake.client.mirror('shop.products', { ...shape }), cheap, 'the same shape, the same mirror');
  assert.throws(() => fake.client.mirror('shop.products'), /holds .* not the whole table: a table has one shape per client/);
  assert.throws(() => fake.client.mirror('shop.x', { filter: 'id = ?', params: [null] }), /write IS NULL for NULL/);
  assert.throws(() => fake.client.mirror('shop.x', { where: 'id = 1' }), /the shape of shop\.x has no option where: it takes filter, params, columns/);
  assert.throws(() => fake.client.mirror('shop.x', { filter: 'id = 1', colums: ['id'] }), /has no option colums \(did you mean columns\?\)/);
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'e1', position: 3 });
  const sub = await conn.next('subscribe');
  assert.deepEqual(sub, { type: 'subscribe', tables: ['shop.products'], resumePosition: -1, shapes: { 'shop.products': shape } });
  conn.snapshot('shop.products', ['id', 'price'], ['id'], 3, [{ id: 1, price: '9.50' }]);
  await cheap.ready;
  conn.ws.close();
  const again = await fake.server.nextConnection();
  await again.handshake({ epoch: 'e1', position: 3 });
  const resume = await again.next('subscribe');
  assert.equal(resume.resumePosition, 3);
  assert.deepEqual(resume.shapes, { 'shop.products': shape }, 'the resume keeps the shape');
});

test('a server without shapes is not asked for the whole table: the shaped mirror fails', async () => {
  fake.newClient();
  const shaped = fake.client.mirror('shop.products', { filter: "region = 'eu'" });
  const whole = fake.client.mirror('shop.other');
  const conn = await fake.server.nextConnection();
  await conn.handshake({ protocolVersion: 4 });
  const sub = await conn.next('subscribe');
  assert.deepEqual(sub.tables, ['shop.other']);
  assert.equal(sub.shapes, undefined);
  await assert.rejects(shaped.ready, (e) => e instanceof TablecastError
      && e.message.includes('speaks protocol version 4, which has no subscription shapes'));
  conn.snapshot('shop.other', ['id'], ['id'], 0, [{ id: 1 }]);
  await whole.ready;
});

/** A warm-restart store in memory. */
function memoryStore() {
  const files = new Map();
  return { files, load: (name) => files.get(name) ?? null, save: (name, text) => files.set(name, text) };
}

test('warm restart: saved on close, ready at once from the file, then resumed from its position', async () => {
  const store = memoryStore();
  fake.newClient({ warmRestart: { store } });
  const items = fake.client.mirror(T);
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'e1', position: 3 });
  await conn.next('subscribe');
  conn.snapshot(T, COLS, ['id'], 3, [{ id: 1, name: 'a' }, { id: 2, name: 'b' }]);
  await items.ready;
  conn.batch(4, [upd(T, [1], { id: 1, name: 'a' }, { id: 1, name: 'A' })]);
  await until(() => items.position === 4);
  fake.client.close();
  assert.deepEqual([...store.files.keys()], ['public.items.mirror.json']);

  fake.newClient({ warmRestart: { store } }); // the next process
  const again = fake.client.mirror(T);
  assert.equal(again.isReady, true, 'ready before any server answered');
  assert.deepEqual(again.get(1), { id: 1, name: 'A' });
  assert.match(again.stale, /^restored from its saved file \(position 4, saved /);
  const events = recordChanges(again);
  const conn2 = await fake.server.nextConnection();
  await conn2.handshake({ epoch: 'e1', position: 6 });
  const sub = await conn2.next('subscribe');
  assert.deepEqual(sub, { type: 'subscribe', tables: [T], resumeEpoch: 'e1', resumePosition: 4 });
  conn2.send({ type: 'resumed', tables: [T], schemas: [], position: 4 });
  conn2.batch(5, [del(T, [2], { id: 2, name: 'b' })]);
  await until(() => again.position === 5);
  assert.equal(again.stale, null, 'up to date once resumed');
  assert.equal(again.get(2), undefined);
  assert.deepEqual(events.map((e) => e.op), ['DELETE']);
});

test('warm restart: a corrupt or foreign saved mirror is ignored and told, never loaded', async () => {
  const store = memoryStore();
  const good = '{"crc32":"00000000","body":"{}"}';
  store.files.set('public.items.mirror.json', good);
  fake.newClient({ warmRestart: { store } });
  const errors = [];
  fake.client.addEventListener('error', (e) => errors.push(e.detail.message));
  const items = fake.client.mirror(T);
  assert.equal(items.isReady, false);
  assert.match(errors[0], /the saved mirror of public\.items is ignored: its checksum does not match/);
  fake.client.close();

  // a good file of another table under this table's name
  const other = memoryStore();
  fake.newClient({ warmRestart: { store: other } });
  const m = fake.client.mirror('public.other');
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'e1', position: 1 });
  await conn.next('subscribe');
  conn.snapshot('public.other', COLS, ['id'], 1, [{ id: 1, name: 'x' }]);
  await m.ready;
  fake.client.close();
  other.files.set('public.items.mirror.json', other.files.get('public.other.mirror.json'));
  fake.newClient({ warmRestart: { store: other } });
  const errs = [];
  fake.client.addEventListener('error', (e) => errs.push(e.detail.message));
  assert.equal(fake.client.mirror(T).isReady, false);
  assert.match(errs[0], /ignored: it holds public\.other, not public\.items/);
  assert.throws(() => fake.newClient({ warmRestart: { store: {} } }), /needs load\(name\) and save\(name, text\)/);
});

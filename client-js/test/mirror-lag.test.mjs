// A mirror tells how long its last transaction took from its write in the database to the mirror
// (the batch's captureMillis, the database's clock), for a second, then 0: an idle table shows no
// lag instead of its last figure for ever, as the Java client's gauge tablecast.client.mirror.lag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { TablecastClient } from '../src/tablecast.js';
import { until, ins } from './fake-server.mjs';
import { fakeServerPerTest } from './per-test-server.mjs';

const fake = fakeServerPerTest();

const T = 'public.items';
const OTHER = 'public.others';

async function followed(tables) {
  fake.client = new TablecastClient({ url: fake.server.url, WebSocket, backoff: { minMs: 5, maxMs: 20 } });
  const mirrors = tables.map((t) => fake.client.mirror(t));
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E', position: 7 });
  await conn.next('subscribe');
  for (const t of tables) conn.snapshot(t, ['id'], ['id'], 7, []);
  await Promise.all(mirrors.map((m) => m.ready));
  return { conn, mirrors };
}

test('the lag of the last transaction is shown for a second, then 0', async () => {
  const { conn, mirrors: [items] } = await followed([T]);
  assert.equal(items.lagMillis, 0, 'no transaction yet');
  const atChange = [];
  items.addEventListener('change', () => atChange.push(items.lagMillis));
  conn.batch(8, [ins(T, [1], { id: 1 })], Date.now() - 300); // written 300 ms ago
  await until(() => items.position === 8);
  assert.equal(atChange.length, 1);
  assert.ok(atChange[0] >= 300 && atChange[0] < 300 + 2000, `lag at the change event: ${atChange[0]} ms`);
  const applied = Date.now();
  conn.batch(9, []); // a heartbeat: no transaction, no lag of its own
  await until(() => items.position === 9);
  assert.equal(items.lagMillis, atChange[0], 'still shown within the second');
  await until(() => items.lagMillis === 0, 3000, 'the lag falls to 0 when the table is idle');
  assert.ok(Date.now() - applied >= 900, `fell to 0 after ${Date.now() - applied} ms, before the second`);

  conn.batchInParts(10, [[ins(T, [2], { id: 2 })]], [ins(T, [3], { id: 3 })], Date.now() - 50);
  await until(() => items.position === 10);
  assert.ok(items.lagMillis >= 50 && items.lagMillis < 50 + 2000, `a batch in parts: ${items.lagMillis} ms`);
});

test("another table's transaction is not this table's lag; a clock ahead of the database's is no negative lag", async () => {
  const { conn, mirrors: [items, others] } = await followed([T, OTHER]);
  conn.batch(8, [ins(OTHER, [1], { id: 1 })], Date.now() - 400);
  await until(() => items.position === 8 && others.position === 8);
  assert.ok(others.lagMillis >= 400, `${others.lagMillis}`);
  assert.equal(items.lagMillis, 0);
  conn.batch(9, [ins(T, [1], { id: 1 })], Date.now() + 60_000); // the database's clock a minute ahead
  await until(() => items.position === 9);
  assert.equal(items.lagMillis, 0);
});

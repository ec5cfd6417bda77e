// A mirror tells how far its snapshot has come, and when the end of the connection cuts one short
// (as a server does to a client that has not read it within slow_consumer.snapshot_timeout):
// how far it had come and how many times in a row, until one completes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { TablecastClient } from '../src/tablecast.js';
import { until } from './fake-server.mjs';
import { fakeServerPerTest } from './per-test-server.mjs';

const fake = fakeServerPerTest();

const T = 'public.items';
const COLS = [{ name: 'id', dbType: 'int8', kind: 'INTEGER' }];

/** A new connection of the client, welcomed, whose snapshot of T begins and sends `rows`. */
async function snapshotBegun(position, rowCount, rows) {
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E', position });
  await conn.next('subscribe');
  conn.send({ type: 'snapshot_begin', table: T, columns: COLS, primaryKey: ['id'], position, rowCount });
  if (rows.length > 0) conn.send({ type: 'snapshot_rows', table: T, rows });
  return conn;
}

test('snapshot progress counts the rows received against the rows announced, chunk by chunk', async () => {
  fake.client = new TablecastClient({ url: fake.server.url, WebSocket, backoff: { minMs: 5, maxMs: 20 } });
  const items = fake.client.mirror(T);
  assert.deepEqual(items.snapshotProgress, { rowsReceived: 0, rowsExpected: 0 });
  const seen = [];
  items.addEventListener('snapshotprogress', (e) => seen.push({ ...e.detail }));
  const conn = await snapshotBegun(7, 3, [{ id: 1 }, { id: 2 }]);
  await until(() => items.snapshotProgress.rowsReceived === 2);
  assert.equal(items.isReady, false);
  conn.send({ type: 'snapshot_rows', table: T, rows: [{ id: 3 }] });
  conn.send({ type: 'snapshot_end', table: T, position: 7 });
  await items.ready;
  assert.deepEqual(items.snapshotProgress, { rowsReceived: 3, rowsExpected: 3 });
  assert.deepEqual(seen, [
    { rowsReceived: 0, rowsExpected: 3 },
    { rowsReceived: 2, rowsExpected: 3 },
    { rowsReceived: 3, rowsExpected: 3 },
  ]);
});

test('a snapshot the end of the connection cuts short is told and counted, in a row until one completes', async () => {
  fake.client = new TablecastClient({ url: fake.server.url, WebSocket, backoff: { minMs: 5, maxMs: 20 } });
  const items = fake.client.mirror(T);
  const cuts = [];
  items.addEventListener('snapshotcut', (e) => cuts.push(e.detail));
  for (let cut = 1; cut <= 2; cut++) {
    const conn = await snapshotBegun(7, 3, [{ id: 1 }, { id: 2 }]);
    await until(() => items.snapshotProgress.rowsReceived === 2);
    conn.kill(); // as a server closes a client that did not read in time
    await until(() => items.snapshotsCutShort === cut);
  }
  assert.deepEqual(cuts, [
    { rowsReceived: 2, rowsExpected: 3, inARow: 1 },
    { rowsReceived: 2, rowsExpected: 3, inARow: 2 },
  ]);
  assert.equal(items.isReady, false);

  let conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E', position: 7 });
  await conn.next('subscribe');
  conn.snapshot(T, ['id'], ['id'], 7, [{ id: 1 }]);
  await items.ready;
  conn.kill(); // no snapshot in flight: nothing cut short
  conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'E', position: 7 });
  await conn.next('subscribe'); // resumed: no snapshot
  conn.send({ type: 'resumed', tables: [T], position: 7 });
  conn.kill();
  conn = await snapshotBegun(9, 4, []);
  await until(() => items.snapshotProgress.rowsExpected === 4);
  conn.kill();
  await until(() => items.snapshotsCutShort === 3);
  assert.deepEqual(cuts[2], { rowsReceived: 0, rowsExpected: 4, inARow: 1 }, 'counted afresh after a completed one');
});

// What a mirror's get() does with a key that no row can have: a part too few or too many, or a
// part of another kind than its column's (the text '42' for an INTEGER column). It answered
// undefined, as for a row not there, so a lookup by an id read from a URL as text found nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeServerPerTest } from './per-test-server.mjs';

const fake = fakeServerPerTest();

test('a key no row can have is refused with what to give, not answered as a row not there', async () => {
  fake.newClient();
  const lines = fake.client.mirror('shop.lines');
  const skus = fake.client.mirror('shop.skus');
  const flags = fake.client.mirror('shop.flags');
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'e1', position: 1 });
  await conn.next('subscribe');
  conn.snapshot('shop.lines', [{ name: 'order_id', dbType: 'int', kind: 'INTEGER' }, { name: 'line', dbType: 'int', kind: 'INTEGER' }],
    ['order_id', 'line'], 1, [{ order_id: 100, line: 1 }]);
  conn.snapshot('shop.skus', [{ name: 'sku', dbType: 'text', kind: 'STRING' }], ['sku'], 1, [{ sku: '42' }]);
  conn.snapshot('shop.flags', [{ name: 'on', dbType: 'boolean', kind: 'BOOLEAN' }], ['on'], 1, [{ on: true }]);
  await Promise.all([lines.ready, skus.ready, flags.ready]);

  assert.deepEqual(lines.get(100, 1), { order_id: 100, line: 1 });
  assert.equal(lines.get(100, 2), undefined, 'a key of the right kinds that no row has');
  assert.equal(lines.get(100, '9007199254740993'), undefined, 'an integer beyond 2^53 as its text');
  assert.throws(() => lines.get(100), /get\(\) of shop.lines: the primary key has 2 columns \(order_id, line\): give a value for each, in that order, as get\(order_id, line\); it was given 1/);
  assert.throws(() => lines.get(100, '1'), /get\(\) of shop.lines: key column line is INTEGER, so "1" \(string\) never finds a row; give a number \(get\(42\)\)/);
  assert.equal(skus.get('42').sku, '42');
  assert.equal(skus.get('43'), undefined);
  assert.throws(() => skus.get(42), /key column sku is STRING, so 42 \(number\) never finds a row; give its text as docs\/TYPES.md shows it \('42'\)/);
  assert.throws(() => flags.get('true'), /key column on is BOOLEAN, so "true" \(string\) never finds a row; give true or false/);
  assert.equal(flags.get(false), undefined);
});

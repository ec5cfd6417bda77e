// A key part given in another form than the one its rows carry (docs/TYPES.md) finds its row: a
// Date for an instant, a decimal of another scale or as a number, bytes for a binary string, a
// date-time with a space for the T, without its seconds or with other fraction digits. Before, get()
// looked such a key up as given and answered undefined for a row the table holds, or refused it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeServerPerTest } from './per-test-server.mjs';
import { keyForms } from '../src/key-forms.js';

const fake = fakeServerPerTest();

async function mirrorOf(table, columns, primaryKey, rows) {
  fake.newClient();
  const mirror = fake.client.mirror(table);
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'e1', position: 1 });
  await conn.next('subscribe');
  conn.snapshot(table, columns, primaryKey, 1, rows);
  await mirror.ready;
  return mirror;
}

test('a key part in another form than its rows carry finds its row', async () => {
  const m = await mirrorOf('shop.prices', [
    { name: 'at', dbType: 'timestamptz', kind: 'TIMESTAMP_TZ' },
    { name: 'amount', dbType: 'numeric(12,3)', kind: 'DECIMAL' },
    { name: 'valid', dbType: 'datetime(6)', kind: 'TIMESTAMP' },
    { name: 'tag', dbType: 'bytea', kind: 'BINARY' },
  ], ['at', 'amount', 'valid', 'tag'], [
    { at: '2026-01-01T00:00:00.120Z', amount: '1.500', valid: '2026-10-25T02:30:00.000000', tag: 'AAEC' },
    { at: '2026-01-02T00:00:00Z', amount: '2.000', valid: '2026-10-25T02:30:00.100000', tag: '' },
  ]);
  const first = m.get('2026-01-01T00:00:00.120Z', '1.500', '2026-10-25T02:30:00.000000', 'AAEC');
  assert.ok(first, 'the key as rows carry it');
  assert.equal(m.get(new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 120)), 1.5, '2026-10-25 02:30', new Uint8Array([0, 1, 2])), first);
  assert.equal(m.get(new Date('2026-01-01T02:00:00.120+02:00'), '1.5', '2026-10-25T02:30:00', Buffer.from([0, 1, 2])), first);
  const second = m.get(new Date('2026-01-02T00:00:00Z'), 2n, '2026-10-25 02:30:00.1', new ArrayBuffer(0));
  assert.equal(second?.amount, '2.000');
  assert.equal(m.get(new Date('2026-01-02T00:00:00Z'), '2.0001', '2026-10-25 02:30:00.1', ''), undefined,
    'more fraction digits than numeric(12,3) holds: no row');
  assert.throws(() => m.get(new Date('x'), '2', '2026-10-25 02:30:00.1', ''),
    /key column at is TIMESTAMP_TZ, so a Date \(Invalid Date\) never finds a row; give a valid Date or its text/);
  assert.throws(() => m.get(new Date(0), true, '2026-10-25 02:30:00.1', ''),
    /key column amount is DECIMAL, so true \(boolean\) never finds a row; give its text \('12.30'\) or a number/);
  assert.throws(() => m.get(new Date(0), '2', new Date(0), ''),
    /key column valid is TIMESTAMP, so a Date \(1970-01-01T00:00:00.000Z\) never finds a row; give its text as docs\/TYPES.md shows it: a Date is an instant, and a TIMESTAMP column holds no time zone/);
});

test('the forms of each kind, as each database prints them', () => {
  const col = (kind, dbType) => ({ name: 'k', kind, dbType });
  assert.deepEqual(keyForms(col('TIMESTAMP', 'timestamp(3)'), '2026-10-25 02:30'), ['2026-10-25T02:30:00', '2026-10-25T02:30:00.000']);
  assert.deepEqual(keyForms(col('TIMESTAMP', 'timestamp'), '0044-03-15 13:45:30.50 BC'), ['0044-03-15T13:45:30.5 BC']);
  assert.deepEqual(keyForms(col('TIME', 'time(3)'), '08:15'), ['08:15:00', '08:15:00.000']);
  assert.deepEqual(keyForms(col('TIME', 'time(3)'), '-838:59:59'), ['-838:59:59', '-838:59:59.000']);
  assert.deepEqual(keyForms(col('TIMESTAMP_TZ', 'timestamptz'), new Date(Date.UTC(10000, 0, 1))), ['+10000-01-01T00:00:00Z']);
  assert.deepEqual(keyForms(col('TIMESTAMP_TZ', 'timestamptz'), '2026-01-01T00:00:00Z'), [], 'text is looked up as it is');
  assert.deepEqual(keyForms(col('DECIMAL', 'numeric'), '2.50'), ['2.50', '2.5']);
  assert.deepEqual(keyForms(col('DECIMAL', 'numeric'), '-0.00'), ['-0.00', '0']);
  assert.deepEqual(keyForms(col('DECIMAL', 'money'), 1.5), ['1.50', '1.5']);
  assert.deepEqual(keyForms(col('DECIMAL', 'decimal(10,0)'), 1e21), [], 'a number printed with an exponent');
  assert.deepEqual(keyForms(col('BINARY', 'binary(4)'), new Uint8Array([0xde, 0xad, 0xbe, 0xef])), ['3q2+7w==']);
  assert.deepEqual(keyForms(col('STRING', 'text'), '08:15'), []);
});

// Integers beyond ±2^53 (Number.MAX_SAFE_INTEGER), as MySQL unsigned bigint columns and 64-bit ids
// hold them: JSON.parse rounded them to the nearest double, so 9007199254740993 read as
// 9007199254740992 and two rows keyed by such ids became one, without a word. They arrive as
// their exact decimal text now, and lookups take them as text or BigInt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from './fake-server.mjs';
import { fakeServerPerTest } from './per-test-server.mjs';

const fake = fakeServerPerTest();

const COLUMNS = [
  { name: 'id', dbType: 'bigint unsigned', kind: 'INTEGER' },
  { name: 'n', dbType: 'bigint unsigned', kind: 'INTEGER' },
  { name: 'f', dbType: 'double', kind: 'FLOAT' },
  { name: 's', dbType: 'text', kind: 'STRING' },
  { name: 'j', dbType: 'json', kind: 'JSON' },
];

/** The server's JSON text of a snapshot of `rows` (each the JSON text of one row). */
function snapshotText(conn, rows) {
  conn.send({ type: 'snapshot_begin', table: 'shop.ids', columns: COLUMNS, primaryKey: ['id'], position: 1, rowCount: rows.length });
  conn.ws.send(`{"type":"snapshot_rows","table":"shop.ids","rows":[${rows.join(',')}]}`);
  conn.send({ type: 'snapshot_end', table: 'shop.ids', position: 1 });
}

test('integers beyond 2^53 are their exact decimal text: rows keyed by them stay apart', async () => {
  fake.newClient();
  const m = fake.client.mirror('shop.ids');
  const byN = m.index('by_n', 'n', { sorted: true });
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'e1', position: 1 });
  await conn.next('subscribe');
  snapshotText(conn, [
    '{"id":9007199254740993,"n":18446744073709551615,"f":1.2345678901234567e19,"s":"12345678901234567890","j":{"big":-9223372036854775808,"small":[1,2.5]}}',
    '{"id":9007199254740992,"n":9007199254740991,"f":-0.5,"s":"\\"12345678901234567\\"","j":null}',
    '{"id":1,"s":"ends in a backslash \\\\","n":-9007199254740993,"f":1e300,"j":[12345678901234567890.5]}',
  ]);
  await m.ready;

  assert.equal(m.size, 3, 'two ids a double cannot tell apart are two rows');
  const big = m.get('9007199254740993');
  assert.deepEqual(big, {
    id: '9007199254740993', n: '18446744073709551615', f: 1.2345678901234567e19,
    s: '12345678901234567890', j: { big: '-9223372036854775808', small: [1, 2.5] },
  });
  assert.equal(m.get(9007199254740993n), big, 'a BigInt finds it too');
  assert.equal(m.get(9007199254740992n).n, 9007199254740991, 'safe values stay numbers');
  assert.equal(m.get('9007199254740992').s, '"12345678901234567"', 'strings are left as they are');
  assert.equal(m.get(1).n, '-9007199254740993', 'after a string that ends in an escaped backslash');
  assert.equal(m.get(1).s, 'ends in a backslash \\');
  assert.deepEqual(m.get(1).j, [12345678901234567890.5], 'a number with a fraction stays a number');
  assert.throws(() => m.get(9007199254740993), /get\(\) of shop.ids: 9007199254740992 is beyond Number.MAX_SAFE_INTEGER.*give one as a string \('9007199254740993'\) or a BigInt/);

  assert.deepEqual(byN.ordered().map((r) => r.id), [1, '9007199254740992', '9007199254740993'], 'ordered by value');
  assert.equal(byN.get(18446744073709551615n)[0], big);
  assert.equal(byN.get('18446744073709551615')[0], big);
  assert.throws(() => byN.get(18446744073709551615), /index by_n: 18446744073709552000 is beyond Number.MAX_SAFE_INTEGER/);

  conn.ws.send('{"type":"change_batch","position":2,"captureMillis":0,"changes":[{"op":"UPDATE","table":"shop.ids","key":[9007199254740993],'
    + '"before":null,"after":{"id":9007199254740993,"n":18446744073709551614,"f":0,"s":"y","j":null}}]}');
  await until(() => m.position === 2);
  assert.equal(m.get('9007199254740993').n, '18446744073709551614');
  assert.equal(m.get('9007199254740992').n, 9007199254740991, 'the other row is left alone');
});

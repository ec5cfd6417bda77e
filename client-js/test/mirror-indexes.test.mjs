// Secondary indexes of a mirror, against the fake server: lookups and ranges as batches and
// snapshots change the rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until, ins, upd, del } from './fake-server.mjs';
import { fakeServerPerTest } from './per-test-server.mjs';

const fake = fakeServerPerTest();

test('secondary indexes: lookups and ranges follow every batch and snapshot, values by kind', async () => {
  fake.newClient();
  const m = fake.client.mirror('shop.products');
  const byRegion = m.index('by_region', 'region');
  const byPrice = m.index('by_price', 'price', { sorted: true });
  const byBoth = m.index('by_region_price', ['region', 'price'], { sorted: true });
  assert.equal(m.index('by_region', 'region'), byRegion, 'the same index');
  assert.throws(() => m.index('by_region', 'price'), /exists on region/);
  assert.throws(() => m.index('by_name', 'name', { sort: true }),
      /index\("by_name", columns, options\) has no option sort \(did you mean sorted\?\): it takes sorted/);
  assert.throws(() => m.index('by_name', 'name', { sorted: 'yes' }), /sorted option of index by_name must be true or false/);
  assert.throws(() => byPrice.range({ form: '10.00', to: '20.00' }),
      /range\(\) of index by_price has no option form \(did you mean from\?\): it takes from, to, fromInclusive, toInclusive/);
  assert.throws(() => byPrice.range({ from: '10.00', toInclusve: true }), /has no option toInclusve \(did you mean toInclusive\?\)/);
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'e1', position: 1 });
  await conn.next('subscribe');
  const cols = [{ name: 'id', dbType: 'int', kind: 'INTEGER' }, { name: 'region', dbType: 'text', kind: 'STRING' },
    { name: 'price', dbType: 'decimal(10,2)', kind: 'DECIMAL' }];
  conn.snapshot('shop.products', cols, ['id'], 1, [
    { id: 1, region: 'eu', price: '9.50' }, { id: 2, region: 'us', price: '10.25' },
    { id: 3, region: 'eu', price: '100.00' }, { id: 4, region: null, price: '-1.00' },
  ]);
  await m.ready;
  const ids = (rows) => rows.map((r) => r.id);
  assert.deepEqual(ids(byRegion.get('eu')).sort(), [1, 3]);
  assert.deepEqual(ids(byRegion.get(null)), [4], 'NULL finds rows whose value is NULL');
  assert.deepEqual(ids(byPrice.ordered()), [4, 1, 2, 3], 'decimals by value, not as text');
  assert.deepEqual(ids(byPrice.range({ from: '9.5', to: '100' })), [1, 2]);
  assert.deepEqual(ids(byPrice.range({ from: '9.5', to: '100', fromInclusive: false, toInclusive: true })), [2, 3]);
  assert.deepEqual(ids(byBoth.range({ from: ['eu', '0'], to: ['eu', '999'] })), [1, 3]);
  assert.deepEqual(ids(byBoth.ordered()), [1, 3, 2], 'rows whose key holds a NULL are in no range');
  assert.throws(() => byRegion.range({}), /hash index: range\(\) needs a sorted one/);

  conn.batch(2, [
    upd('shop.products', [1], { id: 1, region: 'eu', price: '9.50' }, { id: 1, region: 'us', price: '200.00' }),
    del('shop.products', [3], { id: 3, region: 'eu', price: '100.00' }),
    ins('shop.products', [5], { id: 5, region: 'eu', price: '0.01' }),
  ]);
  const seen = [];
  m.addEventListener('change', () => seen.push(ids(byRegion.get('eu'))));
  await until(() => m.position === 2);
  assert.deepEqual(ids(byRegion.get('eu')), [5]);
  assert.deepEqual(seen[0], [5], 'the index holds the whole batch when change events fire');
  assert.deepEqual(ids(byPrice.ordered()), [4, 5, 2, 1]);
  assert.equal(byPrice.get('200')[0], m.get(1), 'the rows the mirror holds');
});

test('secondary indexes: temporal columns order as points in time, BC, past 9999 and beyond a day included', async () => {
  fake.newClient();
  const m = fake.client.mirror('shop.times');
  const idx = (column) => m.index(`by_${column}`, column, { sorted: true });
  const [byInstant, byDate, byStamp, byTime] = ['instant', 'day', 'stamp', 'clock'].map(idx);
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'e1', position: 1 });
  await conn.next('subscribe');
  const cols = [{ name: 'id', dbType: 'int', kind: 'INTEGER' }, { name: 'instant', dbType: 'timestamptz', kind: 'TIMESTAMP_TZ' },
    { name: 'day', dbType: 'date', kind: 'DATE' }, { name: 'stamp', dbType: 'timestamp', kind: 'TIMESTAMP' },
    { name: 'clock', dbType: 'time', kind: 'TIME' }];
  // each column's values in time order, as the server sends them (docs/TYPES.md), ids 1..7
  const instants = ['-infinity', '-0043-03-15T12:00:00Z', '-0001-12-31T23:59:59.500Z', '2024-02-29T11:45:30Z',
    '2024-02-29T11:45:30.500Z', '+294276-12-31T23:59:59.999999Z', 'infinity'];
  const days = ['-infinity', '0044-03-15 BC', '0001-03-15 BC', '0001-01-01', '2024-02-29', '294276-12-31', 'infinity'];
  const stamps = ['-infinity', '0044-03-15T13:45:30.5 BC', '0044-03-15T13:45:31 BC', '2024-02-29T13:45:30',
    '2024-02-29T13:45:30.123456', '12024-01-01T00:00:00', 'infinity'];
  const clocks = ['-838:59:59.000000', '-00:00:01', '00:00:00', '13:45:30', '13:45:30.5', '99:00:00', '100:00:00'];
  const order = [3, 6, 1, 7, 2, 5, 4]; // rows arrive out of order
  conn.snapshot('shop.times', cols, ['id'], 1, order.map((id) => ({
    id, instant: instants[id - 1], day: days[id - 1], stamp: stamps[id - 1], clock: clocks[id - 1],
  })));
  await m.ready;
  const ids = (rows) => rows.map((r) => r.id);
  for (const [name, index] of [['instant', byInstant], ['day', byDate], ['stamp', byStamp], ['clock', byTime]]) {
    assert.deepEqual(ids(index.ordered()), [1, 2, 3, 4, 5, 6, 7], `${name} in time order`);
  }
  assert.deepEqual(ids(byDate.range({ from: '0001-03-15 BC', to: '2024-02-29' })), [3, 4]);
  assert.deepEqual(ids(byTime.range({ from: '-00:00:01', to: '99:00:00' })), [2, 3, 4, 5]);
  assert.deepEqual(ids(byStamp.get('2024-02-29 13:45:30')), [4], 'a space for the T');
  assert.deepEqual(ids(byStamp.range({ from: '2024-02-29 13:45', to: '2024-02-29 13:46' })), [4, 5], 'no seconds');
  assert.deepEqual(ids(byTime.get('00:00')), [3], 'a time without its seconds');
  // a Date is an instant: a bound of a TIMESTAMP_TZ index, and no value of a DATE one
  assert.deepEqual(ids(byInstant.range({ from: new Date('2024-02-29T11:45:30Z'), to: new Date(8.64e15) })), [4, 5],
    'Dates as bounds, the latest a Date can hold (year 275760) among them');
  assert.deepEqual(ids(byInstant.get(new Date('2024-02-29T11:45:30.500Z'))), [5]);
  assert.throws(() => byDate.get(new Date(0)),
    /index by_day: column day is DATE, so a Date never finds a row; give its text: a Date is an instant, and a DATE holds no time zone/);
  assert.throws(() => byInstant.range({ from: new Date('x') }), /column instant is TIMESTAMP_TZ, so a Date never finds a row; give a valid one/);
});

test('a hash index finds values as its kind compares them, as a sorted one does: decimals by value, times as points in time', async () => {
  fake.newClient();
  const m = fake.client.mirror('shop.prices');
  const hash = (column) => m.index(`hash_${column}`, column);
  const sorted = (column) => m.index(`sorted_${column}`, column, { sorted: true });
  const conn = await fake.server.nextConnection();
  await conn.handshake({ epoch: 'e1', position: 1 });
  await conn.next('subscribe');
  conn.snapshot('shop.prices', [{ name: 'id', dbType: 'int', kind: 'INTEGER' },
    { name: 'price', dbType: 'numeric(10,2)', kind: 'DECIMAL' }, { name: 'at', dbType: 'timestamptz', kind: 'TIMESTAMP_TZ' },
    { name: 'qty', dbType: 'bigint', kind: 'INTEGER' }, { name: 'tag', dbType: 'bytea', kind: 'BINARY' }], ['id'], 1, [
    { id: 1, price: '9.50', at: '2024-02-29T11:45:30Z', qty: 7, tag: 'AAEC' },
    { id: 2, price: '-0.50', at: '2024-02-29T11:45:30.500Z', qty: '9007199254740993', tag: '' },
  ]);
  await m.ready;
  const ids = (rows) => rows.map((r) => r.id);
  for (const index of [hash, sorted]) {
    const kind = index === hash ? 'hash' : 'sorted';
    assert.deepEqual(ids(index('price').get('9.5')), [1], `${kind}: 9.5 is 9.50`);
    assert.deepEqual(ids(index('price').get(9.5)), [1], `${kind}: the number 9.5 too`);
    assert.deepEqual(ids(index('price').get('-.5')), [2], `${kind}: -.5 is -0.50`);
    assert.deepEqual(ids(index('at').get('2024-02-29T11:45:30.000Z')), [1], `${kind}: the same instant`);
    assert.deepEqual(ids(index('at').get(new Date('2024-02-29T13:45:30+02:00'))), [1], `${kind}: as a Date`);
    assert.deepEqual(ids(index('qty').get(9007199254740993n)), [2], `${kind}: an integer beyond 2^53 as a BigInt`);
    assert.deepEqual(ids(index('qty').get(7)), [1]);
    assert.deepEqual(ids(index('tag').get(new Uint8Array([0, 1, 2]))), [1], `${kind}: bytes as their base64`);
    assert.deepEqual(ids(index('tag').get(Buffer.alloc(0))), [2]);
  }
  conn.batch(2, [upd('shop.prices', [1], { id: 1, price: '9.50', at: '2024-02-29T11:45:30Z', qty: 7 },
    { id: 1, price: '9.5000', at: '2024-02-29T11:45:31Z', qty: 7 })]);
  await until(() => m.position === 2);
  assert.deepEqual(ids(hash('price').get('9.5')), [1], 'the changed row keyed anew');
  assert.deepEqual(ids(hash('at').get('2024-02-29T11:45:30Z')), [], 'and no longer under its old value');
});

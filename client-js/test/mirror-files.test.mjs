import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileStore } from '../src/tablecast.js';
import { crc32, decode, encode, fileName } from '../src/mirror-files.js';

test('fileStore: what is saved is loaded back, a missing file is null, no temporary file stays', () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'tablecast-js-'));
  try {
    const store = fileStore(join(dir, 'mirrors'), fs);
    assert.equal(store.load('public.items.mirror.json'), null);
    store.save('public.items.mirror.json', 'one');
    store.save('public.items.mirror.json', 'two');
    assert.equal(store.load('public.items.mirror.json'), 'two');
    assert.deepEqual(fs.readdirSync(join(dir, 'mirrors')), ['public.items.mirror.json']);
    assert.throws(() => fileStore(dir), /needs a directory and Node's fs module/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a file holds its table, shape, position and rows; any changed byte is refused', () => {
  const mirror = {
    table: 'shop.items', epoch: 'e1', position: 7, columns: [{ name: 'id', dbType: 'int', kind: 'INTEGER' }],
    primaryKey: ['id'], rows: new Map([['[1]', { id: 1 }]]),
  };
  const shape = { filter: 'id > ?', params: [0] };
  const text = encode(mirror, shape, 1_700_000_000_000);
  const saved = decode(text, 'shop.items', shape);
  assert.deepEqual([saved.epoch, saved.position, saved.rows], ['e1', 7, [{ id: 1 }]]);
  assert.notEqual(fileName('shop.items', shape), fileName('shop.items', null), 'a file per shape');
  assert.throws(() => decode(text, 'shop.items', null), /it holds the shape/);
  assert.throws(() => decode(text.replace('"position\\":7', '"position\\":8'), 'shop.items', shape), /checksum does not match/);
  assert.throws(() => decode('not json', 'shop.items', shape), /not a mirror file/);
});

test('a file of version 1 is read unless its rows hold integers beyond 2^53, which it held rounded', () => {
  const v1 = (rows) => {
    const body = JSON.stringify({ format: 'tablecast-mirror-js', version: 1, table: 'shop.ids', shape: null,
      epoch: 'e1', position: 3, savedAt: 0, columns: [{ name: 'id', dbType: 'bigint', kind: 'INTEGER' }],
      primaryKey: ['id'], rows });
    return JSON.stringify({ crc32: crc32(body), body });
  };
  assert.deepEqual(decode(v1([{ id: 1, j: { n: 2 } }]), 'shop.ids', null).rows, [{ id: 1, j: { n: 2 } }]);
  assert.throws(() => decode(v1([{ id: 1, j: { n: 9007199254740992 } }]), 'shop.ids', null),
      /saved before integers beyond ±2\^53 were kept exact, and its rows hold such integers rounded/);
  assert.throws(() => decode(v1([{ id: 9007199254740992 }]), 'shop.ids', null), /rounded/);
  const mirror = { table: 'shop.ids', epoch: 'e1', position: 3, columns: [], primaryKey: ['id'],
    rows: new Map([['["9007199254740993"]', { id: '9007199254740993' }]]) };
  assert.deepEqual(decode(encode(mirror, null), 'shop.ids', null).rows, [{ id: '9007199254740993' }], 'version 2: exact');
});

// The MirrorRegistry alone: which tables resume from which (epoch, position), and which start fresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MirrorRegistry } from '../src/mirror-registry.js';
import { TablecastError } from '../src/tablecast-error.js';
import { ins } from './fake-server.mjs';

const COLUMNS = [{ name: 'id', dbType: 'int', kind: 'INTEGER' }, { name: 'name', dbType: 'text', kind: 'STRING' }];

/** A whole snapshot of `table` at `position`, as the session hands it over. */
function snapshot(registry, table, position, rows = []) {
  const m = registry.get(table);
  m._beginSnapshot({ table, columns: COLUMNS, primaryKey: ['id'], position, rowCount: rows.length });
  m._snapshotRows(rows);
  registry.snapshotEnded(table, position);
}

/** A registry with mirrors of `tables`, in a session of `epoch` whose subscriptions were sent. */
function welcomed(epoch, tables) {
  const registry = new MirrorRegistry();
  for (const t of tables) registry.mirror(t);
  registry.beginSession(epoch);
  return { registry, first: registry.subscriptions() };
}

test('a first session subscribes every table fresh; a failed mirror is left out, and replaced by mirror()', () => {
  const { registry, first } = welcomed('E', ['s.a', 's.b']);
  assert.deepEqual(first, { resume: [], fresh: ['s.a', 's.b'] });
  assert.equal(registry.sessionEpoch, 'E');
  assert.deepEqual([registry.lastEpoch, registry.lastPosition], [null, -1]);
  const a = registry.get('s.a');
  assert.deepEqual(registry.mirror('s.a'), { mirror: a, created: false, replaced: false });
  const failed = registry.get('s.b');
  registry.fail('s.b', new TablecastError('no such table', { code: 'UNKNOWN_TABLE', table: 's.b' }));
  assert.ok(failed.failed);
  assert.deepEqual(registry.subscriptions(), { resume: [], fresh: ['s.a'] });
  const again = registry.mirror('s.b');
  assert.ok(again.created && again.replaced && again.mirror !== failed);
});

test('the resume position follows snapshots, resumes and batches; tables exactly there resume from it', () => {
  const { registry } = welcomed('E', ['s.a', 's.b']);
  snapshot(registry, 's.a', 5, [{ id: 1, name: 'a' }]);
  snapshot(registry, 's.b', 5);
  assert.deepEqual([registry.lastEpoch, registry.lastPosition], ['E', 5]);
  registry.applyBatch(6, [ins('s.a', [2], { id: 2, name: 'b' })]);
  registry.applyBatch(9, []); // a heartbeat moves every table that follows the stream
  assert.deepEqual([registry.lastEpoch, registry.lastPosition], ['E', 9]);
  assert.deepEqual([registry.get('s.a').position, registry.get('s.a').size, registry.get('s.b').position], [9, 2, 9]);

  registry.disconnected();
  registry.beginSession('E');
  assert.deepEqual(registry.subscriptions(), { resume: ['s.a', 's.b'], fresh: [] });
  registry.resumed(['s.a', 's.b'], [], 9);
  registry.applyBatch(10, []);
  assert.equal(registry.lastPosition, 10);
});

test('a snapshot cut off by the drop starts fresh; a batch before any answer does not move the resume position', () => {
  const { registry } = welcomed('E', ['s.a', 's.b']);
  snapshot(registry, 's.a', 5);
  const b = registry.get('s.b');
  b._beginSnapshot({ table: 's.b', columns: COLUMNS, primaryKey: ['id'], position: 5, rowCount: 2 });
  b._snapshotRows([{ id: 1, name: 'x' }]);
  registry.disconnected();

  registry.beginSession('E');
  assert.deepEqual(registry.subscriptions(), { resume: ['s.a'], fresh: ['s.b'] });
  registry.applyBatch(7, []); // before the server answered either subscribe
  assert.equal(registry.lastPosition, 5, 'no table followed this session yet');
  registry.disconnected();

  registry.beginSession('E');
  assert.deepEqual(registry.subscriptions(), { resume: ['s.a'], fresh: ['s.b'] },
    's.a was never answered, but it is still exactly at 5');
});

test('a new epoch: the re-snapshot starts the resume position over in that epoch, even lower', () => {
  const { registry } = welcomed('old', ['s.a']);
  snapshot(registry, 's.a', 100, [{ id: 1, name: 'a' }]);
  registry.disconnected();

  registry.beginSession('new');
  assert.deepEqual(registry.subscriptions(), { resume: ['s.a'], fresh: [] },
    'asked to resume from (old, 100): only the server knows it cannot');
  assert.deepEqual([registry.lastEpoch, registry.lastPosition], ['old', 100]);
  snapshot(registry, 's.a', 0, [{ id: 1, name: 'a' }]);
  assert.deepEqual([registry.lastEpoch, registry.lastPosition], ['new', 0]);
  registry.applyBatch(1, []);
  registry.disconnected();
  registry.beginSession('new');
  assert.deepEqual(registry.subscriptions(), { resume: ['s.a'], fresh: [] });
  assert.deepEqual([registry.lastEpoch, registry.lastPosition], ['new', 1]);
});

test('a table subscribed later in a session neither resumes nor moves the position until its snapshot ends', () => {
  const { registry } = welcomed('E', ['s.a']);
  snapshot(registry, 's.a', 5);
  const { created } = registry.mirror('s.b');
  assert.ok(created);
  registry.subscribing(['s.b']);
  registry.applyBatch(6, []);
  assert.equal(registry.get('s.b').position, -1);
  registry.disconnected();
  registry.beginSession('E');
  assert.deepEqual(registry.subscriptions(), { resume: ['s.a'], fresh: ['s.b'] });
  assert.equal(registry.lastPosition, 6);
});

test('within an epoch the resume position never goes back', () => {
  const { registry } = welcomed('E', ['s.a', 's.b']);
  snapshot(registry, 's.a', 8);
  snapshot(registry, 's.b', 6); // answered later, at an older position
  assert.deepEqual([registry.lastEpoch, registry.lastPosition], ['E', 8]);
});

test('a refused connection rejects mirrors still waiting and makes ready ones stale', async () => {
  const { registry } = welcomed('E', ['s.a', 's.b']);
  snapshot(registry, 's.a', 5);
  const refused = new TablecastError('bad token', { code: 'AUTHENTICATION_FAILED' });
  registry.connectionRefused(refused, 'server refused the connection: AUTHENTICATION_FAILED: bad token');
  assert.equal(await registry.get('s.a').ready, registry.get('s.a'));
  assert.match(registry.get('s.a').stale, /^server refused the connection: AUTHENTICATION_FAILED: bad token; /);
  await assert.rejects(registry.get('s.b').ready, (e) => e === refused);
});

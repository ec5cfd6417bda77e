// A mirror, its secondary indexes and its listeners follow random batches of the changes a server
// sends: inserts, updates with and without their row before, rows moved to other keys, a swap as the
// server says it (a DELETE of the row on a key, an UPDATE moving another row onto that key, an INSERT
// of the displaced row at its new key), an insert that repeats a row held (a replay of MySQL's
// capture), deletes, a truncate (sent as a DELETE of every row), batches whole or in parts; and
// reconnects, answered by a resume or by a new snapshot of a table that changed meanwhile (from the
// same server, or from a restarted one in a new epoch; now and then after a snapshot the connection's
// end cut short). After every batch the mirror equals the model of the table, each index answers
// as a lookup over the model does, and the `change` events and the `batch` events, each applied to a
// copy of the rows at ready, give the same rows. The counterpart of client-cache's MirrorModelTest.
// A failing run names its seed: `node --test --test-name-pattern='^seed 7:' test/mirror-model.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { ins, upd, del } from './fake-server.mjs';
import { fakeServerPerTest } from './per-test-server.mjs';

const fake = fakeServerPerTest();
const T = 'shop.items';
const SEEDS = 20;
const BATCHES = 80;
const KEYS = 10; // few keys: moves and swaps often meet held keys
const REGIONS = ['EU', 'US', 'APAC', null];
const TOTALS = [0, 1, 2, 3, 4, null];
const COLUMNS = [
  { name: 'id', dbType: 'bigint', kind: 'INTEGER' },
  { name: 'region', dbType: 'text', kind: 'STRING' },
  { name: 'total', dbType: 'bigint', kind: 'INTEGER' },
];

for (let seed = 0; seed < SEEDS; seed++) {
  test(`seed ${seed}: the mirror, its indexes and its listeners follow random batches, resumes and snapshots`,
    () => run(seed));
}

async function run(seed) {
  const r = random(seed);
  const model = new Map(); // id → row
  for (let id = 1; id <= KEYS / 2; id++) model.set(id, item(r, id));
  fake.newClient({ backoff: { minMs: 0, maxMs: 2 } });
  const m = fake.client.mirror(T);
  const indexes = {
    byRegion: m.index('by_region', 'region'),
    byTotal: m.index('by_total', 'total', { sorted: true }),
    byBoth: m.index('by_region_total', ['region', 'total']),
  };
  const told = { change: null, batch: null }; // the rows each kind of event told, from the rows at ready
  const misfits = []; // events that do not fit the rows told before them
  m.addEventListener('ready', () => Object.assign(told, { change: new Map(m.rows), batch: new Map(m.rows) }));
  m.addEventListener('change', (e) => hear(told, 'change', e.detail, misfits));
  m.addEventListener('batch', (e) => e.detail.changes.forEach((c) => hear(told, 'batch', c, misfits)));
  const s = { r, model, m, epoch: 'e0', position: 1, conn: await fake.server.nextConnection(), log: [], progress: 0 };
  m.addEventListener('snapshotprogress', () => s.progress++);
  await s.conn.handshake({ epoch: s.epoch, position: s.position });
  await s.conn.next('subscribe');
  s.conn.snapshot(T, COLUMNS, ['id'], s.position, [...model.values()]);
  await m.ready;
  for (let b = 1; b <= BATCHES; b++) {
    try {
      await play(s, b);
      await soon(() => m.epoch === s.epoch && m.position === s.position,
        `the mirror at position ${s.position} of ${s.epoch}`);
      check(m, indexes, model, told, misfits);
    } catch (e) {
      assert.fail(`seed ${seed}, batch ${b} of ${BATCHES} (position ${s.position}): ${e.message}\n`
        + `batches:\n${s.log.join('\n')}`);
    }
  }
}

/**
 * The server's next batch; or, one time in ten, it ends the connection and answers the client's
 * reconnect with a resume and a batch, or with a new snapshot (of the same server or a restarted one),
 * now and then after a snapshot that the connection's end cut short.
 */
async function play(s, b) {
  const { r, model } = s;
  s.position++;
  if (r.int(10) !== 0) {
    send(s, batch(r, model), '');
    return;
  }
  const last = s.m.position;
  const held = said(s.m.rows);
  const how = r.int(3);
  if (how === 2) { // a restarted server: a new epoch, whose positions start anywhere
    s.epoch = `e${b}`;
    s.position = 1 + r.int(2 * s.position);
  }
  let sub = await reconnect(s);
  if (how === 0) { // the server resumes the client where it was, then sends a batch
    assert.deepEqual(sub, { type: 'subscribe', tables: [T], resumeEpoch: s.epoch, resumePosition: last },
      'the client asks to resume where it was');
    s.conn.send({ type: 'resumed', tables: [T], schemas: [], position: last });
    send(s, batch(r, model), `reconnected, resumed from ${last}, then `);
    return;
  }
  for (let i = r.int(4); i > 0; i--) change(r, model, []); // changes made while the client was away
  if (r.int(4) === 0) { // the connection ends after a row of the snapshot: the mirror keeps its rows
    const progress = s.progress;
    s.conn.send({ type: 'snapshot_begin', table: T, columns: COLUMNS, primaryKey: ['id'], position: s.position,
      rowCount: model.size });
    s.conn.send({ type: 'snapshot_rows', table: T, rows: [...model.values()].slice(0, 1) });
    await soon(() => s.progress === progress + 2, 'the snapshot to begin');
    s.log.push(`${s.position}: reconnected, a snapshot cut short after its first row`);
    sub = await reconnect(s);
    assert.deepEqual(said(s.m.rows), held, 'a snapshot cut short leaves the rows as they were');
    assert.equal(sub.resumePosition, -1, 'a mirror whose snapshot was cut short asks for a new one');
  }
  s.conn.snapshot(T, COLUMNS, ['id'], s.position, [...model.values()]);
  s.log.push(`${s.position}: reconnected, a new snapshot${how === 2 ? ` of epoch ${s.epoch}` : ''}: `
    + `${[...model.values()].map(row).join(' ')}`);
}

/** The server ends the connection; returns the `subscribe` of the client's next one, welcomed. */
async function reconnect(s) {
  s.conn.kill();
  s.conn = await fake.server.nextConnection();
  await s.conn.handshake({ epoch: s.epoch, position: s.position });
  return s.conn.next('subscribe');
}

/** Sends a batch: whole, or one time in four in parts (`change_part`, then the final `change_batch`). */
function send(s, changes, what) {
  const cut = changes.length > 1 && s.r.int(4) === 0 ? 1 + s.r.int(changes.length - 1) : 0;
  if (cut > 0) s.conn.batchInParts(s.position, [changes.slice(0, cut)], changes.slice(cut));
  else s.conn.batch(s.position, changes);
  s.log.push(`${s.position}: ${what}${changes.map(say).join(', ') || 'no change'}`
    + `${cut > 0 ? ` (in parts: ${cut}, then the rest)` : ''}`);
}

/** Waits, a turn of the event loop at a time, until `predicate` holds. */
async function soon(predicate, what) {
  const deadline = Date.now() + 5000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after 5 s waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function check(m, { byRegion, byTotal, byBoth }, model, told, misfits) {
  const expected = byId(model.values());
  assert.deepEqual(said(m.rows), said(model), 'the mirror\'s rows');
  const where = (holds) => expected.filter(holds).map((x) => x.id);
  for (const region of REGIONS) {
    assert.deepEqual(ids(byRegion.get(region)), where((x) => x.region === region), `by_region ${region}`);
    for (const total of TOTALS) {
      assert.deepEqual(ids(byBoth.get([region, total])), where((x) => x.region === region && x.total === total),
        `by_region_total ${region}, ${total}`);
    }
  }
  const valued = expected.filter((x) => x.total !== null); // rows whose key holds a NULL are in no range
  assert.deepEqual(byTotal.ordered().map((x) => x.total), valued.map((x) => x.total).sort((x, y) => x - y),
    'by_total ordered, totals');
  assert.deepEqual(ids(byTotal.ordered()), valued.map((x) => x.id), 'by_total ordered, rows');
  for (const total of TOTALS.filter((t) => t !== null)) {
    assert.deepEqual(ids(byTotal.get(total)), where((x) => x.total === total), `by_total ${total}`);
  }
  const bounds = [undefined, ...TOTALS.filter((t) => t !== null)];
  for (const from of bounds) {
    for (const to of bounds) {
      for (const [fromInclusive, toInclusive] of [[true, false], [true, true], [false, false], [false, true]]) {
        const within = (t) => (from === undefined || (fromInclusive ? t >= from : t > from))
          && (to === undefined || (toInclusive ? t <= to : t < to));
        assert.deepEqual(ids(byTotal.range({ from, to, fromInclusive, toInclusive })),
          valued.filter((x) => within(x.total)).map((x) => x.id),
          `by_total range ${JSON.stringify({ from, to, fromInclusive, toInclusive })}`);
      }
    }
  }
  assert.deepEqual(misfits, [], 'events that do not fit the rows the events told before');
  assert.deepEqual(said(told.change), said(model), 'the rows the change events told');
  assert.deepEqual(said(told.batch), said(model), 'the rows the batch events told');
}

/**
 * Applies an event to the copy of the rows the events of its kind told; one that does not fit it
 * (heard before ready, an INSERT of a key held, an old row other than the one held, an UPDATE that
 * changes nothing) goes to `misfits`.
 */
function hear(told, type, e, misfits) {
  const copy = told[type];
  if (copy === null) {
    misfits.push({ type, before: 'ready', ...e });
    return;
  }
  const held = copy.get(e.key);
  const fits = e.op === 'INSERT' ? held === undefined && e.newRow !== undefined
    : held !== undefined && isDeepStrictEqual(held, e.oldRow)
      && (e.op === 'DELETE' ? e.newRow === undefined : !isDeepStrictEqual(e.oldRow, e.newRow));
  if (!fits) misfits.push({ type, ...e, held });
  if (e.op === 'DELETE') copy.delete(e.key);
  else copy.set(e.key, e.newRow);
}

/** The changes of one batch, as the server says them: one to four changes, or now and then a truncate. */
function batch(r, model) {
  const changes = [];
  for (let i = 1 + r.int(4); i > 0; i--) {
    if (r.int(40) === 0) { // a TRUNCATE: the server sends a DELETE of every row
      for (const [k, was] of model) changes.push(del(T, [k], was));
      model.clear();
    } else {
      change(r, model, changes);
    }
  }
  return changes;
}

/** One change of the model, said as a server says it into `out` (unsaid: made while the client is away). */
function change(r, model, out) {
  const held = [...model.keys()];
  const free = [];
  for (let k = 1; k <= KEYS; k++) if (!model.has(k)) free.push(k);
  const what = r.int(12);
  if (held.length === 0 || (what < 2 && free.length > 0)) {
    if (free.length === 0) return;
    const k = r.pick(free);
    model.set(k, item(r, k));
    out.push(ins(T, [k], model.get(k)));
    return;
  }
  const k = r.pick(held);
  const was = model.get(k);
  if (what < 5) { // an update on its key, its row before said or not (coalesced, MySQL)
    model.set(k, item(r, k));
    out.push(upd(T, [k], r.int(2) === 0 ? was : undefined, model.get(k)));
  } else if (what < 7 && free.length > 0) { // a move to a free key, with its values or new ones
    const to = r.pick(free);
    model.delete(k);
    model.set(to, r.int(2) === 0 ? { ...was, id: to } : item(r, to));
    out.push(upd(T, [to], was, model.get(to)));
  } else if (what < 9 && held.length > 1) { // a swap: k's row onto key o, o's row onto key k
    const o = r.pick(held);
    if (o === k) return;
    const other = model.get(o);
    model.set(o, { ...was, id: o });
    model.set(k, { ...other, id: k });
    out.push(del(T, [o], other), upd(T, [o], was, model.get(o)), ins(T, [k], model.get(k)));
  } else if (what < 10) { // an insert that repeats a row held, with its new values
    model.set(k, item(r, k));
    out.push(ins(T, [k], model.get(k)));
  } else {
    model.delete(k);
    out.push(del(T, [k], was));
  }
}

function item(r, id) {
  return { id, region: r.pick(REGIONS), total: r.pick(TOTALS) };
}

/** mulberry32: a tiny deterministic generator, so that a seed plays the same run again. */
function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return { int, pick: (xs) => xs[int(xs.length)] };
}

const byId = (rows) => [...rows].sort((x, y) => x.id - y.id);
const ids = (rows) => rows.map((x) => x.id).sort((x, y) => x - y);
const row = (x) => (x ? `${x.id}:${x.region}/${x.total}` : '-');
const said = (rows) => byId(rows.values()).map(row);
const say = (c) => `${c.op} [${c.key}] ${c.before ? `${row(c.before)} → ` : ''}${c.after ? row(c.after) : ''}`.trim();

// Used by JsWarmRestartUnderLoadTest: the Tablecast JavaScript client in Node, with a warm restart
// saving every second to DIR, mirroring TABLE (accounts whose balances add up to a constant) and
// reconnecting after 50-500 ms when its connection fails. Prints "CREATED <isReady> <total>" right
// after client.mirror() (the restored rows' total, before any server answered), then "READY"; a
// batch whose changes move the total prints "PROBLEM batch of <n> changes moved the total by <d>".
// For each stdin line "SYNC": awaits client.sync(), then prints "HEARD same" when the rows held at
// creation with every change event since replayed over them are the mirror's rows, else "HEARD
// differs <first keys>", then "ROWS <rows as JSON, sorted by id>" (or "FAILED <message>"). On
// "CLOSE" closes the client (which saves the mirror), prints "CLOSED" and exits.
// usage: node warm-restart-load.mjs REPO_ROOT URL TABLE DIR
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import * as fs from 'node:fs';

const [root, url, table, dir] = process.argv.slice(2);
const WebSocket = createRequire(`${root}/client-js/package.json`)('ws');
const { TablecastClient, fileStore } = await import(pathToFileURL(`${root}/client-js/src/tablecast.js`).href);

const client = new TablecastClient({
  url,
  WebSocket,
  clientName: 'node-warm-load',
  backoff: { minMs: 50, maxMs: 500 },
  warmRestart: { store: fileStore(dir, fs), saveEveryMs: 1000 },
});
client.addEventListener('error', (e) => console.error(`client error: ${e.detail?.message ?? e.detail}`));
const mirror = client.mirror(table);
const total = (rows) => [...rows].reduce((sum, row) => sum + Number(row.balance), 0);
const heard = new Map(mirror.rows); // synchronous with the listener below: no change between
mirror.addEventListener('change', (e) => {
  const { key, newRow } = e.detail;
  if (newRow) heard.set(key, newRow); else heard.delete(key);
});
mirror.addEventListener('batch', (e) => {
  const net = e.detail.changes.reduce(
    (sum, c) => sum + (c.newRow ? Number(c.newRow.balance) : 0) - (c.oldRow ? Number(c.oldRow.balance) : 0), 0);
  if (net !== 0) console.log(`PROBLEM batch of ${e.detail.changes.length} changes moved the total by ${net}`);
});
console.log(`CREATED ${mirror.isReady} ${mirror.isReady ? total(mirror.rows.values()) : 0}`);
await mirror.ready;
console.log('READY');
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === 'CLOSE') break;
  if (line.trim() !== 'SYNC') continue;
  try {
    await client.sync({ timeoutMs: 30_000 });
    const canonical = (row) => (row ? JSON.stringify(Object.keys(row).sort().map((c) => [c, row[c]])) : 'none');
    const differing = [...new Set([...heard.keys(), ...mirror.rows.keys()])]
      .filter((k) => canonical(heard.get(k)) !== canonical(mirror.rows.get(k)))
      .slice(0, 5);
    console.log(differing.length === 0 ? 'HEARD same' : `HEARD differs ${differing.join(' ')}`);
    console.log(`ROWS ${JSON.stringify([...mirror.rows.values()].sort((a, b) => a.id - b.id))}`);
  } catch (e) {
    console.log(`FAILED ${e.message}`);
  }
}
client.close();
console.log('CLOSED');
process.exit(0); // stdin would keep the process alive

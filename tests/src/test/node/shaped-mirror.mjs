// Used by JsShapedMirrorTest and JsMirrorsUnderLoadTest: the Tablecast JavaScript client in Node,
// with a shaped mirror, against a real server. Mirrors TABLE with the shape given as JSON ("null":
// the whole table), reconnecting after 50-500 ms when its connection fails, prints "READY"; for each
// stdin line "SYNC" awaits client.sync() and prints the mirror's rows as one JSON line (sorted by
// key), or "FAILED <message>". Exits when stdin ends.
// usage: node shaped-mirror.mjs REPO_ROOT URL TABLE SHAPE_JSON
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [root, url, table, shape] = process.argv.slice(2);
const WebSocket = createRequire(`${root}/client-js/package.json`)('ws');
const { TablecastClient } = await import(pathToFileURL(`${root}/client-js/src/tablecast.js`).href);

const client = new TablecastClient({
  url, WebSocket, clientName: 'node-shape', backoff: { minMs: 50, maxMs: 500 },
});
client.addEventListener('error', (e) => console.error(`client error: ${e.detail?.message ?? e.detail}`));
const mirror = await client.mirror(table, JSON.parse(shape) ?? undefined).ready;
console.log('READY');
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'SYNC') continue;
  try {
    await client.sync({ timeoutMs: 30_000 });
    const rows = [...mirror.rows.values()].sort((a, b) => a.id - b.id);
    console.log(JSON.stringify(rows));
  } catch (e) {
    console.log(`FAILED ${e.message}`);
  }
}
client.close();

// Used by JsKeyFormsTest: the Tablecast JavaScript client in Node against a real server. Reads one
// JSON line per lookup from stdin, {"table": T, "parts": [...]}, mirrors T (once), calls
// mirror.get(...parts) and prints the row's v as JSON, "MISS", or "THROWS <message>". A part
// {"date": ms} is given as a Date, {"bytes": base64} as a Uint8Array, {"bigint": text} as a BigInt.
// Exits when stdin ends.
// usage: node key-lookups.mjs REPO_ROOT URL
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [root, url] = process.argv.slice(2);
const WebSocket = createRequire(`${root}/client-js/package.json`)('ws');
const { TablecastClient } = await import(pathToFileURL(`${root}/client-js/src/tablecast.js`).href);

const client = new TablecastClient({ url, WebSocket, clientName: 'node-keys' });
client.addEventListener('error', (e) => console.error(`client error: ${e.detail?.message ?? e.detail}`));
const mirrors = new Map();
const given = (p) => (p !== null && typeof p === 'object'
  ? ('date' in p ? new Date(p.date) : 'bytes' in p ? new Uint8Array(Buffer.from(p.bytes, 'base64')) : BigInt(p.bigint))
  : p);
console.log('READY');
for await (const line of createInterface({ input: process.stdin })) {
  const { table, parts } = JSON.parse(line);
  try {
    if (!mirrors.has(table)) mirrors.set(table, await client.mirror(table).ready);
    const row = mirrors.get(table).get(...parts.map(given));
    console.log(row === undefined ? 'MISS' : JSON.stringify(row.v));
  } catch (e) {
    console.log(`THROWS ${e.message}`);
  }
}
client.close();

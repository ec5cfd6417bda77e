// Used by JsWarmRestartTest: the Tablecast JavaScript client in Node with a warm restart against a
// real server. Mirrors TABLE saving to DIR; prints "CREATED <isReady> <size>" right after
// client.mirror() (before any server answered), then "READY" once ready; for each stdin line
// "SYNC" awaits client.sync() and prints the rows as one JSON line (sorted by id), or "FAILED
// <message>"; on "CLOSE" closes the client (which saves the mirror) and exits.
// usage: node warm-restart.mjs REPO_ROOT URL TABLE DIR
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import * as fs from 'node:fs';

const [root, url, table, dir] = process.argv.slice(2);
const WebSocket = createRequire(`${root}/client-js/package.json`)('ws');
const { TablecastClient, fileStore } = await import(pathToFileURL(`${root}/client-js/src/tablecast.js`).href);

const client = new TablecastClient({
  url, WebSocket, clientName: 'node-warm', warmRestart: { store: fileStore(dir, fs) },
});
client.addEventListener('error', (e) => console.error(`client error: ${e.detail?.message ?? e.detail}`));
const mirror = client.mirror(table);
console.log(`CREATED ${mirror.isReady} ${mirror.size}`);
await mirror.ready;
console.log('READY');
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === 'CLOSE') break;
  if (line.trim() !== 'SYNC') continue;
  try {
    await client.sync({ timeoutMs: 30_000 });
    console.log(JSON.stringify([...mirror.rows.values()].sort((a, b) => a.id - b.id)));
  } catch (e) {
    console.log(`FAILED ${e.message}`);
  }
}
client.close();
console.log('CLOSED');
process.exit(0); // stdin would keep the process alive

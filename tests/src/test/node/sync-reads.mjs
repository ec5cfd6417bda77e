// Used by JsReadYourWritesTest: the Tablecast JavaScript client in Node against a real server.
// Mirrors one table, prints "READY", then for each stdin line "ID BALANCE" (the test has just
// committed balance = BALANCE for row ID through JDBC) awaits client.sync() and reads the row:
// prints "OK" when the mirror has the write, "STALE <what it has>" when not, "FAILED <message>"
// when sync throws. Exits when stdin ends.
// usage: node sync-reads.mjs REPO_ROOT URL TABLE
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [root, url, table] = process.argv.slice(2);
const WebSocket = createRequire(`${root}/client-js/package.json`)('ws');
const { TablecastClient } = await import(pathToFileURL(`${root}/client-js/src/tablecast.js`).href);

const client = new TablecastClient({ url, WebSocket, clientName: 'node-sync' });
client.addEventListener('error', (e) => console.error(`client error: ${e.detail?.message ?? e.detail}`));
const mirror = await client.mirror(table).ready;
console.log('READY');
for await (const line of createInterface({ input: process.stdin })) {
  const [id, balance] = line.trim().split(' ').map(Number);
  try {
    await client.sync({ timeoutMs: 30_000 });
    const row = mirror.get(id);
    const has = row === undefined ? 'no row' : String(row.balance);
    console.log(Number(has) === balance ? 'OK' : `STALE ${has}`);
  } catch (e) {
    console.log(`FAILED ${e.message}`);
  }
}
client.close();

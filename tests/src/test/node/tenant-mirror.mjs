// Used by JsTenantsUnderLoadTest: the Tablecast JavaScript client in Node mirroring TABLE as one
// tenant of a server whose JWT policy filters rows by the token's `tenant` claim. The token is a
// function: each connection gets a fresh HS256 token (signed with SECRET) that the server takes for
// VALID_MS only (it allows 30 s of clock skew, so the token says it expired 30 s - VALID_MS ago),
// so reconnects after that need the new one. TENANT is the claim's JSON ("1" a number, "\"2\"" a
// string). Prints "READY"; for each stdin line "SYNC" awaits client.sync() and prints one JSON
// line { rows (sorted by key), stale, foreign (rows of another tenant ever heard), tokens (asked
// for) }, or "FAILED <message>". Exits when stdin ends.
// usage: node tenant-mirror.mjs REPO_ROOT URL TABLE SECRET TENANT VALID_MS
import { createHmac } from 'node:crypto';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [root, url, table, secret, tenantJson, validMs] = process.argv.slice(2);
const WebSocket = createRequire(`${root}/client-js/package.json`)('ws');
const { TablecastClient } = await import(pathToFileURL(`${root}/client-js/src/tablecast.js`).href);
const tenant = JSON.parse(tenantJson);

const base64url = (text) => Buffer.from(text).toString('base64url');
let tokens = 0;
function token() {
  tokens++;
  const exp = Math.floor((Date.now() + Number(validMs) - 30_000) / 1000);
  const unsigned = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify({ sub: `tenant-${tenant}`, tenant, exp }))}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

const client = new TablecastClient({
  url, WebSocket, clientName: `node-tenant-${tenant}`, backoff: { minMs: 50, maxMs: 500 },
  token: async () => token(),
});
client.addEventListener('error', (e) => console.error(`client error: ${e.detail?.message ?? e.detail}`));
const mirror = await client.mirror(table).ready;
let foreign = 0;
mirror.addEventListener('change', (e) => {
  for (const row of [e.detail.newRow, e.detail.oldRow]) {
    if (row && String(row.tenant) !== String(tenant)) foreign++;
  }
});
console.log('READY');
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'SYNC') continue;
  try {
    await client.sync({ timeoutMs: 30_000 });
    const rows = [...mirror.rows.values()].sort((a, b) => a.id - b.id);
    console.log(JSON.stringify({ rows, stale: mirror.stale, foreign, tokens }));
  } catch (e) {
    console.log(`FAILED ${e.message}`);
  }
}
client.close();

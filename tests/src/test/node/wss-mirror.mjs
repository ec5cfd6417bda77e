// Used by TlsDocTest: mirrors one table with the Tablecast JavaScript client in Node over wss://
// and prints "ROWS <n>" once the snapshot is in. Trust comes from NODE_EXTRA_CA_CERTS (mode
// "plain": the ws package as is) or from a ws subclass given the CA (mode "ca"). Exits 2 when
// no snapshot arrives within the timeout (e.g. an untrusted certificate: the client keeps retrying).
// usage: node wss-mirror.mjs REPO_ROOT URL TABLE plain|ca CA_FILE TIMEOUT_MS
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [root, url, table, mode, caFile, timeoutMs] = process.argv.slice(2);
const WS = createRequire(`${root}/client-js/package.json`)('ws');
const { TablecastClient } = await import(pathToFileURL(`${root}/client-js/src/tablecast.js`).href);

const ca = mode === 'ca' ? readFileSync(caFile) : null;
const WebSocket = ca ? class extends WS { constructor(u) { super(u, { ca }); } } : WS;
const client = new TablecastClient({ url, WebSocket, clientName: 'node-tls' });
client.addEventListener('error', (e) => console.error(`client error: ${e.detail?.message ?? e.detail}`));
const timer = setTimeout(() => {
  console.log('TIMEOUT');
  client.close();
  process.exit(2);
}, Number(timeoutMs));
try {
  const mirror = await client.mirror(table).ready;
  console.log(`ROWS ${mirror.size}`);
} catch (e) {
  console.log(`FAILED ${e.message}`);
  process.exitCode = 1;
} finally {
  clearTimeout(timer);
  client.close();
}

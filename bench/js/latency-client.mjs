#!/usr/bin/env node
// Figure 1's Node client (bench/.../ExternalClient.java starts it): mirrors TABLE over the
// server's WebSocket with client-js and prints one JSON line per changed row on stdout
// (mirror-versions.mjs). Node 22+ has a WebSocket; Node 20 needs --experimental-websocket.
//
//   node --experimental-websocket bench/js/latency-client.mjs ws://127.0.0.1:PORT/ws schema.table
import { TablecastClient } from '../../client-js/src/tablecast.js';
import { mirrorVersions } from './mirror-versions.mjs';

const [url, table] = process.argv.slice(2);
if (!url || !table) {
  console.error('usage: node --experimental-websocket latency-client.mjs ws://HOST:PORT/ws schema.table');
  process.exit(2);
}
if (typeof globalThis.WebSocket !== 'function') {
  console.error(`latency-client: Node ${process.version} has no WebSocket: run it with --experimental-websocket (Node 20) or Node 22+`);
  process.exit(2);
}
const client = new TablecastClient({ url, clientName: 'bench-latency-node' });
// stdout is a pipe: writes are synchronous on Linux, so a line is out when write returns
await mirrorVersions(client, table, (line) => process.stdout.write(`${line}\n`)).catch((e) => {
  console.error(`latency-client: ${e.message}`);
  process.exit(1);
});

// How fast a JavaScript client applies change batches, alone: 4,000 batches of ten UPDATEs of a
// 1,000-row table, sent at once over a WebSocket by the tests' fake server in the same process,
// timed from the first send to the mirror's last position, with the process's CPU; one line of
// JSON. The client's directory is the argument, so that two checkouts' clients compare with one
// server: node bench/js/client-apply.mjs [CLIENT_JS_DIR] (default: this checkout's client-js;
// needs its dev dependencies: cd client-js && npm ci).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const clientJs = path.join(here, '../../client-js');
const WebSocket = createRequire(path.join(clientJs, 'package.json'))('ws');
const { startFakeServer } = await import(pathToFileURL(path.join(clientJs, 'test/fake-server.mjs')));
const dir = path.resolve(process.argv[2] ?? clientJs);
const { TablecastClient } = await import(pathToFileURL(path.join(dir, 'src/tablecast.js')));
const T = 'public.items';
const server = await startFakeServer();
const client = new TablecastClient({ url: server.url, WebSocket });
const m = client.mirror(T);
const conn = await server.nextConnection();
await conn.handshake({ epoch: 'E', position: 1 });
await conn.next('subscribe');
const cols = ['id', 'name', 'price', 'qty', 'updated'];
const rows = [];
for (let i = 0; i < 1000; i++) rows.push({ id: i, name: 'item ' + i, price: '1.00', qty: 1, updated: '2026-12-04T00:00:00Z' });
conn.snapshot(T, cols, ['id'], 1, rows);
await m.ready;
let n = 0;
m.addEventListener('change', () => n++);
const BATCHES = 4000, PER = 10;
const frames = [];
for (let b = 0; b < BATCHES; b++) {
  const changes = [];
  for (let j = 0; j < PER; j++) {
    const id = (b * PER + j) % 1000;
    changes.push({ table: T, op: 'UPDATE', key: [id], before: { id, name: 'item ' + id, price: '1.00', qty: b, updated: '2026-12-04T00:00:00Z' }, after: { id, name: 'item ' + id, price: '1.00', qty: b + 1, updated: '2026-12-04T00:00:01Z' } });
  }
  frames.push(JSON.stringify({ type: 'change_batch', position: b + 2, captureMillis: Date.now(), changes }));
}
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
for (const f of frames) conn.ws.send(f);
await new Promise((resolve) => { const tick = () => (m.position === BATCHES + 1 ? resolve() : setImmediate(tick)); tick(); });
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ dir, ms: ms.toFixed(0), cpuMs: ((cpu.user + cpu.system) / 1000).toFixed(0), events: n }));
client.close(); await server.close(); process.exit(0);

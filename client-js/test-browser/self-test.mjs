// Checks live-table.e2e.mjs and examples/web without the Java server: serves examples/web over
// HTTP and a scripted fake Tablecast server at /ws on the same port, then drives the e2e script.
//   node test-browser/self-test.mjs        (needs /usr/bin/chromium or $CHROMIUM)
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { startFakeServer, ins, upd, del } from '../test/fake-server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const webRoot = path.resolve(here, '../../examples/web');
const clientRoot = path.resolve(here, '../src');
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

// Like the server with static_dir = examples/web and static_client_dir = client-js/src.
const http = createServer(async (req, res) => {
  const p = new URL(req.url, 'http://x').pathname;
  const [root, rel] = p.startsWith('/client/') ? [clientRoot, p.slice('/client/'.length)] : [webRoot, p];
  const file = path.join(root, rel === '/' ? 'index.html' : rel);
  if (!file.startsWith(root + path.sep)) { res.writeHead(404).end(); return; }
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(body);
  } catch {
    res.writeHead(404).end('not found');
  }
});
await new Promise((r) => http.listen(0, '127.0.0.1', r));
const fake = await startFakeServer({ server: http });
const port = http.address().port;
const T = 'public.items';
const pageUrl = `http://127.0.0.1:${port}/index.html?table=${T}`;

const child = spawn(process.execPath, [path.join(here, 'live-table.e2e.mjs'), pageUrl], {
  stdio: ['pipe', 'pipe', 'inherit'],
  env: { ...process.env, EXPECT_TIMEOUT_MS: process.env.EXPECT_TIMEOUT_MS ?? '3000' },
});
const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
const exited = new Promise((r) => child.on('exit', r));
/** The page's connection, or an error at once when the driver exits first (e.g. no chromium). */
function pageConnection(timeoutMs) {
  return Promise.race([
    fake.nextConnection(timeoutMs),
    exited.then((code) => { throw new Error(`the e2e script exited with code ${code} before the page connected`); }),
  ]);
}
async function expectLine(want) {
  const { value, done } = await lines.next();
  if (done || value !== want) throw new Error(`e2e script said ${done ? '<eof>' : JSON.stringify(value)}, expected ${want}`);
}
async function send(cmd, want = 'OK') {
  child.stdin.write(`${cmd}\n`);
  await expectLine(want);
  console.log(`self-test: ${cmd} → ${want}`);
}

const cols = [{ name: 'id', dbType: 'int', kind: 'INTEGER' }, { name: 'name', dbType: 'text', kind: 'STRING' }, { name: 'price', dbType: 'numeric(10,2)', kind: 'DECIMAL' }];
try {
  let conn = await pageConnection(20_000);
  await conn.handshake({ epoch: 'E1', heartbeatMillis: 500 });
  const sub = await conn.next('subscribe');
  if (sub.tables[0] !== T) throw new Error(`subscribed to ${sub.tables}`);
  conn.snapshot(T, cols, ['id'], 1, [{ id: 1, name: 'apple', price: '1.20' }, { id: 2, name: 'pear', price: null }]);
  let pos = 1;
  const hb = setInterval(() => conn.batch(pos, []), 200);
  await expectLine('READY');
  await send('expect-row [1] name=apple');
  await send('expect-row [2] price=null');
  conn.batch(++pos, [ins(T, [3], { id: 3, name: 'big fig', price: '9.99' })]);
  await send('expect-row [3] name=big fig');
  conn.batch(++pos, [upd(T, [1], { id: 1, name: 'apple', price: '1.20' }, { id: 1, name: 'apple', price: '1.30' })]);
  await send('expect-row [1] price=1.30');
  conn.batch(++pos, [del(T, [2], { id: 2, name: 'pear', price: null })]);
  await send('expect-no-row [2]');
  // the server says the table may differ from its rows, then that it follows it again
  conn.send({ type: 'table_status', table: T, stale: true, reason: 'a row of public.items cannot be read' });
  await send('expect-text #message The rows may differ from the table: a row of public.items cannot be read');
  conn.send({ type: 'table_status', table: T, stale: false });
  await send('expect-text #live[data-stale="false"] apple');
  // server restart: an attempt closed before the welcome is told, then a new epoch, a fresh
  // snapshot with one difference
  clearInterval(hb);
  conn.kill();
  conn = await pageConnection(10_000);
  conn.ws.close(4000, 'not today');
  await send('expect-text #message closed the connection before the welcome (close code 4000: not today)');
  conn = await pageConnection(10_000);
  await conn.handshake({ epoch: 'E2', heartbeatMillis: 500 });
  await conn.next('subscribe');
  conn.snapshot(T, cols, ['id'], 0, [{ id: 1, name: 'apple', price: '1.30' }, { id: 3, name: 'fig', price: '9.99' }]);
  await send('expect-row [3] name=fig');
  await send(`expect-table ${JSON.stringify({ '[1]': { id: '1', price: '1.30' }, '[3]': { name: 'fig' } })}`);
  // a frozen tab: nothing renders until it thaws, then the buffered batch does
  pos = 0;
  const hb2 = setInterval(() => conn.batch(pos, []), 200);
  await send('freeze');
  conn.batch(++pos, [ins(T, [4], { id: 4, name: 'kiwi', price: '0.50' })]);
  await send('thaw');
  await send('expect-row [4] name=kiwi');
  clearInterval(hb2);
  child.stdin.write('expect-row [1] price=2.00\n'); // never happens: must fail (shortened timeout)
  await expectLine('QUIT-NOT-REACHED').catch((e) => {
    if (!/FAIL row \[1\] did not show price=2.00/.test(e.message)) throw e;
    console.log('self-test: unmet expectation → FAIL (as expected)');
  });
  const code = await exited;
  if (code !== 1) throw new Error(`e2e script exited ${code} after a failed expectation, expected 1`);
  console.log('self-test: PASS');
} catch (e) {
  console.error(`self-test: FAILED: ${e.message}`);
  process.exitCode = 1;
  child.kill();
} finally {
  await fake.close();
  http.close();
  process.exit(); // with process.exitCode; pending waits (e.g. a connection timeout) must not hold the exit
}

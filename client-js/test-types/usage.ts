// Compiled by `npm test` (tsc --noEmit --strict, see tsconfig.json here): the declarations must
// accept what the README shows and refuse what the JavaScript refuses. Never run.
import WebSocket from 'ws';
import {
  TablecastClient, TablecastError, TableMirror, rowKey,
  type ChangeDetail, type ConnectionState, type Row, type RowKey,
} from '@tablecast/client';

// Node: the `ws` package's WebSocket; browsers (and Node >= 22): the global one.
const node = new TablecastClient({ url: 'ws://localhost:7070/ws', WebSocket });
const browser = new TablecastClient({
  url: 'ws://localhost:7070/ws',
  WebSocket: globalThis.WebSocket,
  clientName: 'dashboard',
  token: 'jwt',
  backoff: { minMs: 500, maxMs: 30_000 },
  handshakeTimeoutMs: 10_000,
});
const plain = new TablecastClient({ url: 'ws://localhost:7070/ws', user: 'alice', password: 'secret' });
const refreshed = new TablecastClient({ url: 'ws://localhost:7070/ws', token: async () => 'fresh-jwt' });

// @ts-expect-error the url is required
new TablecastClient({ WebSocket });
// @ts-expect-error a WebSocket option must be a constructor
new TablecastClient({ url: 'ws://x/ws', WebSocket: {} });

// @ts-expect-error mirrors come from client.mirror(); `new TableMirror` throws
new TableMirror();
// @ts-expect-error and cannot be subclassed into existence either
class Sneaky extends TableMirror {}

async function tour(client: TablecastClient): Promise<void> {
  const items: TableMirror = client.mirror('public.items');
  const ready: TableMirror = await items.ready;
  const row: Row | undefined = ready.get(42) ?? ready.get('eu', 7) ?? ready.get(9007199254740993n);
  const byInstant: Row | undefined = ready.get(new Date(0), new Uint8Array([1]), new ArrayBuffer(2));
  void byInstant;
  const recent: readonly Row[] = ready.index('by_at', 'at', { sorted: true }).range({ from: new Date(0) });
  void recent;
  const name = row?.['name'];
  const keys: RowKey[] = [...items.rows.keys(), rowKey([1]), items.keyOf({ id: 1 })];
  items.addEventListener('change', (e) => {
    const d: ChangeDetail = e.detail;
    const op: 'INSERT' | 'UPDATE' | 'DELETE' = d.op;
    void op;
  });
  items.addEventListener('batch', (e) => {
    const changes: readonly ChangeDetail[] = e.detail.changes;
    void changes.length;
  });
  items.addEventListener('ready', (e) => void e.detail.size, { once: true, signal: new AbortController().signal });
  items.addEventListener('error', (e) => console.error(e.detail.code, e.detail.table, e.detail.message));
  items.addEventListener('schema', (e) => void [e.detail.version, e.detail.columns.map((c) => c.name)]);
  items.addEventListener('snapshotprogress', (e) => {
    const received: number = e.detail.rowsReceived;
    void [received, e.detail.rowsExpected, items.snapshotProgress.rowsExpected];
  });
  items.addEventListener('snapshotcut', (e) => {
    const inARow: number = e.detail.inARow;
    const lag: number = items.lagMillis;
    void [inARow, e.detail.rowsReceived, items.snapshotsCutShort, lag];
  });
  items.addEventListener('stale', (e) => {
    const stale: boolean = e.detail.stale;
    const why: string | null = e.detail.reason ?? items.stale;
    void stale;
    void why;
  });
  client.addEventListener('statechange', (e) => {
    const s: ConnectionState = e.detail.state;
    void s;
  });
  client.checkLiveness();
  await client.sync(); // read-your-writes
  await client.sync({ timeoutMs: 2_000 });
  // @ts-expect-error the timeout is a number of milliseconds
  await client.sync({ timeoutMs: '2s' });
  void [name, keys, items.size, items.columns[0]?.kind, items.primaryKey, items.position, items.epoch];
  // @ts-expect-error rows are read-only
  items.rows.set('[1]', {});
  client.close();
}

const fromServer = new TablecastError('server refused subscription', { code: 'UNKNOWN_TABLE', table: 'public.x' });
const local = new TablecastError('client closed');
const code: string | null = fromServer.code;
// @ts-expect-error code is a string or null, not a number
new TablecastError('m', { code: 42 });

void [node, browser, plain, refreshed, tour, local, code, Sneaky];

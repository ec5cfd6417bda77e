// A scripted Tablecast server for tests: a WebSocket endpoint at /ws speaking the JSON messages.
import { WebSocketServer } from 'ws';

export class FakeConnection {
  constructor(ws) {
    this.ws = ws;
    this.received = [];
    this.waiters = [];
    this.closed = new Promise((resolve) => ws.on('close', resolve));
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      this.received.push(msg);
      this.#wake();
    });
  }

  #wake() {
    for (const w of [...this.waiters]) {
      const i = this.received.findIndex((m) => m.type === w.type && !m.taken);
      if (i >= 0) {
        this.received[i].taken = true;
        this.waiters.splice(this.waiters.indexOf(w), 1);
        clearTimeout(w.timer);
        const { taken, ...msg } = this.received[i];
        w.resolve(msg);
      }
    }
  }

  /** The next not yet consumed message of this type from the client. */
  next(type, timeoutMs = 3000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} from client within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ type, resolve, timer });
      this.#wake();
    });
  }

  send(msg) {
    this.ws.send(JSON.stringify(msg));
  }

  /** Reads hello, answers welcome, returns the hello. */
  async handshake({ epoch = 'epoch-1', position = 0, heartbeatMillis = 60_000, protocolVersion = 5 } = {}) {
    const hello = await this.next('hello');
    this.send({ type: 'welcome', protocolVersion, serverName: 'fake', epoch, position, heartbeatMillis });
    return hello;
  }

  snapshot(table, columns, primaryKey, position, rows) {
    const cols = columns.map((c) => (typeof c === 'string' ? columnOf(c, rows[0]?.[c]) : c));
    this.send({ type: 'snapshot_begin', table, columns: cols, primaryKey, position, rowCount: rows.length });
    for (let i = 0; i < rows.length; i += 2) {
      this.send({ type: 'snapshot_rows', table, rows: rows.slice(i, i + 2) });
    }
    this.send({ type: 'snapshot_end', table, position });
  }

  batch(position, changes, captureMillis = Date.now()) {
    this.send({ type: 'change_batch', position, captureMillis: changes.length ? captureMillis : 0, changes });
  }

  /** A batch too large for one frame: one `change_part` per element of `parts`, then the final `change_batch`. */
  batchInParts(position, parts, last, captureMillis = Date.now()) {
    for (const changes of parts) this.send({ type: 'change_part', position, changes });
    this.batch(position, last, captureMillis);
  }

  /** Kills the TCP connection without a close handshake. */
  kill() {
    this.ws.terminate();
  }
}

/** Starts on a free port, or on an existing (listening) http.Server as its /ws path. */
export async function startFakeServer({ server } = {}) {
  const wss = server ? new WebSocketServer({ server, path: '/ws' }) : new WebSocketServer({ port: 0, path: '/ws' });
  if (!server) await new Promise((resolve) => wss.on('listening', resolve));
  const port = (server ?? wss).address().port;
  const queue = [];
  const waiters = [];
  const all = [];
  wss.on('connection', (ws) => {
    const c = new FakeConnection(ws);
    all.push(c);
    const w = waiters.shift();
    if (w) w(c);
    else queue.push(c);
  });
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    connections: all,
    nextConnection(timeoutMs = 5000) {
      const c = queue.shift();
      if (c) return Promise.resolve(c);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
        waiters.push((conn) => {
          clearTimeout(timer);
          resolve(conn);
        });
      });
    },
    async close() {
      for (const c of all) c.ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
    },
  };
}

/** Collects `change` events of a mirror. */
export function recordChanges(mirror) {
  const events = [];
  mirror.addEventListener('change', (e) => events.push(e.detail));
  return events;
}

export function until(predicate, timeoutMs = 3000, what = 'condition') {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      let v;
      try {
        v = predicate();
      } catch (e) {
        reject(e);
        return;
      }
      if (v) resolve(v);
      else if (Date.now() - start > timeoutMs) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(tick, 5);
    };
    tick();
  });
}

export const ins = (table, key, after) => ({ table, op: 'INSERT', key, after });
export const upd = (table, key, before, after) => ({ table, op: 'UPDATE', key, before, after });
export const del = (table, key, before) => ({ table, op: 'DELETE', key, before });

/** A column named `name` of the kind of `value`, as a server would declare it: a number, a boolean, else text. */
function columnOf(name, value) {
  if (Number.isInteger(value)) return { name, dbType: 'bigint', kind: 'INTEGER' };
  if (typeof value === 'number') return { name, dbType: 'double precision', kind: 'FLOAT' };
  if (typeof value === 'boolean') return { name, dbType: 'boolean', kind: 'BOOLEAN' };
  return { name, dbType: 'text', kind: 'STRING' };
}

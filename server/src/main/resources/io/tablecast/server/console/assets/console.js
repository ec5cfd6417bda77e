// The Tablecast operations console: polls the server's /console/api/ and renders it. Read-only.
// Served from the server's jar with charts.js and console.css; fetches nothing from elsewhere.
import { drawLineChart } from './charts.js';

const API = '/console/api/';
const WINDOW_MS = 120_000; // what the charts show
const HISTORY = 200; // readings kept for the charts

const $ = (id) => document.getElementById(id);
const readings = []; // metrics readings, oldest first
let refused = false;

// ---------- formatting ----------

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

function number(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  return Math.abs(v) >= 100 || Number.isInteger(v) ? integer.format(v) : decimal.format(v);
}

function bytes(v) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${i === 0 ? integer.format(v) : decimal.format(v)} ${units[i]}`;
}

function duration(ms) {
  if (ms === null || ms === undefined || ms < 0) return '–';
  if (ms < 1000) return `${integer.format(ms)} ms`;
  const s = ms / 1000;
  if (s < 120) return `${decimal.format(s)} s`;
  if (s < 7200) return `${integer.format(s / 60)} min`;
  if (s < 172800) return `${decimal.format(s / 3600)} h`;
  return `${decimal.format(s / 86400)} d`;
}

function ago(epochMs, now) {
  return epochMs > 0 ? `${duration(now - epochMs)} ago` : 'none since start';
}

function clock(epochMs) {
  return new Date(epochMs).toLocaleTimeString('en-GB', { hour12: false });
}

// ---------- DOM helpers (text only: every value from the server goes in as text) ----------

function cell(row, text, { col, cls, title } = {}) {
  const td = document.createElement('td');
  td.textContent = text;
  if (col) td.dataset.col = col;
  if (cls) td.className = cls;
  if (title) td.title = title;
  row.append(td);
  return td;
}

function facts(dl, entries) {
  dl.replaceChildren();
  for (const [term, value, key] of entries) {
    const div = document.createElement('div');
    const dt = document.createElement('dt');
    const dd = document.createElement('dd');
    dt.textContent = term;
    dd.textContent = value;
    if (key) dd.dataset.fact = key;
    div.append(dt, dd);
    dl.append(div);
  }
}

function showMessage(text, state) {
  const m = $('message');
  m.textContent = text;
  m.dataset.state = state;
  m.hidden = !text;
}

function setStatus(text, state) {
  const s = $('status');
  s.textContent = text;
  s.dataset.state = state;
}

// ---------- fetching ----------

async function get(name) {
  const r = await fetch(API + name, { cache: 'no-store', headers: { Accept: 'application/json' } });
  let body = null;
  try {
    body = await r.json();
  } catch {
    // not JSON: the status says enough
  }
  if (r.status === 401 || r.status === 403) {
    refused = true;
    showMessage(body?.error ?? `refused (${r.status})`, 'refused');
    document.body.dataset.refused = String(r.status);
    throw new Error(`refused: ${r.status}`);
  }
  if (!r.ok) throw new Error(body?.error ?? `${name}: HTTP ${r.status}`);
  return body;
}

// ---------- rendering ----------

function renderServer(s) {
  $('server-name').textContent = s.serverName;
  const health = $('health');
  health.textContent = s.health;
  health.dataset.state = s.health.startsWith('UP') ? 'up' : 'down';
  $('position').textContent = integer.format(s.position);
  $('uptime').textContent = duration(s.takenMillis - s.startedMillis);
  $('epoch').textContent = s.epoch.slice(0, 8);
  $('epoch').title = s.epoch;
  $('viewer').textContent = `${s.viewer} (${s.access})`;
  $('card-stale').textContent = integer.format(s.staleTables);
  $('card-stale').dataset.alert = String(s.staleTables > 0);
  $('errors-count').textContent = s.errors + s.warnings > 0 ? number(s.errors + s.warnings) : '';
  document.title = `Tablecast ${s.serverName}`;
}

function renderTables(body) {
  const now = body.takenMillis;
  const tbody = $('tables-grid').tBodies[0];
  tbody.replaceChildren();
  for (const t of body.tables) {
    const tr = document.createElement('tr');
    tr.dataset.table = t.name;
    cell(tr, t.name, { col: 'name', title: `key (${t.primaryKey.join(', ')}), ${t.columns} columns` });
    cell(tr, integer.format(t.rows), { col: 'rows', cls: 'num' });
    cell(tr, bytes(t.bytes), { col: 'bytes', cls: 'num', title: `rows ${bytes(t.rowBytes)} + index ${bytes(t.indexBytes)}` });
    cell(tr, String(t.version), { col: 'version', cls: 'num' });
    cell(tr, t.lastChangePosition > 0 ? integer.format(t.lastChangePosition) : '–', { col: 'position', cls: 'num' });
    cell(tr, t.captureLagMillis >= 0 ? duration(t.captureLagMillis) : '–', { col: 'lag', cls: 'num' });
    cell(tr, ago(t.lastAppliedMillis, now), { col: 'changed' });
    const state = t.stale ? 'stale' : t.invalid ? 'being re-read' : 'followed';
    const st = cell(tr, state, { col: 'state', cls: `state ${t.stale ? 'bad' : 'good'}` });
    if (t.staleReason) {
      const reason = document.createElement('div');
      reason.className = 'reason';
      reason.textContent = t.staleReason;
      st.append(reason);
    }
    cell(tr, number(t.repairs), { col: 'repairs', cls: 'num' });
    cell(tr, number(t.resyncs), { col: 'resyncs', cls: 'num' });
    tbody.append(tr);
  }
  $('tables-count').textContent = String(body.tables.length);
}

function renderSessions(body) {
  const now = body.takenMillis;
  const tbody = $('sessions-grid').tBodies[0];
  tbody.replaceChildren();
  for (const s of body.sessions) {
    const tr = document.createElement('tr');
    tr.dataset.client = s.clientName;
    cell(tr, s.clientName, { col: 'client' });
    cell(tr, s.principal, { col: 'principal' });
    cell(tr, s.remoteAddress, { col: 'address' });
    cell(tr, s.transport + (s.tls ? ' + TLS' : ''), { col: 'transport' });
    cell(tr, s.tables.length ? s.tables.join(', ') : '(none yet)', { col: 'tables' });
    cell(tr, bytes(s.queuedBytes), { col: 'queued', cls: 'num' });
    cell(tr, s.coalescedKeys ? `${integer.format(s.coalescedKeys)} keys, ${bytes(s.coalescedBytes)}` : '–', { col: 'coalesced', cls: 'num' });
    cell(tr, duration(s.lastWriteAgoMillis), { col: 'lastWrite', cls: 'num' });
    cell(tr, duration(s.deliveryLagMillis), { col: 'lag', cls: `num ${s.deliveryLagMillis >= 1000 ? 'bad' : ''}` });
    cell(tr, s.state, { col: 'state', cls: `state ${s.state === 'ok' ? 'good' : 'bad'}` });
    cell(tr, ago(s.connectedMillis, now), { col: 'connected' });
    tbody.append(tr);
  }
  $('sessions-count').textContent = String(body.sessions.length);
}

function renderErrors(body) {
  $('errors-totals').textContent =
    `${integer.format(body.errors)} ERROR and ${integer.format(body.warnings)} WARN lines since the start; the last ${body.capacity} are kept, newest first.`;
  const list = $('events');
  list.replaceChildren();
  for (const e of body.events) {
    const li = document.createElement('li');
    li.dataset.level = e.level;
    const head = document.createElement('div');
    head.className = 'event-head';
    head.textContent = `${clock(e.timeMillis)}  ${e.level}  ${e.logger.split('.').pop()}  [${e.thread}]`;
    const msg = document.createElement('div');
    msg.className = 'event-message';
    msg.textContent = e.message + (e.error ? ` — ${e.error}` : '');
    li.append(head, msg);
    list.append(li);
  }
}

/** Rate of a total between the last two readings, per second; null without two readings. */
function rate(select, a, b) {
  const dt = (b.time - a.time) / 1000;
  return dt > 0 ? Math.max(0, (select(b) - select(a)) / dt) : null;
}

function renderMetrics(m) {
  readings.push(m);
  if (readings.length > HISTORY) readings.shift();
  const prev = readings.length > 1 ? readings[readings.length - 2] : null;
  const changesPerSecond = prev ? rate((r) => r.changes, prev, m) : null;
  $('card-changes').textContent = number(changesPerSecond);
  $('card-lag').textContent = m.lag.p99Millis !== undefined && m.lag.count > 0 ? duration(m.lag.p99Millis) : '–';
  $('card-clients').textContent = integer.format(m.clients);
  $('card-backlog').textContent = integer.format(m.outbox.backlog);
  $('card-repairs').textContent = integer.format(m.reconcile.repairs);
  $('card-repairs').dataset.alert = String(m.reconcile.repairs > 0);

  const throughput = [
    { name: 'changes/s', color: '#1f6feb', points: [] },
    { name: 'batches/s', color: '#8957e5', dashed: true, points: [] },
  ];
  const latency = [
    { name: 'mean', color: '#2da44e', points: [] },
    { name: 'p99 (recent)', color: '#d1242f', points: [] },
  ];
  for (let i = 1; i < readings.length; i++) {
    const a = readings[i - 1];
    const b = readings[i];
    throughput[0].points.push({ t: b.time, v: rate((r) => r.changes, a, b) });
    throughput[1].points.push({ t: b.time, v: rate((r) => r.batches, a, b) });
    const dc = b.lag.count - a.lag.count;
    latency[0].points.push({ t: b.time, v: dc > 0 ? (b.lag.totalMillis - a.lag.totalMillis) / dc : null });
    latency[1].points.push({ t: b.time, v: b.lag.count > 0 ? b.lag.p99Millis ?? null : null });
  }
  // the last two minutes, or since the page opened (at least 30 s) while it has less
  const windowMs = Math.min(WINDOW_MS, Math.max(30_000, m.time - readings[0].time));
  drawLineChart($('chart-throughput'), throughput, { windowMs, now: m.time, format: number });
  drawLineChart($('chart-latency'), latency, { windowMs, now: m.time, format: number });

  const o = m.outbox;
  facts($('outbox'), [
    ['backlog (committed, not yet read)', integer.format(o.backlog), 'backlog'],
    ...(o.gaps !== undefined ? [['open id gaps', integer.format(o.gaps), 'gaps']] : []),
    ['rows read by the tail', integer.format(o.rowsRead), 'rowsRead'],
    ['rows pruned', integer.format(o.pruned), 'pruned'],
    ['pruned / s', number(prev ? rate((r) => r.outbox.pruned, prev, m) : null), 'prunedRate'],
    ['changes in the last poll', integer.format(m.tail.pollChanges), 'pollChanges'],
    ['last poll that found nothing more', `${duration(m.tail.caughtUpAgeSeconds * 1000)} ago`, 'caughtUp'],
  ]);
  const p = m.problems;
  facts($('reconciliation'), [
    ['reconciliation passes', integer.format(m.reconcile.runs), 'runs'],
    ['rows repaired', integer.format(m.reconcile.repairs), 'repairs'],
    ['stale triggers found', integer.format(m.reconcile.staleTriggers), 'staleTriggers'],
    ['tables re-read', integer.format(p.resyncs), 'resyncs'],
    ['image errors', integer.format(p.imageErrors), 'imageErrors'],
    ['rows refused', integer.format(p.rowsRefused), 'rowsRefused'],
    ['capture problems', integer.format(p.captureProblems), 'captureProblems'],
    ['rows sharing a key, not in mirrors', integer.format(p.duplicateKeyRows ?? 0), 'duplicateKeyRows'],
  ]);
  const tbody = $('repairs-by-table').tBodies[0];
  tbody.replaceChildren();
  for (const [table, c] of Object.entries(m.byTable)) {
    if (!c.repairs) continue;
    const tr = document.createElement('tr');
    cell(tr, table);
    cell(tr, integer.format(c.repairs), { cls: 'num' });
    cell(tr, integer.format(c.reconcileRuns ?? 0), { cls: 'num' });
    tbody.append(tr);
  }
  const s = m.sessions;
  facts($('session-facts'), [
    ['connected', integer.format(m.clients), 'clients'],
    ['snapshots served', integer.format(s.snapshotsServed), 'snapshotsServed'],
    ['resumed without a snapshot', integer.format(s.resumes), 'resumes'],
    ['closed as slow consumers', integer.format(s.slowConsumers), 'slowConsumers'],
    ['changes coalesced', integer.format(s.coalescedChanges), 'coalesced'],
    ['authentication failures', integer.format(s.authFailures), 'authFailures'],
    ['refused by a limit', integer.format(s.limitRefusals), 'limitRefusals'],
  ]);
}

// ---------- tabs ----------

function selectTab(name) {
  for (const b of document.querySelectorAll('#tabs [data-tab]')) {
    const on = b.dataset.tab === name;
    b.setAttribute('aria-selected', String(on));
    $(b.dataset.tab).hidden = !on;
  }
  if (location.hash !== `#${name}`) history.replaceState(null, '', `#${name}`);
}

// ---------- polling ----------

let tick = 0;

async function poll() {
  const n = tick++;
  const work = [get('metrics').then(renderMetrics)];
  if (n % 2 === 0) {
    work.push(get('server').then(renderServer), get('tables').then(renderTables), get('sessions').then(renderSessions));
  }
  if (n % 5 === 0) work.push(get('errors').then(renderErrors));
  const results = await Promise.allSettled(work);
  const failed = results.find((r) => r.status === 'rejected');
  if (refused) {
    setStatus('refused', 'refused');
  } else if (failed) {
    setStatus(`last update failed: ${failed.reason.message}`, 'failing');
  } else {
    showMessage('', '');
    setStatus(`updated ${clock(Date.now())}`, 'live');
    document.body.dataset.ready = 'true';
  }
}

function start() {
  for (const b of document.querySelectorAll('#tabs [data-tab]')) {
    b.addEventListener('click', () => selectTab(b.dataset.tab));
  }
  const initial = location.hash.slice(1);
  selectTab(['overview', 'tables', 'sessions', 'errors'].includes(initial) ? initial : 'overview');
  const loop = async () => {
    await poll();
    setTimeout(loop, refused ? 10_000 : 1_000);
  };
  loop();
}

start();

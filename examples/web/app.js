// Live HTML table of one Tablecast table: index.html?table=schema.table
// DOM hooks (stable, for tests): <table id="live" data-ready="true|false">,
// <tr data-key="KEY"> per row (KEY = JSON of the primary-key values, e.g. [1] or ["eu",7]),
// <td data-col="COLUMN"> per cell, #status[data-state] = connection state.
// The client module comes from the server's /client/ path (static_client_dir = client-js/src).
import { TablecastClient } from '/client/tablecast.js';

const params = new URLSearchParams(location.search);
const tableName = params.get('table');
const wsUrl = params.get('ws') ?? `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;

const $ = (sel) => document.querySelector(sel);
const status = $('#status');
const message = $('#message');
const table = $('#live');
const thead = table.querySelector('thead tr');
const tbody = table.querySelector('tbody');
const count = $('#count');

function setStatus(state, text = state) {
  status.dataset.state = state;
  status.textContent = text;
}

function showMessage(text) {
  message.textContent = text;
}

if (!tableName) {
  setStatus('error', 'no table');
  showMessage('Add ?table=schema.table to the URL.');
} else {
  start(tableName);
}

function cellText(value) {
  if (value === null || value === undefined) return 'null';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function fillRow(tr, mirror, row) {
  for (const col of mirror.columns) {
    let td = tr.querySelector(`td[data-col="${CSS.escape(col.name)}"]`);
    if (!td) {
      td = document.createElement('td');
      td.dataset.col = col.name;
      tr.appendChild(td);
    }
    const v = row[col.name];
    td.textContent = cellText(v);
    td.classList.toggle('null', v === null);
  }
}

function flash(tr) {
  tr.classList.remove('changed');
  void tr.offsetWidth; // restart the animation
  tr.classList.add('changed');
}

function rowElement(key) {
  return tbody.querySelector(`tr[data-key="${CSS.escape(key)}"]`);
}

function start(name) {
  document.title = `${name} · Tablecast`;
  $('#title').textContent = name;
  const client = new TablecastClient({ url: wsUrl, clientName: 'web-example' });
  const mirror = client.mirror(name);
  // #message says why the page may not show the table as it is now: the table refused, the
  // rows possibly stale (and why), the last failed attempt while not connected
  const problems = { refused: '', stale: '', connection: '' };
  const explain = () => showMessage([problems.refused, problems.stale, problems.connection].filter(Boolean).join('\n'));
  client.addEventListener('statechange', (e) => {
    setStatus(mirror.failed ? 'error' : e.detail.state, mirror.failed ? 'error' : e.detail.state);
    if (e.detail.state === 'connected') {
      problems.connection = '';
      explain();
    }
  });
  client.addEventListener('error', (e) => {
    console.warn('tablecast:', e.detail.message);
    if (client.state !== 'connected') {
      problems.connection = e.detail.message;
      explain();
    }
  });
  mirror.addEventListener('stale', (e) => {
    table.dataset.stale = String(e.detail.stale);
    problems.stale = e.detail.stale ? `The rows may differ from the table: ${e.detail.reason}` : '';
    explain();
  });

  const updateCount = () => {
    count.dataset.count = String(mirror.size);
    count.textContent = `${mirror.size} rows`;
  };

  const renderAll = () => {
    thead.replaceChildren(...mirror.columns.map((c) => {
      const th = document.createElement('th');
      th.textContent = c.name;
      th.title = `${c.dbType} (${c.kind})`;
      th.dataset.col = c.name;
      return th;
    }));
    const trs = [];
    for (const [key, row] of mirror.rows) {
      const tr = document.createElement('tr');
      tr.dataset.key = key;
      fillRow(tr, mirror, row);
      trs.push(tr);
    }
    tbody.replaceChildren(...trs);
    table.hidden = false;
    table.dataset.ready = 'true';
    updateCount();
  };

  mirror.addEventListener('ready', () => renderAll());
  // ALTER TABLE while the page is open: new headers and cells, before the rows in the new layout
  mirror.addEventListener('schema', () => renderAll());
  mirror.addEventListener('error', (e) => {
    if (!mirror.failed) return; // refused after it was served: it stays, and `stale` says why
    setStatus('error', 'error');
    problems.refused = e.detail.message;
    explain();
  });
  mirror.addEventListener('change', (e) => {
    const { op, key, newRow } = e.detail;
    let tr = rowElement(key);
    if (op === 'DELETE') {
      if (tr) {
        // removed from the DOM at once (tests see it gone); a faded ghost would confuse them
        tr.remove();
      }
    } else {
      if (!tr) {
        tr = document.createElement('tr');
        tr.dataset.key = key;
        tbody.appendChild(tr);
      }
      if (thead.children.length !== mirror.columns.length) renderAll();
      fillRow(tr, mirror, newRow);
      flash(tr);
    }
    updateCount();
  });
  window.tablecast = { client, mirror }; // for debugging in the console
}

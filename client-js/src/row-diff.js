// The `change` events a mirror fires: what differs between its rows before and after a batch or a
// re-snapshot. Internal module, used by table-mirror.js.

import { jsonEqual } from './json-values.js';

/**
 * The events of one batch: `before` maps each key the batch touched to its row before the batch
 * (undefined: absent), `rows` holds the rows after it. Rows put back as they were fire nothing.
 */
export function batchEvents(before, rows) {
  const events = [];
  for (const [key, oldRow] of before) {
    const newRow = rows.get(key);
    if (oldRow === undefined && newRow === undefined) continue;
    if (oldRow === undefined) events.push({ op: 'INSERT', key, oldRow, newRow });
    else if (newRow === undefined) events.push({ op: 'DELETE', key, oldRow, newRow });
    else if (!jsonEqual(oldRow, newRow)) events.push({ op: 'UPDATE', key, oldRow, newRow });
  }
  return events;
}

/**
 * The events from a mirror's `rows` to a re-snapshot's `fresh` rows; a row that did not change
 * keeps its identity (the old object is put into `fresh`).
 */
export function snapshotEvents(rows, fresh) {
  const events = [];
  for (const [key, oldRow] of rows) {
    const newRow = fresh.get(key);
    if (newRow === undefined) {
      events.push({ op: 'DELETE', key, oldRow, newRow: undefined });
    } else if (jsonEqual(oldRow, newRow)) {
      fresh.set(key, oldRow);
    } else {
      events.push({ op: 'UPDATE', key, oldRow, newRow });
    }
  }
  for (const [key, newRow] of fresh) {
    if (!rows.has(key)) events.push({ op: 'INSERT', key, oldRow: undefined, newRow });
  }
  return events;
}

// useTable(client, 'public.products'): a live table as React state, built only on the public API
// of @tablecast/client (client.mirror, the mirror's events and properties, the client's
// statechange and error). Copy this file into your application; it has no other dependency than React.
import { useMemo, useSyncExternalStore } from 'react';
import type {
  ColumnInfo,
  ConnectionState,
  Row,
  RowKey,
  TablecastClient,
  TablecastError,
  TableMirror,
} from '@tablecast/client';

/** What a component renders from: replaced as a whole whenever something in it changed. */
export interface LiveTable {
  /** `loading` until the first snapshot is applied, `ready` after, `failed` if the server refused the table. */
  status: 'loading' | 'ready' | 'failed';
  /** The connection: `connecting`, `connected`, `disconnected` (rows stay, it retries), `closed`. */
  connection: ConnectionState;
  /** Rows by key (JSON of the primary-key values, e.g. `[42]`), in the mirror's order. */
  rows: ReadonlyMap<RowKey, Row>;
  columns: readonly ColumnInfo[];
  primaryKey: readonly string[];
  /** Why the rows may differ from the table, as the server says; null while it follows it. */
  stale: string | null;
  /** The stream position the rows are at (grows with every transaction applied), -1 before the first snapshot. */
  position: number;
  /** Why the server refused the table (`error.code`, e.g. `UNKNOWN_TABLE`); null otherwise. */
  error: TablecastError | null;
  /**
   * While not connected, why the last attempt failed or the connection ended, as the client's
   * `error` event said it (`cannot connect to ws://h:7070/ws: ...`); null while connected.
   */
  connectionError: string | null;
  /** The mirror itself, for `get(...key)` and `keyOf(row)`. */
  mirror: TableMirror;
}

/** `batch`, not `change`: one new snapshot (a copy of the rows) per applied batch, not per row. */
const MIRROR_EVENTS = ['ready', 'batch', 'schema', 'stale', 'error'] as const;

/** One store per mirror and client, shared by every component that shows the table. */
class LiveTableStore {
  private snapshot: LiveTable | null = null;
  /** The server run the snapshot's position belongs to (positions start over after a restart). */
  private snapshotEpoch: string | null = null;
  /** The client's last connection-level error while not connected; null once connected. */
  private connectionError: string | null = null;

  constructor(
    private readonly client: TablecastClient,
    private readonly mirror: TableMirror,
  ) {}

  readonly subscribe = (onStoreChange: () => void): (() => void) => {
    const changed = (): void => {
      this.snapshot = null; // taken again on the next render
      onStoreChange();
    };
    const stateChanged = (): void => {
      if (this.client.state === 'connected') this.connectionError = null;
      changed();
    };
    const failed = (e: CustomEvent<TablecastError>): void => {
      if (this.client.state === 'connected') return; // told by the mirror's own events
      this.connectionError = e.detail.message;
      changed();
    };
    for (const type of MIRROR_EVENTS) this.mirror.addEventListener(type, changed);
    this.client.addEventListener('statechange', stateChanged);
    this.client.addEventListener('error', failed);
    return () => {
      for (const type of MIRROR_EVENTS) this.mirror.removeEventListener(type, changed);
      this.client.removeEventListener('statechange', stateChanged);
      this.client.removeEventListener('error', failed);
    };
  };

  readonly getSnapshot = (): LiveTable => {
    if (this.snapshot === null || !this.isCurrent(this.snapshot)) {
      const m = this.mirror;
      this.snapshotEpoch = m.epoch;
      this.snapshot = {
        status: m.failed ? 'failed' : m.isReady ? 'ready' : 'loading',
        connection: this.client.state,
        // the mirror updates its Map in place; React needs a new value to see a change
        rows: new Map(m.rows),
        columns: m.columns,
        primaryKey: m.primaryKey,
        stale: m.stale,
        error: m.error,
        connectionError: this.connectionError,
        position: m.position,
        mirror: m,
      };
    }
    return this.snapshot;
  };

  /** Also catches what happened between the first render and subscribe (no event seen then). */
  private isCurrent(s: LiveTable): boolean {
    const m = this.mirror;
    return (
      s.connection === this.client.state &&
      s.status === (m.failed ? 'failed' : m.isReady ? 'ready' : 'loading') &&
      s.position === m.position &&
      this.snapshotEpoch === m.epoch &&
      s.columns === m.columns &&
      s.stale === m.stale &&
      s.error === m.error &&
      s.connectionError === this.connectionError
    );
  }
}

const stores = new WeakMap<TableMirror, LiveTableStore>();

/**
 * The live content of `table` (`schema.table`) on `client`: re-renders the component after every
 * whole transaction the server pushes (never half of one), on schema changes, stale reports and
 * connection changes. The mirror stays subscribed for the client's lifetime (`client.mirror`
 * returns the same one to every caller), so a component that comes back renders at once.
 */
export function useTable(client: TablecastClient, table: string): LiveTable {
  const mirror = useMemo(() => client.mirror(table), [client, table]);
  let store = stores.get(mirror);
  if (store === undefined) {
    store = new LiveTableStore(client, mirror);
    stores.set(mirror, store);
  }
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}

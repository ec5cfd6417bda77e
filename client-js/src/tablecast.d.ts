// Type declarations for @tablecast/client. See README.md and docs/PROTOCOL.md, docs/TYPES.md.

/**
 * A column value as sent by the server (docs/TYPES.md):
 * - INTEGER: `number`; a value beyond ±2^53 (Number.MAX_SAFE_INTEGER) as its exact decimal
 *   `string` ("18446744073709551615"), since a number would hold the nearest double. Lookups
 *   (`get`, index `get`/`range`) take such a value as that string or as a `bigint`.
 * - DECIMAL: `string` with the column's scale (`"12.3400"`), exact.
 * - FLOAT: `number`; PostgreSQL NaN/±Infinity as the strings `"NaN"`, `"Infinity"`, `"-Infinity"`.
 * - BOOLEAN: `boolean`; STRING, DATE, TIME, TIMESTAMP, TIMESTAMP_TZ: `string` (ISO forms);
 *   BINARY: base64 `string`; JSON: the embedded JSON value.
 * - SQL NULL: `null`.
 */
export type ColumnValue = JsonValue;
/** A value given to a lookup (`get`, an index's `get` and `range`): a column value, or a `bigint`
 * for an INTEGER column (one beyond ±2^53 is found as its decimal text). */
export type LookupValue = ColumnValue | bigint;
/** A primary-key part given to `TableMirror.get`: a lookup value, or a `Date` for a TIMESTAMP_TZ
 * column and bytes for a BINARY one, found in the forms rows carry (as a decimal of another scale
 * and a date-time without its seconds are). */
export type KeyPart = LookupValue | Date | Uint8Array | ArrayBuffer;
/** A value or bound given to a secondary index: a lookup value, a `Date` for a TIMESTAMP_TZ
 * column, bytes for a BINARY one. */
export type IndexValue = LookupValue | Date | Uint8Array | ArrayBuffer;
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One row: column name → value, frozen (do not mutate). */
export type Row = Readonly<Record<string, ColumnValue>>;

export type ColumnKind =
  | 'INTEGER' | 'DECIMAL' | 'FLOAT' | 'BOOLEAN' | 'STRING' | 'BINARY'
  | 'DATE' | 'TIME' | 'TIMESTAMP' | 'TIMESTAMP_TZ' | 'JSON';

export interface ColumnInfo {
  name: string;
  /** The database's type name, e.g. `decimal(12,4)`. */
  dbType: string;
  kind: ColumnKind;
}

/**
 * The key of a row in {@link TableMirror.rows}: `JSON.stringify` of the primary-key values in
 * primary-key order, e.g. `'[42]'`, `'["eu",7]'`. Types matter: `[1]` and `["1"]` differ.
 */
export type RowKey = string;

export function rowKey(keyValues: readonly ColumnValue[]): RowKey;

/** A secondary index of a mirror (`mirror.index(...)`); lookups return the mirror's rows. */
export interface MirrorIndex {
  readonly name: string;
  readonly columns: readonly string[];
  readonly sorted: boolean;
  /** The rows whose indexed columns hold `key` (an array of values for several columns; `null`
   * finds rows whose value is NULL). */
  get(key: IndexValue | readonly IndexValue[]): readonly Row[];
  /** Sorted indexes: the rows within the bounds in key order (`from` inclusive and `to`
   * exclusive unless said otherwise; a missing bound is none; rows whose key holds a NULL are in
   * no range). A hash index throws a TypeError. */
  range(bounds?: {
    from?: IndexValue | readonly IndexValue[];
    to?: IndexValue | readonly IndexValue[];
    fromInclusive?: boolean;
    toInclusive?: boolean;
  }): readonly Row[];
  /** Sorted indexes: every row whose key holds no NULL, in key order. */
  ordered(): readonly Row[];
}

/** Where a client saves its mirrors for a warm restart: text by name, read back as written. */
export interface MirrorStore {
  /** The text saved under `name`, or null when there is none. */
  load(name: string): string | null;
  save(name: string, text: string): void;
}

/** A store of mirror files in `directory`, for Node: pass its `fs` module
 * (`import * as fs from 'node:fs'`). Files are written to a temporary file, synced, and renamed. */
export function fileStore(directory: string, fs: any): MirrorStore;

/** A listener for any event type: the DOM's `EventListenerOrEventListenerObject`, spelled out so
 * that Node projects without the DOM library (`lib: ["es2022"]`, `@types/node`) can use these
 * declarations. */
export type AnyEventListener = ((ev: Event) => void) | { handleEvent(ev: Event): void };
/** The DOM's `EventListenerOptions`, spelled out for the same reason. */
export interface RemoveListenerOptions { capture?: boolean }
/** The DOM's `AddEventListenerOptions`, spelled out for the same reason. */
export interface AddListenerOptions extends RemoveListenerOptions { once?: boolean; passive?: boolean; signal?: AbortSignal }

export type ChangeOp = 'INSERT' | 'UPDATE' | 'DELETE';

/**
 * Detail of a `change` event. Events fire after a whole batch (or a whole re-snapshot) is
 * applied, one per row whose content differs from before it (net effect: a row inserted and
 * deleted in the same batch fires nothing; an update that changes the primary key fires a
 * DELETE of the old key and an INSERT of the new one).
 */
export interface ChangeDetail {
  op: ChangeOp;
  key: RowKey;
  /** The row before (UPDATE, DELETE), else undefined. */
  oldRow: Row | undefined;
  /** The row after (INSERT, UPDATE), else undefined. */
  newRow: Row | undefined;
}

/**
 * Detail of a `batch` event, fired once per applied batch (one or more whole transactions) or
 * re-snapshot that changed the table, after its `change` events: the same changes, in their order,
 * for work done once per batch (a render, a total recomputed).
 */
export interface BatchDetail {
  readonly changes: readonly ChangeDetail[];
}

/** An error from the server (`code` = ErrorCode name such as `UNKNOWN_TABLE`) or the client. */
export class TablecastError extends Error {
  constructor(message: string, options?: { code?: string | null; table?: string | null });
  readonly name: 'TablecastError';
  /** The server's ErrorCode name, or null for client-side errors (timeouts, close). */
  readonly code: string | null;
  /** The table the error concerns, or null. */
  readonly table: string | null;
}

/** Detail of a mirror's `stale` event: whether it may differ from its table now, and why. */
export interface StaleDetail {
  readonly stale: boolean;
  /** What the server could not follow and what would repair it; null when it follows its table again. */
  readonly reason: string | null;
}

/** Detail of a mirror's `schema` event: the table's columns changed while served (`ALTER TABLE`). */
export interface SchemaDetail {
  /** The column list's version in this server run (1 at its start). */
  readonly version: number;
  readonly columns: readonly ColumnInfo[];
  readonly primaryKey: readonly string[];
}

/** How far a mirror's latest snapshot has come (`snapshotprogress` event, `snapshotProgress`). */
export interface SnapshotProgressDetail {
  /** Rows of the snapshot received so far. */
  readonly rowsReceived: number;
  /** Rows the server said the snapshot holds (rows changed meanwhile may make the two differ). */
  readonly rowsExpected: number;
}

/**
 * Detail of a `snapshotcut` event: the end of the connection cut the snapshot short (it is asked
 * for again on reconnect). Repeated (`inARow` growing), the server drops the client before it has
 * read the table: its `slow_consumer.snapshot_timeout` or `idle_timeout`, named in its log.
 */
export interface SnapshotCutDetail extends SnapshotProgressDetail {
  /** Snapshots of this table cut short since it was last in sync, this one included. */
  readonly inARow: number;
}

export interface TableMirrorEventMap {
  ready: CustomEvent<TableMirror>;
  snapshotprogress: CustomEvent<SnapshotProgressDetail>;
  snapshotcut: CustomEvent<SnapshotCutDetail>;
  change: CustomEvent<ChangeDetail>;
  batch: CustomEvent<BatchDetail>;
  error: CustomEvent<TablecastError>;
  stale: CustomEvent<StaleDetail>;
  schema: CustomEvent<SchemaDetail>;
}

/** A live copy of one table. Obtained from {@link TablecastClient.mirror}; `new` throws. */
export class TableMirror extends EventTarget {
  private constructor();
  /** The qualified table name, `schema.table`. */
  readonly table: string;
  /** Rows by {@link RowKey}. Read-only: do not modify the map or the rows. */
  readonly rows: ReadonlyMap<RowKey, Row>;
  readonly size: number;
  /** Columns in table order; empty until the first snapshot. */
  readonly columns: readonly ColumnInfo[];
  /** Primary-key column names in key order; empty until the first snapshot. */
  readonly primaryKey: readonly string[];
  /** Resolves with the mirror once the first snapshot (or resume) is applied; rejects when the
   * server refuses the table (e.g. `UNKNOWN_TABLE`), refuses the connection before then
   * (`AUTHENTICATION_FAILED`, ...), or the client is closed first. */
  readonly ready: Promise<TableMirror>;
  readonly isReady: boolean;
  /** True after the server refused this table; a failed mirror is never resubscribed
   * (call `client.mirror(table)` again for a new attempt). */
  readonly failed: boolean;
  readonly error: TablecastError | null;
  /** Why the mirror may differ from its table, as the server said; null while it follows it (`stale` event). */
  readonly stale: string | null;
  /** The stream position the rows are at (within {@link epoch}), -1 before the first snapshot. */
  readonly position: number;
  /** Rows received of the latest snapshot and rows it announced; both 0 before the first. */
  readonly snapshotProgress: SnapshotProgressDetail;
  /** Snapshots the end of the connection cut short since the mirror was created (`snapshotcut`). */
  readonly snapshotsCutShort: number;
  /** How long the last transaction applied took from its write in the database (the database's
   * clock, so a difference between the clocks counts in it) to this mirror, in ms, for a second
   * after it was applied; then 0 until the next: an idle table shows no lag. */
  readonly lagMillis: number;
  readonly epoch: string | null;
  /** The row with these primary-key values, in primary-key order: `get(42)`, `get('eu', 7)`.
   * Throws a TypeError when it finds nothing and no row can have the key (a part too few or too
   * many, or of another kind than its column's: `get('42')` for an INTEGER key). A part in another
   * form than its rows carry is found in theirs: `new Date(...)` for a TIMESTAMP_TZ, `1.5` or
   * `'1.5'` for a DECIMAL holding `'1.500'`, `'2026-10-25 02:30'` for a TIMESTAMP, bytes. */
  get(...keyParts: KeyPart[]): Row | undefined;
  /** The key string of a row of this table. */
  keyOf(row: Row): RowKey;
  /** The secondary index `name` on `columns` (one or several), created on first call: a hash
   * index, or with `{ sorted: true }` one that also ranges in key order. Kept inside each applied
   * batch, so it never disagrees with `rows`; values compare by the column's kind (numbers and
   * decimals by value, times as points in time, text by code unit). The same name with other
   * columns throws a TypeError. */
  index(name: string, columns: string | string[], options?: { sorted?: boolean }): MirrorIndex;

  addEventListener<K extends keyof TableMirrorEventMap>(
    type: K, listener: (ev: TableMirrorEventMap[K]) => void,
    options?: boolean | AddListenerOptions): void;
  addEventListener(type: string, listener: AnyEventListener | null,
    options?: boolean | AddListenerOptions): void;
  removeEventListener<K extends keyof TableMirrorEventMap>(
    type: K, listener: (ev: TableMirrorEventMap[K]) => void,
    options?: boolean | RemoveListenerOptions): void;
  removeEventListener(type: string, listener: AnyEventListener | null,
    options?: boolean | RemoveListenerOptions): void;
}

export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'disconnected' | 'closed';

export interface TablecastClientOptions {
  /** WebSocket URL of the server, e.g. `ws://localhost:7070/ws` (`wss://` behind TLS). */
  url: string;
  /** A name for the server's logs and metrics. */
  clientName?: string;
  /**
   * Credentials (`token`, or `user` and `password`), sent in `hello`; never logged by the client.
   * A function is asked for the token before each connection (a string, or a promise of one), so
   * that a reconnect after the last token expired sends a fresh one; when it throws or rejects,
   * that attempt is dropped and the next one, after the backoff, asks again.
   */
  token?: string | (() => string | Promise<string>);
  user?: string;
  password?: string;
  /**
   * A WebSocket constructor; default `globalThis.WebSocket`. Both the browser's `WebSocket` and
   * the `ws` package's fit. In Node < 22: `import WebSocket from 'ws'`.
   */
  WebSocket?: new (url: string, ...args: any[]) => WebSocketLike;
  /** Reconnect delay: random in [0, min(maxMs, minMs · 2^attempt)] (full jitter). Default 500 / 30000. */
  backoff?: { minMs?: number; maxMs?: number };
  /** Time from opening the socket to `welcome`, and from a wake-up liveness `ping` to an
   * answer, before giving up on the socket. Default 10000. */
  handshakeTimeoutMs?: number;
  /** Warm restart: mirrors saved through `store` on close and every `saveEveryMs` (default
   * 300000, at least 1000), and a mirror created later (by this process or the next) starts from
   * its saved rows: ready at once, stale until the server resumes it (or sends a snapshot, of
   * which only the differences fire `change`). A corrupt or foreign file is ignored and told by
   * the client's `error` event. */
  warmRestart?: { store: MirrorStore; saveEveryMs?: number };
}

/** The part of the WebSocket API the client uses (event handlers receive the platform's events). */
export interface WebSocketLike {
  send(data: string): void;
  close(): void;
  onopen: ((ev: any) => void) | null;
  onmessage: ((ev: any) => void) | null;
  onclose: ((ev: any) => void) | null;
  onerror: ((ev: any) => void) | null;
}

export interface TablecastClientEventMap {
  statechange: CustomEvent<{ state: ConnectionState }>;
  /** Connection-level problems, and the client reconnects: each attempt that ended before the
   * welcome, naming the URL and why (`cannot connect to ws://h:7070/ws: connection refused ...`);
   * a welcomed connection lost; fatal server errors; dead connections. */
  error: CustomEvent<TablecastError>;
}

/** The rows and columns a mirror holds of its table (README.md, "Subscription shapes"). */
export interface MirrorShape {
  /** A row filter, e.g. `region = ? AND price < ?`; every row when absent. */
  filter?: string;
  /** The values of the filter's `?` (in order) and `$n` parameters. */
  params?: Array<string | number | boolean>;
  /** The columns besides the primary key; all when absent. */
  columns?: string[];
}

export class TablecastClient extends EventTarget {
  constructor(options: TablecastClientOptions);
  readonly state: ConnectionState;
  /** The epoch of the current (or last) server session. */
  readonly epoch: string | null;
  /** The mirror of `schema.table` (one per table; repeated calls return the same object). With
   * a `shape`, it holds only the rows and columns the shape chooses, applied by the server; a
   * table has one shape per client (another throws a TypeError). */
  mirror(table: string, shape?: MirrorShape): TableMirror;
  /** Checks the connection now: reconnects at once if it is dead or waiting to retry, else sends
   * a `ping` and reconnects at once if nothing answers within `handshakeTimeoutMs`. Called
   * automatically on `visibilitychange` (visible), `pageshow`, `resume` and `online`; `offline`
   * drops the connection. */
  checkLiveness(): void;
  /** Read-your-writes: resolves once every mirror holds every change committed in the database
   * before the call. Rejects with a TablecastError when the server cannot answer (it serves from
   * a NATS stream, or is of a release without sync), after `timeoutMs` (default 10,000), or on
   * close. */
  sync(options?: { timeoutMs?: number }): Promise<void>;
  /** Saves every mirror that follows its table now, with `warmRestart` (also done on close and on
   * its schedule); does nothing without it. */
  save(): void;
  /** Closes for good (saving the mirrors first, with `warmRestart`): mirrors keep their rows but
   * stop updating. */
  close(): void;

  addEventListener<K extends keyof TablecastClientEventMap>(
    type: K, listener: (ev: TablecastClientEventMap[K]) => void,
    options?: boolean | AddListenerOptions): void;
  addEventListener(type: string, listener: AnyEventListener | null,
    options?: boolean | AddListenerOptions): void;
  removeEventListener<K extends keyof TablecastClientEventMap>(
    type: K, listener: (ev: TablecastClientEventMap[K]) => void,
    options?: boolean | RemoveListenerOptions): void;
  removeEventListener(type: string, listener: AnyEventListener | null,
    options?: boolean | RemoveListenerOptions): void;
}

export default TablecastClient;

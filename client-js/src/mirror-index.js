// Secondary indexes of a TableMirror: rows looked up, or ranged over in key order, by other
// columns than the primary key. Kept by the mirror inside each applied batch, before its `change`
// events fire, so a lookup never disagrees with `rows`. Internal module: `mirror.index(...)`
// creates them.
import { givenValue } from './json-values.js';
import { refuseUnknownOptions } from './option-names.js';

const RANGE_OPTIONS = ['from', 'to', 'fromInclusive', 'toInclusive'];

/** How values of a column kind order: numbers and decimals by value, times as points in time. */
function comparable(kind, v) {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case 'DATE':
    case 'TIMESTAMP':
    case 'TIMESTAMP_TZ':
      return dateTimeKey(String(v));
    case 'TIME':
      return timeKey(String(v));
    default:
      return v;
  }
}

/**
 * A text whose order is the time order of a date or date-time as the server sends it (docs/TYPES.md):
 * `-infinity` first and `infinity` last, a signed year of any length (ISO 8601's `-0043`, `+294276`,
 * PostgreSQL's `0044-... BC`, which is year -43) as a fixed-width number, the fraction of a second
 * padded (`30Z` before `30.5Z`). Any other text is its own key.
 */
function dateTimeKey(s) {
  if (s === '-infinity') return ' ';
  if (s === 'infinity') return '~';
  const m = /^([+-]?)(\d{4,})(-\d{2}-\d{2})(.*?)( BC)?$/.exec(s);
  if (!m) return s;
  const year = m[5] ? 1 - Number(m[2]) : m[1] === '-' ? -Number(m[2]) : Number(m[2]);
  // a date-time given with a space for the T, or without its seconds, is the one rows carry
  const time = m[4].replace(/^ (?=\d{2}:)/, 'T').replace(/^(T\d{2}:\d{2})(?!:)/, '$1:00')
    .replace(/(\d{2}:\d{2}:\d{2})(?:\.(\d+))?/, (x, hms, frac) => `${hms}.${(frac ?? '').padEnd(9, '0')}`);
  return String(year + 100_000_000).padStart(9, '0') + m[3] + time;
}

/** A text whose order is the order of a time of day or a MySQL TIME (`-838:59:59` to `838:59:59`). */
function timeKey(s) {
  const m = /^(-?)(\d+):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(s);
  if (!m) return s;
  const nanos = (BigInt(m[2]) * 3600n + BigInt(m[3]) * 60n + BigInt(m[4] ?? 0)) * 1_000_000_000n + BigInt((m[5] ?? '').padEnd(9, '0'));
  return String((m[1] === '-' ? -nanos : nanos) + 10n ** 18n).padStart(19, '0');
}

/** Compares two decimal numbers given as numbers or exact text ("-12.3400"). */
function compareDecimal(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const [sa, ia, fa] = parts(String(a));
  const [sb, ib, fb] = parts(String(b));
  if (sa !== sb) return sa < sb ? -1 : 1;
  let c = ia.length !== ib.length ? (ia.length < ib.length ? -1 : 1) : ia < ib ? -1 : ia > ib ? 1 : 0;
  if (c === 0) {
    const n = Math.max(fa.length, fb.length);
    const x = fa.padEnd(n, '0');
    const y = fb.padEnd(n, '0');
    c = x < y ? -1 : x > y ? 1 : 0;
  }
  return sa < 0 ? -c : c;
}

/** Sign (-1, 0 or 1 for zero), integer digits without leading zeros, fraction digits of a decimal text. */
function parts(text) {
  const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(text);
  if (!m || m[4] !== undefined) {
    const n = Number(text); // exponent or odd text: by its double value
    return [Math.sign(n) || 0, String(Math.abs(Math.trunc(n))), ''];
  }
  const int = m[2].replace(/^0+/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const zero = int === '' && frac === '';
  return [zero ? 0 : m[1] === '-' ? -1 : 1, int, frac];
}

/**
 * A value as a hash index keys it: one form for values its kind compares as equal (`compareValue`):
 * a number or decimal as its exact decimal text without leading or trailing zeros (`9.50`, `9.5`
 * and the number 9.5 alike), a time as `comparable` gives it.
 */
function hashable(kind, v) {
  if (v === null || v === undefined) return null;
  if ((kind === 'INTEGER' || kind === 'FLOAT' || kind === 'DECIMAL')
      && (typeof v === 'number' || typeof v === 'string' || typeof v === 'bigint')) {
    const [sign, int, frac] = parts(String(v));
    return `${sign < 0 ? '-' : ''}${int || '0'}${frac ? `.${frac}` : ''}`;
  }
  return comparable(kind, v);
}

function compareValue(kind, a, b) {
  if (kind === 'INTEGER' || kind === 'FLOAT' || kind === 'DECIMAL') return compareDecimal(a, b);
  if (typeof a === 'boolean') return a === b ? 0 : a ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * One index: `name`, its `columns`, `sorted` or hash. Holds row keys by index key; rows are read
 * from the mirror's `rows`, so a lookup returns the rows the mirror holds.
 */
export class MirrorIndex {
  #mirror;
  #kinds = null;
  /** Hash: index key (JSON of the values in hash form, `hashable`) → Set of row keys. */
  #hash = new Map();
  /** Sorted: [{values, rowKey}] in key order (rows whose key holds a NULL are left out). */
  #sorted = [];

  constructor(mirror, name, columns, sorted) {
    this.#mirror = mirror;
    /** The index's name. */
    this.name = name;
    /** The indexed columns, in order. */
    this.columns = Object.freeze([...columns]);
    /** True for a sorted index (ranges, key order), false for a hash index (equality). */
    this.sorted = sorted;
  }

  /**
   * The rows whose indexed columns hold `key` (one value, or an array of values for several
   * columns; `null` finds rows whose value is NULL), in no particular order.
   */
  get(key) {
    const values = this.#keyValues(key);
    if (!this.sorted) {
      const keys = this.#hash.get(this.#hashKey(values));
      return keys ? this.#rowsOf(keys) : [];
    }
    return this.range({ from: values, to: values, toInclusive: true });
  }

  /**
   * Sorted indexes: the rows whose key is within the bounds, in key order; `from` inclusive and
   * `to` exclusive unless said otherwise; a missing bound is none. Rows whose key holds a NULL are
   * in no range.
   */
  range(bounds = {}) {
    refuseUnknownOptions(`range() of index ${this.name}`, bounds ?? {}, RANGE_OPTIONS);
    const { from, to, fromInclusive = true, toInclusive = false } = bounds ?? {};
    if (!this.sorted) throw new TypeError(`index ${this.name} is a hash index: range() needs a sorted one`);
    const lo = from === undefined ? 0 : this.#bound(this.#keyValues(from), fromInclusive ? 'first' : 'after');
    const hi = to === undefined ? this.#sorted.length : this.#bound(this.#keyValues(to), toInclusive ? 'after' : 'first');
    return this.#rowsOf(this.#sorted.slice(lo, Math.max(lo, hi)).map((e) => e.rowKey));
  }

  /** Sorted indexes: every row whose key holds no NULL, in key order. */
  ordered() {
    return this.range();
  }

  #keyValues(key) {
    const values = this.columns.length > 1 ? key : [key];
    if (!Array.isArray(values) || values.length !== this.columns.length) {
      throw new TypeError(`index ${this.name} on ${this.columns.join(', ')} takes ${this.columns.length} values`);
    }
    return this.#kinds === null ? values : values.map((v, i) => {
      const kind = this.#kinds[i];
      if (v instanceof Date && (kind !== 'TIMESTAMP_TZ' || Number.isNaN(v.getTime()))) {
        throw new TypeError(`index ${this.name}: column ${this.columns[i]} is ${kind}, so a Date never finds a row;`
          + (kind === 'TIMESTAMP_TZ' ? ' give a valid one' : ` give its text: a Date is an instant, and a ${kind} holds no time zone`));
      }
      return givenValue(kind, v, `index ${this.name}`);
    });
  }

  #rowsOf(rowKeys) {
    const rows = this.#mirror.rows;
    const out = [];
    for (const k of rowKeys) {
      const row = rows.get(k);
      if (row !== undefined) out.push(row);
    }
    return Object.freeze(out);
  }

  /** The index of the first entry at or after `values` ('first') or after it ('after'). */
  #bound(values, where) {
    let lo = 0;
    let hi = this.#sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.#compare(this.#sorted[mid].values, values);
      if (c < 0 || (c === 0 && where === 'after')) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #compare(a, b) {
    for (let i = 0; i < a.length; i++) {
      const c = compareValue(this.#kinds[i], comparable(this.#kinds[i], a[i]), comparable(this.#kinds[i], b[i]));
      if (c !== 0) return c;
    }
    return 0;
  }

  #valuesOf(row) {
    return this.columns.map((c) => (row[c] === undefined ? null : row[c]));
  }

  /** @internal Indexes every row anew (after a snapshot, a restart from a file, new columns). */
  _rebuild(rows, columns) {
    const kinds = new Map(columns.map((c) => [c.name, c.kind]));
    this.#kinds = this.columns.map((c) => kinds.get(c) ?? 'STRING');
    this.#hash = new Map();
    const entries = [];
    for (const [rowKey, row] of rows) {
      const values = this.#valuesOf(row);
      if (this.sorted) {
        if (!values.includes(null)) entries.push({ values, rowKey });
      } else {
        this.#add(values, rowKey);
      }
    }
    if (this.sorted) entries.sort((x, y) => this.#compare(x.values, y.values));
    this.#sorted = entries;
  }

  /** @internal One row changed (`oldRow` or `newRow` undefined for an insert or a delete). */
  _changed(rowKey, oldRow, newRow) {
    if (oldRow !== undefined) this.#remove(this.#valuesOf(oldRow), rowKey);
    if (newRow !== undefined) this.#add(this.#valuesOf(newRow), rowKey);
  }

  /** The key of `values` in the hash: equal for values their columns' kinds compare as equal. */
  #hashKey(values) {
    return JSON.stringify(values.map((v, i) => hashable(this.#kinds?.[i] ?? 'STRING', v)));
  }

  #add(values, rowKey) {
    if (!this.sorted) {
      const k = this.#hashKey(values);
      let keys = this.#hash.get(k);
      if (!keys) this.#hash.set(k, (keys = new Set()));
      keys.add(rowKey);
    } else if (!values.includes(null)) {
      this.#sorted.splice(this.#bound(values, 'after'), 0, { values, rowKey });
    }
  }

  #remove(values, rowKey) {
    if (!this.sorted) {
      const k = this.#hashKey(values);
      const keys = this.#hash.get(k);
      keys?.delete(rowKey);
      if (keys?.size === 0) this.#hash.delete(k);
    } else if (!values.includes(null)) {
      for (let i = this.#bound(values, 'first'); i < this.#sorted.length; i++) {
        if (this.#sorted[i].rowKey === rowKey) {
          this.#sorted.splice(i, 1);
          return;
        }
        if (this.#compare(this.#sorted[i].values, values) !== 0) return;
      }
    }
  }
}

// Rows as the server sends them, plain JSON trees: their keys in a mirror's map, their equality
// (a re-snapshot fires change events only for rows that differ) and freezing. Internal module.

/**
 * `JSON.parse`, but an integer beyond ±2^53 (`Number.MAX_SAFE_INTEGER`: a MySQL unsigned `bigint`,
 * a 64-bit id) is its exact decimal text, a string, instead of the nearest double: `JSON.parse`
 * read 9007199254740993 as 9007199254740992, so two rows keyed by such ids became one. Text
 * without a run of 16 digits (nearly every message) is parsed as is; numbers with a fraction or an
 * exponent (floats) stay numbers.
 */
export function parseJson(text) {
  return JSON.parse(hasSixteenDigits(text) ? quoteLongIntegers(text) : text);
}

function isDigit(c) {
  return c >= 48 && c <= 57;
}

/**
 * Whether `text` holds a run of 16 digits: it looks at every 16th character only (any such run
 * holds one), and at the run around a digit found there.
 */
function hasSixteenDigits(text) {
  for (let i = 15; i < text.length; i += 16) {
    if (!isDigit(text.charCodeAt(i))) continue;
    let first = i;
    let last = i;
    while (first > 0 && isDigit(text.charCodeAt(first - 1))) first--;
    while (last + 1 < text.length && isDigit(text.charCodeAt(last + 1))) last++;
    if (last - first >= 15) return true;
    i = last; // the next 16 digits hold position last + 16
  }
  return false;
}

/** `text` with each integer outside its strings that is not a safe integer in double quotes. */
function quoteLongIntegers(text) {
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) { // a string: to its closing quote, past escapes
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) {
        if (text.charCodeAt(i) === 92) i++;
      }
    } else if (c === 45 || isDigit(c)) {
      let end = i + 1;
      while (end < text.length && isDigit(text.charCodeAt(end))) end++;
      const next = text.charCodeAt(end);
      if (next === 46 || next === 101 || next === 69) { // a fraction or an exponent: a float
        while (end < text.length && /[0-9eE.+-]/.test(text[end])) end++;
      } else if (end - i >= 16 && !Number.isSafeInteger(Number(text.slice(i, end)))) {
        out += `${text.slice(copied, i)}"${text.slice(i, end)}"`;
        copied = end;
      }
      i = end - 1;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** An instant as the server prints one (`java.time.Instant`): `...:00Z`, `...:00.120Z`, `+10000-...`. */
export function instantText(date) {
  const m = /^([+-]?\d+)(-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{3})Z$/.exec(date.toISOString());
  const year = Number(m[1]);
  const y = year > 9999 ? `+${year}` : year < 0 ? `-${String(-year).padStart(4, '0')}` : String(year).padStart(4, '0');
  return `${y}${m[2]}${m[3] === '000' ? '' : `.${m[3]}`}Z`;
}

/** Bytes as base64 (RFC 4648), a BINARY value's form. */
export function base64(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/**
 * A value the caller gave for a column of `kind`, as the mirror holds it: for an INTEGER column a
 * BigInt is a number when it is safe and its decimal text when not (as such values arrive:
 * `parseJson`), and an integral number beyond ±2^53 is refused, since it may be another integer
 * rounded before it got here; for a TIMESTAMP_TZ column a Date is its instant's text, for a BINARY
 * one bytes are their base64 text.
 */
export function givenValue(kind, v, where) {
  if (kind === 'TIMESTAMP_TZ' && v instanceof Date && !Number.isNaN(v.getTime())) return instantText(v);
  if (kind === 'BINARY' && (v instanceof Uint8Array || v instanceof ArrayBuffer)) return base64(new Uint8Array(v));
  if (kind !== 'INTEGER') return typeof v === 'bigint' ? String(v) : v; // a DECIMAL's text
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : String(v);
  if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
    throw new TypeError(`${where}: ${v} is beyond Number.MAX_SAFE_INTEGER, so it may be another`
      + ' integer rounded (9007199254740993 reads as 9007199254740992); integers that large'
      + " arrive as their decimal text: give one as a string ('9007199254740993') or a BigInt");
  }
  return v;
}

/**
 * Throws a TypeError when no row can have the key `parts` of a table keyed by `primaryKey` (a part
 * too few or too many, or a part of another kind than its column's: the text '42' for an INTEGER
 * column, a number for a text one), saying what to give; a lookup that found nothing calls it, so
 * that such a key is not answered as a row not there. Columns not known yet check nothing.
 */
export function refuseKeyNoRowCanHave(primaryKey, parts, kindOf, where) {
  if (primaryKey.length === 0 || primaryKey.some((c) => kindOf(c) === undefined)) return;
  if (parts.length !== primaryKey.length) {
    throw new TypeError(`${where}: the primary key has ${primaryKey.length} column${primaryKey.length > 1 ? 's' : ''}`
      + ` (${primaryKey.join(', ')}): give a value for each, in that order, as get(${primaryKey.join(', ')});`
      + ` it was given ${parts.length}`);
  }
  primaryKey.forEach((column, i) => {
    const kind = kindOf(column);
    const v = parts[i];
    const type = typeof v;
    if (v === null || v === undefined || kind === 'FLOAT' || kind === 'JSON') return;
    let give = null;
    if (kind === 'INTEGER') {
      const exactText = type === 'string' && /^-?\d{16,}$/.test(v) && !Number.isSafeInteger(Number(v));
      if (type !== 'number' && type !== 'bigint' && !exactText) give = 'a number (get(42))';
    } else if (kind === 'BOOLEAN') {
      if (type !== 'boolean') give = 'true or false';
    } else if (kind === 'DECIMAL') {
      if (type !== 'string' && type !== 'number' && type !== 'bigint') give = "its text ('12.30') or a number";
    } else if (v instanceof Date) {
      if (kind !== 'TIMESTAMP_TZ' || Number.isNaN(v.getTime())) {
        give = kind === 'TIMESTAMP_TZ' ? 'a valid Date or its text' : `its text as docs/TYPES.md shows it: a Date is`
          + ` an instant, and a ${kind} column holds no time zone`;
      }
    } else if (kind === 'BINARY' && (v instanceof Uint8Array || v instanceof ArrayBuffer)) {
      // its base64 text was looked up
    } else if (type !== 'string') {
      give = `its text as docs/TYPES.md shows it ('${String(v)}')`;
    }
    if (give !== null) {
      const shown = v instanceof Date ? `a Date (${Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString()})`
        : `${JSON.stringify(v) ?? String(v)} (${type})`;
      throw new TypeError(`${where}: key column ${column} is ${kind}, so ${shown} never finds a row; give ${give}`);
    }
  });
}

/**
 * The key of a row in `TableMirror.rows`: `JSON.stringify` of the primary-key values in
 * primary-key order, e.g. `[42]` or `["eu",7]`.
 */
export function rowKey(keyValues) {
  return JSON.stringify(keyValues);
}

/** Structural equality of JSON values (rows from the server are plain JSON trees). */
export function jsonEqual(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !jsonEqual(a[k], b[k])) return false;
  }
  return true;
}

export const freeze = (row) => (row && typeof row === 'object' ? Object.freeze(row) : row);


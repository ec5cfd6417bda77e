// The forms rows carry (docs/TYPES.md) of a primary-key part given in another one: a Date for an
// instant, a decimal of another scale, bytes for a binary string, a date-time or time without its
// seconds, with a space for the T, or with another number of fraction digits. TableMirror.get looks
// again with these when the key as given found no row, so a hit costs nothing more. A client does
// not know which database it mirrors, and fractions differ: MySQL prints as many digits as the
// column declares, PostgreSQL drops trailing zeros; both forms are tried.

import { base64, instantText, rowKey } from './json-values.js';

/** Keys tried for one lookup at most: two forms of each of three parts. */
const MAX_KEYS = 8;

/** Fraction digits a date-time or time column declares (`datetime(6)`: 6), else 0. */
function declaredDigits(dbType) {
  const m = /\((\d+)\)/.exec(dbType ?? '');
  return m ? Number(m[1]) : 0;
}

/** The scale a decimal column declares (`numeric(12,3)`: 3; `money`: 2), else -1. */
function declaredScale(dbType) {
  const m = /\(\s*\d+\s*,\s*(\d+)\s*\)/.exec(dbType ?? '');
  return m ? Number(m[1]) : dbType === 'money' ? 2 : -1;
}

/**
 * `prefix` + `hms` + the fraction with its trailing zeros dropped + `suffix`, then with as many
 * digits as `digits` when it has no more.
 */
function withFractions(prefix, hms, fraction, suffix, digits) {
  const dropped = fraction.replace(/0+$/, '');
  const forms = new Set([`${prefix}${hms}${dropped ? `.${dropped}` : ''}${suffix}`]);
  if (dropped.length <= digits) {
    forms.add(`${prefix}${hms}${digits > 0 ? `.${dropped.padEnd(digits, '0')}` : ''}${suffix}`);
  }
  return [...forms];
}

/** A decimal's texts: with the column's scale, as given, without trailing zeros; none when it has more digits than the column holds. */
function decimalForms(v, scale) {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(String(v).trim());
  if (!m || (m[2] === '' && !m[3])) return [];
  const sign = m[1] === '-' ? '-' : '';
  const int = m[2].replace(/^0+(?=\d)/, '') || '0';
  const frac = m[3] ?? '';
  const forms = new Set();
  if (scale >= 0) {
    if (frac.slice(scale).replace(/0/g, '') !== '') return [];
    forms.add(`${sign}${int}${scale > 0 ? `.${frac.slice(0, scale).padEnd(scale, '0')}` : ''}`);
  }
  forms.add(`${sign}${int}${frac ? `.${frac}` : ''}`);
  const dropped = frac.replace(/0+$/, '');
  forms.add(dropped === '' && /^0+$/.test(int) ? '0' : `${sign}${int}${dropped ? `.${dropped}` : ''}`);
  return [...forms];
}

/** The forms rows carry of `v` in `column` ({name, dbType, kind}), the likeliest first; or none. */
export function keyForms(column, v) {
  switch (column.kind) {
    case 'TIME': {
      const m = typeof v === 'string' && /^(-?\d{2,3}:\d{2})(?::(\d{2}))?(?:\.(\d+))?$/.exec(v);
      return m ? withFractions('', `${m[1]}:${m[2] ?? '00'}`, m[3] ?? '', '', declaredDigits(column.dbType)) : [];
    }
    case 'TIMESTAMP': {
      const m = typeof v === 'string'
        && /^([+-]?\d{4,}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2}))?(?:\.(\d+))?( BC)?$/.exec(v);
      return m ? withFractions(`${m[1]}T`, `${m[2]}:${m[3] ?? '00'}`, m[4] ?? '', m[5] ?? '', declaredDigits(column.dbType)) : [];
    }
    case 'TIMESTAMP_TZ':
      return v instanceof Date && !Number.isNaN(v.getTime()) ? [instantText(v)] : [];
    case 'DECIMAL':
      return typeof v === 'string' || typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v))
        ? decimalForms(v, declaredScale(column.dbType)) : [];
    case 'BINARY':
      return v instanceof Uint8Array ? [base64(v)] : v instanceof ArrayBuffer ? [base64(new Uint8Array(v))] : [];
    default:
      return [];
  }
}

/**
 * The row keys ({@link rowKey}) to look up after `given` (the parts as the mirror holds such
 * values) found no row: `parts` in the forms rows carry for the key columns, `given`'s own key left
 * out; none when no part has another form or the columns are not known.
 */
export function alternativeKeys(primaryKey, columnOf, parts, given) {
  if (parts.length !== primaryKey.length) return [];
  const formsOfParts = [];
  let any = false;
  for (let i = 0; i < parts.length; i++) {
    const column = columnOf(primaryKey[i]);
    if (column === undefined) return [];
    const forms = keyForms(column, parts[i]);
    any ||= forms.length > 0;
    formsOfParts.push(forms.length > 0 ? forms : [given[i]]);
  }
  if (!any) return [];
  const keys = new Set();
  const combine = (at, key) => {
    if (keys.size >= MAX_KEYS) return;
    if (at === formsOfParts.length) {
      keys.add(rowKey(key));
      return;
    }
    for (const form of formsOfParts[at]) combine(at + 1, [...key, form]);
  };
  combine(0, []);
  keys.delete(rowKey(given));
  return [...keys];
}

/** The row of the first of {@link alternativeKeys} that `rows` (row key → row) holds, or undefined. */
export function rowInOtherForms(rows, primaryKey, columnOf, parts, given) {
  for (const key of alternativeKeys(primaryKey, columnOf, parts, given)) {
    const row = rows.get(key);
    if (row !== undefined) return row;
  }
  return undefined;
}

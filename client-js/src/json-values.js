// Rows as the server sends them, plain JSON trees: their keys in a mirror's map, their equality
// (a re-snapshot fires change events only for rows that differ) and freezing. Internal module.

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


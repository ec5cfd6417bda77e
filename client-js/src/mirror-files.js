// Warm restart for the JavaScript client: a mirror's rows and position saved through a store and
// read back when the mirror is created again, as the Java client's mirror files do (docs/CLIENT.md,
// "Warm restart"). No dependencies: the store is given by the application (`fileStore(dir, fs)`
// with Node's `fs`, or any object with `load(name)` and `save(name, text)`). Internal module but
// for `fileStore`, which the package exports.

const FORMAT = 'tablecast-mirror-js';
/** 2: integers beyond ±2^53 are their exact decimal text; 1 held them rounded (read unless so). */
const VERSION = 2;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE) of a string's UTF-16 code units, as 8 hex digits. */
export function crc32(text) {
  let c = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    c = CRC_TABLE[(c ^ (u & 0xff)) & 0xff] ^ (c >>> 8);
    c = CRC_TABLE[(c ^ (u >>> 8)) & 0xff] ^ (c >>> 8);
  }
  return ((c ^ 0xffffffff) >>> 0).toString(16).padStart(8, '0');
}

/** The name a mirror of `table` with `shape` (or null) is saved under. */
export function fileName(table, shape) {
  return `${encodeURIComponent(table)}${shape ? `@${crc32(JSON.stringify(shape))}` : ''}.mirror.json`;
}

/** The text that saves `mirror` (ready, following the stream) with `shape`. */
export function encode(mirror, shape, savedAt = Date.now()) {
  const body = JSON.stringify({
    format: FORMAT, version: VERSION, table: mirror.table, shape: shape ?? null,
    epoch: mirror.epoch, position: mirror.position, savedAt,
    columns: mirror.columns, primaryKey: mirror.primaryKey, rows: [...mirror.rows.values()],
  });
  return JSON.stringify({ crc32: crc32(body), body });
}

/** Whether a JSON value holds an integral number beyond ±2^53, which JSON.parse had rounded. */
function holdsRoundedInteger(v) {
  if (typeof v === 'number') return Number.isInteger(v) && !Number.isSafeInteger(v);
  if (v === null || typeof v !== 'object') return false;
  return Object.values(v).some(holdsRoundedInteger);
}

/**
 * What `text` saved of `table` with `shape`: `{epoch, position, savedAt, columns, primaryKey,
 * rows}`. Throws an Error saying why when it is corrupt, of another format or version, of another
 * table or shape: such a file is never loaded.
 */
export function decode(text, table, shape) {
  let outer;
  try {
    outer = JSON.parse(text);
  } catch (e) {
    throw new Error(`not a mirror file (${e.message})`);
  }
  if (typeof outer?.body !== 'string' || typeof outer.crc32 !== 'string') throw new Error('not a mirror file');
  if (crc32(outer.body) !== outer.crc32) throw new Error('its checksum does not match: the file is corrupt');
  const saved = JSON.parse(outer.body);
  if (saved.format !== FORMAT || (saved.version !== VERSION && saved.version !== 1)) {
    throw new Error(`it is of format ${saved.format} ${saved.version}, not ${FORMAT} ${VERSION}`);
  }
  if (saved.version === 1 && Array.isArray(saved.rows) && saved.rows.some(holdsRoundedInteger)) {
    throw new Error('it was saved before integers beyond ±2^53 were kept exact, and its rows hold'
      + ' such integers rounded');
  }
  if (saved.table !== table) throw new Error(`it holds ${saved.table}, not ${table}`);
  if (JSON.stringify(saved.shape) !== JSON.stringify(shape ?? null)) {
    throw new Error(`it holds the shape ${JSON.stringify(saved.shape)}, not ${JSON.stringify(shape ?? null)}`);
  }
  if (typeof saved.epoch !== 'string' || !Number.isFinite(saved.position) || !Array.isArray(saved.rows)
      || !Array.isArray(saved.columns) || !Array.isArray(saved.primaryKey) || saved.primaryKey.length === 0) {
    throw new Error('it lacks the epoch, position, columns, primary key or rows');
  }
  return saved;
}

/**
 * A store of mirror files in `directory`, for Node: pass its `fs` module (`import * as fs from
 * 'node:fs'`). Each file is written to a temporary file, synced, and renamed over the old one, so
 * a crash while saving leaves the previous file.
 */
export function fileStore(directory, fs) {
  if (typeof directory !== 'string' || !fs || typeof fs.readFileSync !== 'function') {
    throw new TypeError("fileStore(directory, fs) needs a directory and Node's fs module");
  }
  fs.mkdirSync(directory, { recursive: true });
  const path = (name) => `${directory.replace(/[\\/]+$/, '')}/${name}`;
  return {
    load(name) {
      try {
        return fs.readFileSync(path(name), 'utf8');
      } catch (e) {
        if (e.code === 'ENOENT') return null;
        throw e;
      }
    },
    save(name, text) {
      const tmp = `${path(name)}.tmp`;
      const fd = fs.openSync(tmp, 'w');
      try {
        fs.writeFileSync(fd, text, 'utf8');
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, path(name));
    },
  };
}

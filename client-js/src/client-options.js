// The options of `new TablecastClient(options)`, checked before anything connects: a misspelt
// option (`pasword`, `backoff: { min }`) would otherwise be ignored without a word, and a client
// would run with settings its author never chose. The Java builder's counterpart is its typed
// methods and `BuilderValues`.

const OPTIONS = ['url', 'clientName', 'token', 'user', 'password', 'WebSocket', 'backoff', 'handshakeTimeoutMs', 'warmRestart'];
const BACKOFF = ['minMs', 'maxMs'];
const WARM_RESTART = ['store', 'saveEveryMs'];
const STRINGS = ['clientName', 'token', 'user', 'password'];

/**
 * Throws a TypeError naming the first option that is unknown or of the wrong kind; returns the
 * options otherwise. Undefined values count as absent (`{ token: process.env.TOKEN }`).
 */
export function checkedOptions(options) {
  if (!options || typeof options !== 'object') {
    throw new TypeError('TablecastClient needs options, e.g. { url: "ws://localhost:7070/ws" }');
  }
  unknownKeys('TablecastClient', options, OPTIONS);
  if (typeof options.url !== 'string' || options.url.trim() === '') {
    throw new TypeError('TablecastClient needs options.url, e.g. ws://localhost:7070/ws');
  }
  for (const name of STRINGS) {
    if (options[name] !== undefined && typeof options[name] !== 'string') {
      throw new TypeError(`the TablecastClient option ${name} must be a string, was ${describe(options[name])}`);
    }
  }
  if (options.backoff !== undefined) {
    if (options.backoff === null || typeof options.backoff !== 'object') {
      throw new TypeError(`the TablecastClient option backoff must be an object like { minMs: 500, maxMs: 30000 }, was ${describe(options.backoff)}`);
    }
    unknownKeys('the TablecastClient option backoff', options.backoff, BACKOFF);
    for (const name of BACKOFF) {
      const value = options.backoff[name];
      if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
        throw new TypeError(`backoff.${name} must be a number of milliseconds, 0 or more, was ${describe(value)}`);
      }
    }
  }
  const timeout = options.handshakeTimeoutMs;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) {
    throw new TypeError(`handshakeTimeoutMs must be a positive number of milliseconds, was ${describe(timeout)}`);
  }
  if (options.warmRestart !== undefined && options.warmRestart !== null) {
    if (typeof options.warmRestart !== 'object') {
      throw new TypeError(`the TablecastClient option warmRestart must be an object like { store }, was ${describe(options.warmRestart)}`);
    }
    unknownKeys('the TablecastClient option warmRestart', options.warmRestart, WARM_RESTART);
  }
  return options;
}

/** The backoff with the defaults where the options leave a bound out, checked as a pair. */
export function checkedBackoff(backoff, defaults) {
  const merged = { ...defaults };
  for (const name of BACKOFF) {
    if (backoff?.[name] !== undefined) merged[name] = backoff[name];
  }
  if (merged.minMs > merged.maxMs) {
    throw new TypeError(`backoff.minMs must be at most backoff.maxMs, was ${merged.minMs} > ${merged.maxMs}`);
  }
  return merged;
}

function unknownKeys(what, object, known) {
  const unknown = Object.keys(object).filter((k) => !known.includes(k) && object[k] !== undefined);
  if (unknown.length > 0) {
    const hints = unknown.map((k) => {
      const near = nearest(k, known);
      return near === null ? k : `${k} (did you mean ${near}?)`;
    });
    throw new TypeError(`${what} has no option ${hints.join(', ')}: it takes ${known.join(', ')}`);
  }
}

/** The known name `name` differs from only in case or by a short edit, or null. */
function nearest(name, known) {
  const lower = name.toLowerCase();
  let best = null;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const k of known) {
    const d = k.toLowerCase() === lower ? 0 : distance(lower, k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance, for the did-you-mean of a misspelt option. */
function distance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

function describe(value) {
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

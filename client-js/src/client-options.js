// The options of `new TablecastClient(options)`, checked before anything connects: a misspelt
// option (`pasword`, `backoff: { min }`) would otherwise be ignored without a word, and a client
// would run with settings its author never chose. The Java builder's counterpart is its typed
// methods and `BuilderValues`.

import { refuseUnknownOptions } from './option-names.js';

const OPTIONS = ['url', 'clientName', 'token', 'user', 'password', 'WebSocket', 'backoff', 'handshakeTimeoutMs', 'warmRestart'];
const BACKOFF = ['minMs', 'maxMs'];
const WARM_RESTART = ['store', 'saveEveryMs'];
const STRINGS = ['clientName', 'user', 'password'];

/**
 * Throws a TypeError naming the first option that is unknown or of the wrong kind; returns the
 * options otherwise. Undefined values count as absent (`{ token: process.env.TOKEN }`).
 */
export function checkedOptions(options) {
  if (!options || typeof options !== 'object') {
    throw new TypeError('TablecastClient needs options, e.g. { url: "ws://localhost:7070/ws" }');
  }
  refuseUnknownOptions('TablecastClient', options, OPTIONS);
  if (typeof options.url !== 'string' || options.url.trim() === '') {
    throw new TypeError('TablecastClient needs options.url, e.g. ws://localhost:7070/ws');
  }
  for (const name of STRINGS) {
    if (options[name] !== undefined && typeof options[name] !== 'string') {
      throw new TypeError(`the TablecastClient option ${name} must be a string, was ${describe(options[name])}`);
    }
  }
  if (options.token !== undefined && typeof options.token !== 'string' && typeof options.token !== 'function') {
    throw new TypeError(`the TablecastClient option token must be a string or a function giving one (or a promise of one), was ${describe(options.token)}`);
  }
  if (options.backoff !== undefined) {
    if (options.backoff === null || typeof options.backoff !== 'object') {
      throw new TypeError(`the TablecastClient option backoff must be an object like { minMs: 500, maxMs: 30000 }, was ${describe(options.backoff)}`);
    }
    refuseUnknownOptions('the TablecastClient option backoff', options.backoff, BACKOFF);
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
    refuseUnknownOptions('the TablecastClient option warmRestart', options.warmRestart, WARM_RESTART);
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

function describe(value) {
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

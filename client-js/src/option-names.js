// Options given by name, checked against the names there are: a misspelt one (`pasword`,
// `{ form: 10 }` for `from`) throws a TypeError naming it and the one it resembles, instead of
// being ignored without a word.

/**
 * Throws a TypeError when `object` has a key (with a value other than undefined) that is none of
 * `known`: `${what} has no option X (did you mean Y?): it takes ...`.
 */
export function refuseUnknownOptions(what, object, known) {
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

// What `npm publish` would ship: the modules, the declarations, the README and the LICENSE, no
// runtime dependencies, and a README whose links work on the registry's page too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('..', import.meta.url));
const read = (rel) => readFileSync(new URL(`../${rel}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json'));

/** The files of the tarball, from `npm pack --dry-run` (which runs prepack, copying LICENSE). */
function packedFiles() {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], {
    cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out)[0].files.map((f) => f.path).sort();
}

test('the package ships every module, the declarations, README and LICENSE, and nothing else', () => {
  const modules = readdirSync(new URL('../src', import.meta.url)).map((f) => `src/${f}`);
  assert.deepEqual(packedFiles(), ['LICENSE', 'README.md', 'package.json', ...modules].sort());
  const license = read('LICENSE');
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  assert.equal(license, readFileSync(new URL('../../LICENSE', import.meta.url), 'utf8'));
  assert.equal(pkg.license, 'Apache-2.0');
});

test('the package has no runtime dependencies', () => {
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundledDependencies']) {
    assert.deepEqual(Object.keys(pkg[field] ?? {}), [], `${field} must stay empty`);
  }
});

test('README links are absolute or point at files the package ships', () => {
  const shipped = new Set(packedFiles());
  const links = [...read('README.md').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
  for (const target of links) {
    if (/^(https?:|mailto:|#)/.test(target)) continue;
    const file = target.split('#')[0].replace(/^\.\//, '');
    assert.ok(shipped.has(file), `README links to ${target}, which is not in the package (broken on npm)`);
  }
});

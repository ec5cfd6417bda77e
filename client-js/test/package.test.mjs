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

test('the modules import only shipped modules of their own, with no cycle (the entry point is imported by none)', () => {
  const modules = readdirSync(new URL('../src', import.meta.url)).filter((f) => f.endsWith('.js'));
  const imports = new Map(modules.map((f) => [f,
    [...read(`src/${f}`).matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gm)].map((m) => m[1])]));
  for (const [file, targets] of imports) {
    for (const target of targets) {
      assert.match(target, /^\.\/[a-z-]+\.js$/, `${file} imports ${target}: no runtime dependencies, only ./module.js`);
      assert.ok(imports.has(target.slice(2)), `${file} imports ${target}, which is not in src/`);
    }
  }
  assert.ok(imports.get('tablecast.js').length >= 4, 'the entry point\'s imports are found');
  const done = new Set();
  const visit = (file, path) => {
    assert.ok(!path.includes(file), `import cycle: ${[...path, file].join(' → ')}`);
    if (done.has(file)) return;
    for (const target of imports.get(file)) visit(target.slice(2), [...path, file]);
    done.add(file);
  };
  for (const file of modules) visit(file, []);
  for (const [file, targets] of imports) {
    assert.ok(!targets.includes('./tablecast.js'), `${file} imports the entry point`);
  }
});

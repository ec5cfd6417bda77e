// The JavaScript client as users get it: installed from the tarball `npm pack` makes (the Maven
// build packs it into client-js/target/ and `npm run install-client` installs it here), not
// linked to client-js/src. Run by `npm test` after `npm run build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';

const here = (rel) => new URL(`../${rel}`, import.meta.url);
const read = (url) => readFileSync(url, 'utf8');
const installed = here('node_modules/@tablecast/client/');
const source = new URL('../../../client-js/', import.meta.url);
const sourcePkg = JSON.parse(read(new URL('package.json', source)));
const tarball = `client-js/target/tablecast-client-${sourcePkg.version}.tgz`;

test('the client is installed from the packed tarball of this checkout, as a copy, not a link', () => {
  assert.ok(!lstatSync(installed).isSymbolicLink(), 'node_modules/@tablecast/client must not be a link');
  const lock = JSON.parse(read(here('node_modules/.package-lock.json')));
  const entry = lock.packages['node_modules/@tablecast/client'];
  assert.ok(entry, 'npm run install-client has installed @tablecast/client');
  assert.equal(entry.resolved, `file:../../${tarball}`);
  assert.equal(entry.link, undefined);
  const script = JSON.parse(read(here('package.json'))).scripts['install-client'];
  assert.ok(script.includes(`../../${tarball}`), `install-client installs ${tarball}: ${script}`);
});

test('the installed package is the current source: every module, the declarations, package.json', () => {
  const modules = readdirSync(new URL('src/', source)).sort();
  assert.deepEqual(readdirSync(new URL('src/', installed)).sort(), modules);
  for (const file of modules) {
    assert.equal(read(new URL(`src/${file}`, installed)), read(new URL(`src/${file}`, source)),
      `src/${file} differs from client-js: the tarball is stale (./mvnw -pl examples/react-vite -am compile)`);
  }
  assert.deepEqual(JSON.parse(read(new URL('package.json', installed))), sourcePkg);
});

test('the exports map opens the entry point (ESM and types) and nothing else', async () => {
  const client = await import('@tablecast/client');
  assert.equal(typeof client.TablecastClient, 'function');
  assert.equal(client.default, client.TablecastClient);
  assert.deepEqual(Object.keys(client).sort(),
    ['TableMirror', 'TablecastClient', 'TablecastError', 'default', 'fileStore', 'rowKey']);
  const require = createRequire(import.meta.url);
  assert.throws(() => require.resolve('@tablecast/client/src/table-mirror.js'),
    { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' }, 'internal modules stay internal');
  await assert.rejects(import('@tablecast/client/src/table-mirror.js'),
    { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
  const pkg = JSON.parse(read(new URL('package.json', installed)));
  assert.equal(pkg.type, 'module');
  assert.ok(lstatSync(new URL(pkg.exports['.'].types, installed)).isFile(), 'the declarations ship');
});

test('the build bundles the installed client: dist/ has the page and a script with the client in it', () => {
  const html = read(here('dist/index.html'));
  const script = html.match(/<script type="module" crossorigin src="\.\/(assets\/[^"]+\.js)"/);
  assert.ok(script, `dist/index.html loads its bundle with a relative URL: ${html}`);
  const bundle = read(here(`dist/${script[1]}`));
  assert.match(bundle, /TablecastClient needs options\.url/, 'the client is bundled (from node_modules)');
  assert.match(bundle, /react-vite-example/, 'the app is bundled');
});

// The hand-written declarations (src/tablecast.d.ts) match the JavaScript: read with the
// TypeScript compiler, every exported value and every public member of the exported classes
// exists at runtime with the same kind (method or property), and every public runtime member
// (a name without the internal `_` prefix) is declared. test-types/usage.ts checks how the
// declarations type the README's usage; this checks that they describe what is there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import * as runtime from '../src/tablecast.js';

const dtsPath = fileURLToPath(new URL('../src/tablecast.d.ts', import.meta.url));
const program = ts.createProgram([dtsPath], {
  strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: [],
});
const checker = program.getTypeChecker();
const dts = program.getSourceFile(dtsPath);
const declaredExports = checker.getExportsOfModule(checker.getSymbolAtLocation(dts));

/** Public instance members a class declares itself (not those of EventTarget or Error): name → kind. */
function declaredMembers(className) {
  const cls = declaredExports.find((s) => s.name === className);
  const members = new Map();
  for (const p of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(cls))) {
    const decl = p.declarations?.[0];
    if (!decl || decl.getSourceFile() !== dts) continue;
    if (ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Private) continue;
    members.set(p.name, ts.isMethodDeclaration(decl) ? 'method' : 'property');
  }
  return members;
}

/** Public members of a live instance: prototype methods and getters of its class, and own fields. */
function runtimeMembers(instance, cls) {
  const members = new Map();
  for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(cls.prototype))) {
    if (name === 'constructor' || name.startsWith('_')) continue;
    members.set(name, typeof d.value === 'function' ? 'method' : 'property');
  }
  for (const name of Object.keys(instance)) {
    if (!name.startsWith('_')) members.set(name, typeof instance[name] === 'function' ? 'method' : 'property');
  }
  return members;
}

/** A WebSocket that never connects: enough to build a client and its mirrors. */
class InertWebSocket {
  onopen = null; onmessage = null; onclose = null; onerror = null;
  send() {}
  close() {}
}

test('the declarations export exactly the values the module exports', () => {
  const resolved = (s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const values = declaredExports.filter((s) => resolved(s).flags & ts.SymbolFlags.Value).map((s) => s.name).sort();
  assert.deepEqual(values, Object.keys(runtime).sort());
  assert.equal(runtime.default, runtime.TablecastClient);
});

test('every declared member of the exported classes exists with its kind, and every public one is declared', () => {
  const client = new runtime.TablecastClient({ url: 'ws://127.0.0.1:9/ws', WebSocket: InertWebSocket });
  try {
    const instances = {
      TablecastClient: client,
      TableMirror: client.mirror('public.items'),
      TablecastError: new runtime.TablecastError('m', { code: 'UNKNOWN_TABLE', table: 'public.items' }),
    };
    for (const [name, instance] of Object.entries(instances)) {
      const declared = declaredMembers(name);
      assert.ok(declared.size >= 3, `${name}: members found in the declarations`);
      for (const [member, kind] of declared) { // own or inherited (addEventListener is typed here)
        assert.ok(member in instance, `${name}.${member} is declared but does not exist`);
        assert.equal(typeof instance[member] === 'function' ? 'method' : 'property', kind,
          `${name}.${member} is declared as a ${kind}`);
      }
      for (const [member, kind] of runtimeMembers(instance, runtime[name])) {
        assert.equal(declared.get(member), kind, `${name}.${member} (${kind}) is public but not declared`);
      }
    }
  } finally {
    client.close();
  }
});

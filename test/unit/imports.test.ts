// The import rules (ARCHITECTURE.md "Layers"): engine ↛ protocol, vscode, surfaces, test; protocol imports
// nothing of ours; src never imports test; the webview imports only protocol; nothing outside the engine
// imports engine/internals; and src/ has no import cycle. Each rule is first shown to catch a violation
// in a scratch tree, then the real tree is checked.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { IMPORT_RULES, importCycles, importEdges, ruleViolations } from '../tools/importGraph';

function findRoot(dir: string): string {
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'src'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('project root not found');
    dir = up;
  }
  return dir;
}

const SCANNED = ['src', 'webview-ui/src'];

describe('Import rules', () => {
  let tmp: string;
  const write = (rel: string, text: string) => {
    const p = join(tmp, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  };
  beforeEach(() => { tmp = mkdtempSync(join(tmpdir(), 'imports-')); });
  afterEach(() => { rmSync(tmp, { recursive: true, force: true }); });

  it('each rule catches its violation (every import form) and lets clean files pass', () => {
    write('src/engine/ok.ts', "import { x } from './store/y';\nimport * as fs from 'node:fs';\n// import '../protocol/p' in a comment\n");
    write('src/engine/store/y.ts', 'export const x = 1;\n');
    write('src/engine/toProtocol.ts', "import type { P } from '../protocol/p';\n");
    write('src/engine/toVscode.ts', "const v = require('vscode');\n");
    write('src/engine/toSurface.ts', "export { s } from '../vscode/s';\n");
    write('src/engine/toTest.ts', "const t = import('../../test/unit/helper');\n");
    write('src/protocol/p.ts', "import { x } from '../engine/store/y';\nexport type P = number;\n");
    write('src/protocol/clean.ts', 'export type Q = string;\n');
    write('src/vscode/s.ts', "import { internals } from '../engine/internals';\nimport { h } from '../../test/unit/helper';\nexport const s = 1;\n");
    write('src/engine/internals.ts', 'export const internals = 1;\n');
    write('test/unit/helper.ts', 'export const h = 1;\n');
    write('webview-ui/src/main.ts', "import type { P } from '../../src/protocol/p';\nimport { x } from '../../src/engine/store/y';\nimport { d } from './dom';\n");
    write('webview-ui/src/dom.ts', 'export const d = 1;\n');
    const v = ruleViolations(importEdges(tmp, SCANNED)).map((x) => `${x.from} -> ${x.spec}`).sort();
    assert.deepEqual(v, [
      'src/engine/toProtocol.ts -> ../protocol/p',
      'src/engine/toSurface.ts -> ../vscode/s',
      'src/engine/toTest.ts -> ../../test/unit/helper',
      'src/engine/toTest.ts -> ../../test/unit/helper', // also "src never imports test"
      'src/engine/toVscode.ts -> vscode',
      'src/protocol/p.ts -> ../engine/store/y',
      'src/vscode/s.ts -> ../../test/unit/helper',
      'src/vscode/s.ts -> ../engine/internals',
      'webview-ui/src/main.ts -> ../../src/engine/store/y',
    ]);
    // Every rule fired at least once above.
    const fired = new Set(ruleViolations(importEdges(tmp, SCANNED)).map((x) => x.rule));
    assert.deepEqual([...fired].sort(), IMPORT_RULES.map((r) => r.name).sort());
  });

  it('finds an import cycle, type-only imports included, and names its files in order', () => {
    write('src/a.ts', "import { b } from './b';\nexport const a = 1;\n");
    write('src/b.ts', "import type { C } from './c';\nexport const b = 1;\n");
    write('src/c.ts', "export { a } from './a';\nexport type C = 1;\n");
    write('src/d.ts', "import { a } from './a';\n");
    write('src/self.ts', "import './self';\n");
    const cycles = importCycles(importEdges(tmp, ['src']));
    assert.deepEqual(cycles, [['src/a.ts', 'src/b.ts', 'src/c.ts'], ['src/self.ts']]);
  });

  it('the source tree breaks no import rule', () => {
    const v = ruleViolations(importEdges(findRoot(__dirname), SCANNED));
    assert.deepEqual(v, [], v.map((x) => `${x.from} imports ${x.spec}: ${x.rule}`).join('\n'));
  });

  it('src/ has no import cycle', () => {
    const cycles = importCycles(importEdges(findRoot(__dirname), ['src']));
    assert.deepEqual(cycles, [], cycles.map((c) => c.join(' → ')).join('\n'));
  });
});

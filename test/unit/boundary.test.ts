// The engine boundary (ARCHITECTURE.md): src/engine, src/protocol and src/server never import
// 'vscode', so they run in plain Node (CLI, language server, these tests). The lint rule says the
// same; this scan also catches require() and dynamic import() of it.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

const VSCODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]vscode['"]/;
const BOUNDED = ['src/engine', 'src/protocol', 'src/server', 'src/hooks'];

function findRoot(dir: string): string {
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'src'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('project root not found');
    dir = up;
  }
  return dir;
}

function sources(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(c|m)?[jt]s$/.test(name)) out.push(p);
  }
  return out;
}

/** Files under `dirs` (relative to `root`) that import 'vscode'. */
export function filesImportingVscode(root: string, dirs: readonly string[]): string[] {
  return dirs.flatMap((d) => sources(join(root, d)))
    .filter((f) => VSCODE_IMPORT.test(readFileSync(f, 'utf8')))
    .map((f) => relative(root, f));
}

describe('The engine boundary', () => {
  it('names every file that imports vscode in a bounded folder', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'boundary-'));
    try {
      const write = (rel: string, text: string) => {
        const p = join(tmp, rel);
        mkdirSync(dirname(p), { recursive: true });
        writeFileSync(p, text);
      };
      write('src/engine/a.ts', "import * as vscode from 'vscode';\n");
      write('src/server/b.ts', "const v = require( \"vscode\" );\n");
      write('src/protocol/c.ts', "const v = await import('vscode');\n");
      write('src/engine/clean.ts', "// mentions vscode in a comment only\nexport const x = 'vscode-memory';\n");
      write('src/vscode/allowed.ts', "import * as vscode from 'vscode';\n");
      assert.deepEqual(filesImportingVscode(tmp, BOUNDED).sort(), ['src/engine/a.ts', 'src/protocol/c.ts', 'src/server/b.ts']);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('keeps vscode out of src/engine, src/protocol and src/server', () => {
    const offenders = filesImportingVscode(findRoot(__dirname), BOUNDED);
    assert.deepEqual(offenders, [], `these files import 'vscode' across the engine boundary: ${offenders.join(', ')}`);
  });
});

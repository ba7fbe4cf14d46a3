// Shared helpers for the store tests: temp folders and small item builders.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ItemInput } from '../../../src/engine/store/repositories';

const made: string[] = [];

/** A fresh temp folder (with a space in its name, so every test covers such paths). */
export function tempDir(label = 'store'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `mem ${label}-`));
  made.push(d);
  return d;
}

export function cleanupTempDirs(): void {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

/**
 * A mocha afterEach for a describe block whose tests set `MEMORY_STORE_LAZY_FROM` (when a snapshot is read on
 * demand): temp folders removed and the variable back to what the run started with (a run may set it for all).
 */
export function cleanupAndRestoreLazyFrom(): () => void {
  const start = process.env.MEMORY_STORE_LAZY_FROM;
  return () => {
    cleanupTempDirs();
    if (start === undefined) delete process.env.MEMORY_STORE_LAZY_FROM;
    else process.env.MEMORY_STORE_LAZY_FROM = start;
  };
}

let n = 0;
export function aFact(over: Partial<ItemInput> = {}): ItemInput {
  n++;
  return { id: `fa:${n}`, created: 1_700_000_000_000 + n, text: `fact number ${n}`, ...over };
}

/** Every file in `dir` with its bytes, for byte-identical comparisons. */
export function snapshotFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fs.readdirSync(dir).sort()) out[f] = fs.readFileSync(path.join(dir, f)).toString('base64');
  return out;
}

// `npm run package`: production build, then `vsce package` into dist-vsix/vscode-memory.vsix, then
// a check of what the .vsix carries. Bundles are self-contained, so --no-dependencies; the ship-list
// is .vscodeignore. Fails when sources, tests, node_modules or source maps slipped in.
import { execFileSync } from 'node:child_process';
import AdmZip from 'adm-zip';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { ROOT } from './installTools.mjs';

export const VSIX = join(ROOT, 'dist-vsix', 'vscode-memory.vsix');
const FORBIDDEN = [/^extension\/src\//, /^extension\/test\//, /^extension\/out\//, /node_modules\//, /\.map$/, /\.ts$/, /^extension\/\.tools\//, /^extension\/\.scratch\//,
  /^extension\/dist\/bench\.js$/, /^extension\/dist\/meta\//];
const REQUIRED = ['extension/package.json', 'extension/dist/extension.js', 'extension/dist/sql-wasm.wasm', 'extension/dist/sql-wasm.js', 'extension/media/memory.svg',
  'extension/dist/ort-wasm-simd-threaded.wasm', 'extension/dist/ort-wasm-simd-threaded.mjs',
  // The poison gate's worker thread (engine/write/gatePool.ts): without it an import gates on one core.
  'extension/dist/gateWorker.js',
  // contributes.chatInstructions / chatSkills (package.json): the workbench reads them from the install folder.
  'extension/resources/memory.instructions.md', 'extension/resources/skills/long-term-memory/SKILL.md'];

/** Entries of a .vsix (a zip), read with adm-zip (no system `unzip` needed). */
export function vsixEntries(file) {
  return new AdmZip(file).getEntries().map((e) => e.entryName);
}

/** Problems with a .vsix's contents; empty when it ships exactly what it should. */
export function vsixProblems(entries) {
  const problems = entries.filter((e) => FORBIDDEN.some((re) => re.test(e))).map((e) => `must not ship: ${e}`);
  for (const r of REQUIRED) if (!entries.includes(r)) problems.push(`missing: ${r}`);
  return problems;
}

export function packageVsix() {
  execFileSync(process.execPath, [join(ROOT, 'build.mjs'), '--production'], { cwd: ROOT, stdio: 'inherit' });
  mkdirSync(join(ROOT, 'dist-vsix'), { recursive: true });
  execFileSync(process.execPath, [join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package',
    '--no-dependencies', '--no-rewrite-relative-links', '--allow-missing-repository', '--out', VSIX],
  { cwd: ROOT, stdio: 'inherit' });
  const entries = vsixEntries(VSIX);
  const problems = vsixProblems(entries);
  if (problems.length) throw new Error(`the .vsix ships the wrong files:\n  ${problems.join('\n  ')}`);
  console.log(`[package] ${VSIX}: ${entries.length} entries, contents ok`);
  return VSIX;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try { packageVsix(); } catch (e) { console.error(`[package] FAILED: ${e.message}`); process.exit(1); }
}

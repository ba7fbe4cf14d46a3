// The build: esbuild bundles the extension, the language server, the CLI and the webview;
// copies sql.js's wasm and onnxruntime-web's WASM runtime next to the bundles (buildPlugins.mjs says
// why WASM and not onnxruntime-node); compiles tests (unbundled) to out/ for mocha.
// Types are checked separately by `tsc --noEmit` (npm run typecheck).
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, statSync, rmSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bundlePlugins, copyOrtWasm } from './buildPlugins.mjs';

const root = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const common = {
  bundle: true, platform: 'node', format: 'cjs', target: 'node20', sourcemap: !production,
  minify: production, logLevel: 'warning',
  // No onnxruntime-node: the bundles carry the WASM runtime instead (one .vsix for every platform).
  external: ['vscode'], plugins: bundlePlugins,
};

const nodeEntries = [
  { entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' },
  { entryPoints: ['src/server/server.ts'], outfile: 'dist/server.js' },
  { entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
];
const webview = {
  entryPoints: ['webview-ui/src/main.ts'], outfile: 'dist/webview/main.js', bundle: true,
  platform: 'browser', format: 'iife', target: 'es2022', minify: production, sourcemap: !production, logLevel: 'warning',
};
const tests = {
  entryPoints: [...walk(join(root, 'src')), ...walk(join(root, 'test'))],
  outdir: 'out', outbase: '.', bundle: false, platform: 'node', format: 'cjs', target: 'node20',
  sourcemap: 'inline', logLevel: 'warning',
};

function copyAssets() {
  mkdirSync(join(root, 'dist'), { recursive: true });
  copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(root, 'dist', 'sql-wasm.wasm'));
  copyOrtWasm(join(root, 'dist'));
}

// out/ is only wiped on request: several test runs may share it while one of them rebuilds.
if (process.argv.includes('--clean')) rmSync(join(root, 'out'), { recursive: true, force: true });
const configs = [...nodeEntries.map((e) => ({ ...common, ...e })), webview, ...(production ? [] : [tests])];
if (watch) {
  copyAssets();
  for (const c of configs) await (await esbuild.context(c)).watch();
  console.log('[build] watching');
} else {
  await Promise.all(configs.map((c) => esbuild.build(c)));
  copyAssets();
}

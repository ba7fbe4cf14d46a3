// The build: esbuild bundles the extension, the language server, the CLI and the webview;
// copies sql.js's wasm next to the bundles; compiles tests (unbundled) to out/ for mocha.
// Types are checked separately by `tsc --noEmit` (npm run typecheck).
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, statSync, rmSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

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

// transformers.js loads `sharp` at start-up; we never process images, so it gets a stub.
const sharpStub = { name: 'sharp-stub', setup(b) {
  b.onResolve({ filter: /^sharp$/ }, () => ({ path: join(root, 'src', 'engine', 'embed', 'sharpStub.js') }));
} };

const common = {
  bundle: true, platform: 'node', format: 'cjs', target: 'node20', sourcemap: !production,
  minify: production, logLevel: 'warning',
  external: ['vscode', 'onnxruntime-node'], plugins: [sharpStub],
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

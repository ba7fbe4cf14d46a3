// The build: esbuild bundles the extension, the language server, the CLI and the webview;
// copies sql.js's wasm and onnxruntime-web's WASM runtime next to the bundles; compiles tests
// (unbundled) to out/ for mocha. Types are checked separately by `tsc --noEmit` (npm run typecheck).
// Imported (not run) by the bundle test, which builds with the same plugins: see `bundlePlugins`.
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

// Plugins and assets shared with the bundle test (test/unit/embed/bundle.test.ts):
// `sharp` → a stub (we never process images); `onnxruntime-node` → onnxruntime-web's WASM runtime
// (src/engine/embed/ortWasmRuntime.js), whose .wasm/.mjs files are copied next to the bundles.
// Why WASM (measured 2026-11, transformers.js 4.3.2, onnxruntime-node 1.30 / -web 1.31-dev): one .vsix
// of 5.0 MB for every platform (the .wasm adds 3.7 MB compressed), where onnxruntime-node needs a .vsix
// per target carrying 10–29 MB compressed of native libraries (linux-x64 17, win32-x64 28, darwin-arm64
// 25) and has no macOS-x64 build at all. Cost: the tiny stand-in loads in ~0.45 s instead of ~0.1 s,
// and embeds 512 short texts in ~0.36–0.45 s instead of ~0.28–0.33 s (single-threaded; see the report).
// onnxruntime-web comes with transformers.js (which pins its exact version): resolve it from there.
const transformersDir = dirname(require.resolve('@huggingface/transformers'));
const ortWebDist = join(dirname(createRequire(join(transformersDir, 'x.js')).resolve('onnxruntime-web/wasm')));

/** The runtime files the WASM backend loads at run time (14 MB .wasm, ~3.7 MB in the .vsix). */
export const ORT_WASM_FILES = ['ort-wasm-simd-threaded.wasm', 'ort-wasm-simd-threaded.mjs'];

/** The one place transformers.js loads the native runtime (createRequire, so esbuild cannot see it). */
const NATIVE_LOAD = 'requireFromHere("onnxruntime-node")';

export const sharpStub = { name: 'sharp-stub', setup(b) {
  b.onResolve({ filter: /^sharp$/ }, () => ({ path: join(root, 'src', 'engine', 'embed', 'sharpStub.js') }));
} };

export const onnxWasm = { name: 'onnx-wasm', setup(b) {
  b.onResolve({ filter: /^onnxruntime-node$/ }, () => ({ path: join(root, 'src', 'engine', 'embed', 'ortWasmRuntime.js') }));
  b.onResolve({ filter: /^onnxruntime-web\/wasm$/ }, () => ({ path: join(ortWebDist, 'ort.wasm.min.js') }));
  b.onLoad({ filter: /[\\/]@huggingface[\\/]transformers[\\/]dist[\\/]transformers\.node\.m?c?js$/ }, (args) => {
    const src = readFileSync(args.path, 'utf8');
    const count = src.split(NATIVE_LOAD).length - 1;
    // A transformers.js update that moves this line must fail the build, not ship a dead runtime.
    if (count !== 1) throw new Error(`onnx-wasm: expected ${NATIVE_LOAD} once in ${args.path}, found ${count}`);
    return { contents: src.replace(NATIVE_LOAD, 'require("onnxruntime-node")'), loader: 'js' };
  });
} };

export const bundlePlugins = [sharpStub, onnxWasm];

/** Copies the WASM runtime next to a bundle directory (dist/ or a test's temp dir). */
export function copyOrtWasm(destDir) {
  mkdirSync(destDir, { recursive: true });
  for (const f of ORT_WASM_FILES) copyFileSync(join(ortWebDist, f), join(destDir, f));
}

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
  { entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, metafile: true },
  // The agent hooks' entry: the socket client alone; it requires dist/hookCold.js (the engine, without the
  // embedding model's library, which a hook never loads) only when no extension answers.
  { entryPoints: ['src/hooks/hookMain.ts'], outfile: 'dist/hook.js' },
  // The poison gate's worker thread (engine/write/gatePool.ts finds it next to whichever bundle runs the engine).
  { entryPoints: ['src/engine/write/gateWorker.ts'], outfile: 'dist/gateWorker.js' },
  { entryPoints: ['src/hooks/hookCommand.ts'], outfile: 'dist/hookCold.js', external: ['vscode', '@huggingface/transformers'] },
];
// The benchmarks: their own bundle (lunr, the LoCoMo harness), never in the .vsix.
const benchEntry = { entryPoints: ['test/bench/run.ts'], outfile: 'dist/bench.js' };
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
  // sql.js's JavaScript is loaded (and patched: src/engine/store/sqlJsPatched.ts) from beside the bundles, not bundled.
  copyFileSync(require.resolve('sql.js/dist/sql-wasm.js'), join(root, 'dist', 'sql-wasm.js'));
  copyOrtWasm(join(root, 'dist'));
}

async function main() {
  // out/ is only wiped on request: several test runs may share it while one of them rebuilds.
  if (process.argv.includes('--clean')) rmSync(join(root, 'out'), { recursive: true, force: true });
  const configs = [...nodeEntries.map((e) => ({ ...common, ...e })), webview, ...(production ? [] : [{ ...common, ...benchEntry }, tests])];
  if (watch) {
    copyAssets();
    for (const c of configs) await (await esbuild.context(c)).watch();
    console.log('[build] watching');
  } else {
    const results = await Promise.all(configs.map((c) => esbuild.build(c)));
    copyAssets();
    // What went into dist/cli.js (a test checks that no test code and no lunr did).
    mkdirSync(join(root, 'dist', 'meta'), { recursive: true });
    writeFileSync(join(root, 'dist', 'meta', 'cli.json'), JSON.stringify(results[configs.findIndex((c) => c.outfile === 'dist/cli.js')].metafile));
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();

// The e5 embedder as it ships: bundled by esbuild with build.mjs's plugins, run
// from a temp folder with NO node_modules in reach, the WASM runtime next to the bundle — proves the
// .vsix needs neither onnxruntime-node nor a CDN (R-SEC-4).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

// out/test/unit/embed → repository root (also works from any out dir three levels deeper than test/).
function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'build.mjs')) && dir !== resolve(dir, '..')) dir = resolve(dir, '..');
  return dir;
}

interface BuildPlugins { bundlePlugins: esbuild.Plugin[]; copyOrtWasm(dir: string): void }

describe('e5Embedder inside an esbuild bundle like dist/', function () {
  this.timeout(120_000);

  it('loads the model through the bundled WASM runtime, with no node_modules and no CDN', async () => {
    const root = repoRoot();
    const tmp = mkdtempSync(join(tmpdir(), 'e5-bundle-'));
    try {
      // `new Function` keeps a real import() in this CommonJS test file (an .mjs needs one).
      const load = new Function('u', 'return import(u)') as (u: string) => Promise<BuildPlugins>;
      const { bundlePlugins, copyOrtWasm } = await load(pathToFileURL(join(root, 'build.mjs')).href);
      const outfile = join(tmp, 'dist', 'bundle.js');
      await esbuild.build({
        entryPoints: [join(root, 'test', 'unit', 'embed', 'bundleEntry.ts')], outfile,
        bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'silent',
        external: ['vscode'], plugins: bundlePlugins,
      });
      copyOrtWasm(join(tmp, 'dist'));
      const run = spawnSync(process.execPath, [outfile, join(tmp, 'models')], {
        cwd: tmp, encoding: 'utf8', env: { ...process.env, NODE_PATH: '' }, timeout: 100_000,
      });
      const line = run.stdout.trim().split('\n').pop() ?? '';
      assert.equal(run.status, 0, `${line}\n${run.stderr.slice(-2000)}`);
      const out = JSON.parse(line) as Record<string, unknown>;
      assert.deepEqual({ reason: out.reason, id: out.id, dims: out.dims }, { reason: 'model-loaded', id: 'tiny-e5-q8-384', dims: 384 });
      assert.match(String(out.wasmPaths), /^file:/, 'the runtime loads from the bundle folder, never a CDN');
      assert.equal(out.nativeRuntime, false, 'onnxruntime-node is not needed');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';

// out/test/unit/embed → repository root (also works from any out dir three levels deeper than test/).
function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'build.mjs')) && dir !== resolve(dir, '..')) dir = resolve(dir, '..');
  return dir;
}

describe('e5Embedder inside an esbuild bundle like dist/', function () {
  this.timeout(120_000);

  it('loads transformers.js at run time with sharp stubbed and onnxruntime-node external', async () => {
    const root = repoRoot();
    const tmp = mkdtempSync(join(tmpdir(), 'e5-bundle-'));
    try {
      const outfile = join(tmp, 'dist', 'bundle.js');
      // The same options as build.mjs's `common` (kept in sync by hand; the plugin is the sharp stub).
      await esbuild.build({
        entryPoints: [join(root, 'test', 'unit', 'embed', 'bundleEntry.ts')], outfile,
        bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'silent',
        external: ['vscode', 'onnxruntime-node'],
        plugins: [{ name: 'sharp-stub', setup(b) {
          b.onResolve({ filter: /^sharp$/ }, () => ({ path: join(root, 'src', 'engine', 'embed', 'sharpStub.js') }));
        } }],
      });
      // dist/ sits next to node_modules in the repository; NODE_PATH gives the temp bundle the same view.
      const run = spawnSync(process.execPath, [outfile, join(tmp, 'models')], {
        encoding: 'utf8', env: { ...process.env, NODE_PATH: join(root, 'node_modules') }, timeout: 100_000,
      });
      const line = run.stdout.trim().split('\n').pop() ?? '';
      assert.equal(run.status, 0, `${line}\n${run.stderr.slice(-2000)}`);
      assert.deepEqual(JSON.parse(line), { reason: 'model-loaded', id: 'tiny-e5-q8-384', dims: 384 });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

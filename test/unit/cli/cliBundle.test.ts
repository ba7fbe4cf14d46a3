// The shipped CLI (dist/cli.js, also the .vsix's `bin`) carries no test code: the benchmarks and
// lunr live in their own bundle (dist/bench.js), built beside it in a checkout and never shipped.
// Checked on the real build's esbuild metafile and by running the real bundle without bench.js.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const DIST = path.join(ROOT, 'dist');

/** Runs `body` with a fresh temp folder (HOME for the CLI), removed afterwards. */
function inTempDir(body: (dir: string) => void): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'memory-cli-bundle-'));
  try {
    body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `vscode-memory doctor --json`'s checks, run from `cli` on `store`. */
function doctorChecks(cli: string, store: string, env: NodeJS.ProcessEnv): { check: string; ok: boolean; detail?: string }[] {
  const d = spawnSync(process.execPath, [cli, 'doctor', '--store', store, '--json'], { encoding: 'utf8', env });
  return (JSON.parse(d.stdout.trim()) as { checks: { check: string; ok: boolean; detail?: string }[] }).checks;
}

describe('The shipped CLI bundle', () => {
  it('contains no test code and no lunr (esbuild metafile of dist/cli.js)', () => {
    const metaFile = path.join(DIST, 'meta', 'cli.json');
    assert.ok(existsSync(metaFile), 'dist/meta/cli.json is missing: run `node build.mjs`');
    const inputs = Object.keys((JSON.parse(readFileSync(metaFile, 'utf8')) as { inputs: Record<string, unknown> }).inputs);
    assert.ok(inputs.some((i) => i === 'src/cli.ts'), 'the metafile is not the CLI bundle');
    assert.deepEqual(inputs.filter((i) => i.startsWith('test/')), []);
    assert.deepEqual(inputs.filter((i) => /node_modules\/lunr\//.test(i)), []);
  });

  it('answers `bench` with a usage error naming `npm run bench` when bench.js is not beside it', function () {
    this.timeout(20_000);
    inTempDir((dir) => {
      for (const f of ['cli.js', 'sql-wasm.wasm', 'sql-wasm.js']) copyFileSync(path.join(DIST, f), path.join(dir, f));
      const r = spawnSync(process.execPath, [path.join(dir, 'cli.js'), 'bench', 'store', '--json'], { encoding: 'utf8', env: { ...process.env, HOME: dir } });
      assert.equal(r.status, 2, r.stderr);
      const doc = JSON.parse(r.stdout.trim()) as { error: { code: string; message: string } };
      assert.equal(doc.error.code, 'E_USAGE');
      assert.match(doc.error.message, /npm run bench/);
    });
  });

  it('without sql-wasm.js beside it (a partial copy): a clear E_WASM_MISSING, and doctor names the file', function () {
    this.timeout(20_000);
    inTempDir((dir) => {
      for (const f of ['cli.js', 'sql-wasm.wasm']) copyFileSync(path.join(DIST, f), path.join(dir, f));
      const env = { ...process.env, HOME: dir };
      const r = spawnSync(process.execPath, [path.join(dir, 'cli.js'), 'status', '--store', path.join(dir, 'store'), '--json'], { encoding: 'utf8', env });
      assert.notEqual(r.status, 0);
      const doc = JSON.parse(r.stdout.trim()) as { error: { code: string; message: string } };
      assert.equal(doc.error.code, 'E_WASM_MISSING');
      assert.match(doc.error.message, /sql-wasm\.js/);
      const wasm = doctorChecks(path.join(dir, 'cli.js'), path.join(dir, 'store'), env).find((c) => c.check === 'sql_wasm')!;
      assert.equal(wasm.ok, false);
      assert.match(wasm.detail!, /sql-wasm\.js missing/);
    });
  });

  it('doctor: the sql.js beside the bundle took its patches (the store grows its file in place)', function () {
    this.timeout(20_000);
    inTempDir((dir) => {
      mkdirSync(path.join(dir, 'store')); // doctor opens only a store that exists
      const checks = doctorChecks(path.join(DIST, 'cli.js'), path.join(dir, 'store'), { ...process.env, HOME: dir });
      assert.deepEqual(checks.find((c) => c.check === 'sql_js_patched'), { check: 'sql_js_patched', ok: true });
      assert.equal(checks.find((c) => c.check === 'sql_wasm')!.ok, true);
    });
  });

  it('runs benchmarks through bench.js in a checkout, with the same error contract', function () {
    this.timeout(20_000);
    const r = spawnSync(process.execPath, [path.join(DIST, 'cli.js'), 'bench', 'no-such-benchmark', '--json'], { encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr);
    const doc = JSON.parse(r.stdout.trim()) as { error: { code: string; message: string } };
    assert.equal(doc.error.code, 'E_USAGE');
    assert.match(doc.error.message, /unknown benchmark: no-such-benchmark \(known: .*store/);
  });

  it('takes the same options through `vscode-memory bench` as through dist/bench.js (a kept store, a temp folder)', function () {
    this.timeout(20_000);
    // `queries --store` on a folder that is not there: both must get past option parsing to the benchmark's own error.
    for (const argv of [[path.join(DIST, 'cli.js'), 'bench', 'queries', '--store', '/nonexistent-store', '--tmp', tmpdir(), '--json'],
      [path.join(DIST, 'bench.js'), 'queries', '--store', '/nonexistent-store', '--tmp', tmpdir()]]) {
      const r = spawnSync(process.execPath, argv, { encoding: 'utf8' });
      const doc = JSON.parse(r.stdout.trim().split('\n').pop()!) as { error?: { code: string; message: string } };
      assert.ok(doc.error, r.stdout);
      assert.doesNotMatch(doc.error.message, /Unknown option/, `${path.basename(argv[0]!)}: ${doc.error.message}`);
    }
  });
});

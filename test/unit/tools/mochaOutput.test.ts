// `npm test`'s summary (test/tools/runAll.mjs) reads mocha's own output: the closing counts and, when something
// failed, which tests — a CI log may show only the tail, so the summary must name them. Real mocha in a child
// process over a spec file with passing, failing and pending tests.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

interface MochaOutput {
  mochaCounts(text: string): { passed: number; failed: number; skipped: number } | null;
  mochaFailures(text: string, max?: number): string[];
}

describe('npm test summary: mocha counts and failing tests', function () {
  this.timeout(30_000);
  let scratch: string;
  let lib: MochaOutput;

  before(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'memory-mocha-out-'));
    // The tools are ES modules; this test is compiled to CommonJS, so a real dynamic import (not tsc's require).
    const importEsm = new Function('p', 'return import(p)') as (p: string) => Promise<MochaOutput>;
    lib = await importEsm(path.join(ROOT, 'test', 'tools', 'mochaOutput.mjs'));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  function runMocha(spec: string): string {
    const file = path.join(scratch, `${Math.random().toString(36).slice(2)}.spec.js`);
    writeFileSync(file, spec);
    const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--no-config', '--reporter', 'spec', file],
      { cwd: scratch, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '1' } });
    return `${r.stdout}${r.stderr}`;
  }

  it('names each failed test with its error, without the stack, and counts passed, failed and pending', () => {
    const out = runMocha(`
      describe('store', () => {
        it('keeps every acknowledged record', () => {});
        it('replays the journal after a crash', () => { throw new Error('expected 3 records, got 2'); });
        it.skip('needs a read-only folder', () => {});
      });
      describe('index', () => {
        it('re-reads nothing after a recall', () => { require('assert').strictEqual(1, 0, 'caught up 1 item'); });
      });`);
    assert.deepEqual(lib.mochaCounts(out), { passed: 1, failed: 2, skipped: 1 });
    const lines = lib.mochaFailures(out);
    const text = lines.join('\n');
    assert.match(text, /1\) store/);
    assert.match(text, /replays the journal after a crash/);
    assert.match(text, /expected 3 records, got 2/);
    assert.match(text, /2\) index/);
    assert.match(text, /re-reads nothing after a recall/);
    assert.match(text, /caught up 1 item/);
    assert.ok(!/\bat .*\.spec\.js/.test(text), 'no stack frames');
    assert.ok(!/\x1b\[/.test(text), 'no colour codes');
  });

  it('lists nothing when every test passed, and gives null counts when mocha never finished', () => {
    const out = runMocha(`describe('ok', () => { it('passes', () => {}); });`);
    assert.deepEqual(lib.mochaCounts(out), { passed: 1, failed: 0, skipped: 0 });
    assert.deepEqual(lib.mochaFailures(out), []);
    assert.equal(lib.mochaCounts('Error: Cannot find module'), null);
  });

  it('keeps the list short: at most `max` lines however many failed', () => {
    const many = Array.from({ length: 30 }, (_, i) => `it('case ${i}', () => { throw new Error('boom ${i}'); });`).join('\n');
    const out = runMocha(`describe('many', () => { ${many} });`);
    assert.equal(lib.mochaCounts(out)!.failed, 30);
    const lines = lib.mochaFailures(out, 40);
    assert.equal(lines.length, 40);
    assert.match(lines[0]!, /1\) many/);
  });
});

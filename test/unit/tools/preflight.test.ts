// The preflight of the real-VS-Code tier (test/tools/preflight.mjs) as a user meets it: real child
// processes of `npm test`'s runner, `npm start` and the preflight itself, with one piece made
// unavailable each time (a browser path that does not exist, a tools folder that cannot be written,
// a taken port). Each must print one line naming the piece and the command that fixes it, and exit
// non-zero before anything slow (no build, no install).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const tool = (name: string) => path.join(ROOT, 'test', 'tools', name);

function run(script: string, args: string[], env: Record<string, string | undefined>) {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v;
  // 30 s: the bound for a preflight answer; spawnSync kills the child past it.
  const r = spawnSync(process.execPath, [script, ...args], { cwd: ROOT, env: merged, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, signal: r.signal, out: `${r.stdout}${r.stderr}` };
}

function preflightLines(out: string): string[] {
  return out.split('\n').filter((l) => l.startsWith('preflight: '));
}

describe('Preflight of the real-VS-Code tier', function () {
  this.timeout(35_000);
  let scratch: string;
  let server: Server;
  let takenPort: number;

  before(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'memory-preflight-'));
    server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    takenPort = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(scratch, { recursive: true, force: true });
  });

  it('passes on this machine as it is', () => {
    const r = run(tool('preflight.mjs'), [], { MEMORY_CHROMIUM: undefined, MEMORY_CODE_SERVER_PORT: undefined });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^preflight: ok$/m);
  });

  it('names a browser path that does not exist, with the fix', () => {
    const missing = path.join(scratch, 'no-such-chromium');
    const r = run(tool('preflight.mjs'), [], { MEMORY_CHROMIUM: missing });
    assert.equal(r.code, 3, r.out);
    const lines = preflightLines(r.out);
    assert.equal(lines.length, 1, r.out);
    assert.ok(lines[0].includes(missing), lines[0]);
    assert.match(lines[0], /Fix: unset MEMORY_CHROMIUM/);
  });

  it('names a tools folder that cannot be written, with the fix', () => {
    // Root ignores permission bits, so make the folder impossible instead: its parent is a file.
    const file = path.join(scratch, 'a-file');
    writeFileSync(file, 'not a folder');
    const tools = path.join(file, 'tools');
    const r = run(tool('preflight.mjs'), [], { MEMORY_TOOLS_DIR: tools, MEMORY_CHROMIUM: undefined });
    assert.equal(r.code, 3, r.out);
    const lines = preflightLines(r.out);
    assert.equal(lines.length, 1, r.out);
    assert.ok(lines[0].includes(`${tools} is not writable`), lines[0]);
    assert.match(lines[0], /Fix: MEMORY_TOOLS_DIR=/);
  });

  it('names a taken port, with the fix', () => {
    const r = run(tool('preflight.mjs'), [], { MEMORY_CODE_SERVER_PORT: String(takenPort), MEMORY_CHROMIUM: undefined });
    assert.equal(r.code, 3, r.out);
    const lines = preflightLines(r.out);
    assert.equal(lines.length, 1, r.out);
    assert.ok(lines[0].includes(`port ${takenPort}`) && lines[0].includes('is taken'), lines[0]);
    assert.match(lines[0], /Fix: unset MEMORY_CODE_SERVER_PORT/);
  });

  it('refuses a port that is not a number', () => {
    const r = run(tool('preflight.mjs'), [], { MEMORY_CODE_SERVER_PORT: 'eighty' });
    assert.equal(r.code, 3, r.out);
    assert.match(preflightLines(r.out)[0], /MEMORY_CODE_SERVER_PORT=eighty is not a port number/);
  });

  it('`npm test` stops at the preflight: one sentence, no build, a closing count line', () => {
    const r = run(tool('runAll.mjs'), [], { MEMORY_CHROMIUM: path.join(scratch, 'gone') });
    assert.notEqual(r.code, 0, r.out);
    assert.equal(preflightLines(r.out).length, 1, r.out);
    assert.doesNotMatch(r.out, /=== build ===/);
    assert.match(r.out, /^0 passed, 1 failed$/m);
  });

  it('`npm start` stops at the preflight when its PORT is taken', () => {
    const r = run(tool('start.mjs'), [], { PORT: String(takenPort) });
    assert.equal(r.code, 3, r.out);
    const lines = preflightLines(r.out);
    assert.equal(lines.length, 1, r.out);
    assert.match(lines[0], new RegExp(`port ${takenPort} \\(PORT\\) on 127\\.0\\.0\\.1 is taken\\. Fix: unset PORT`));
    assert.doesNotMatch(r.out, /\[start\]|esbuild|dist\//);
  });
});

import * as assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../../src/engine/store/store';
import { cleanupTempDirs, tempDir } from './helpers';

// Compiled next to this file by build.mjs (test/unit/store/storeChild.ts → out/test/unit/store/storeChild.js).
const CHILD = path.join(__dirname, 'storeChild.js');

interface ChildMsg {
  type: 'ready' | 'ack' | 'compacting' | 'seen' | 'error';
  id?: string;
  n?: number;
  code?: string;
}

function spawnChild(args: object): ChildProcess {
  return fork(CHILD, [JSON.stringify(args)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function exited(c: ChildProcess): Promise<number | null> {
  return new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));
}

/** Deterministic pseudo-random numbers, so a failing run can be repeated. */
function rng(seed: number): () => number {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) & 0x7fff_ffff) / 0x7fff_ffff);
}

describe('store across processes', () => {
  afterEach(() => cleanupTempDirs());

  it('lands all 2,000 items of two processes writing 1,000 each at once, for both and after a restart', async function () {
    this.timeout(120_000);
    const dir = tempDir('two writers');
    const kids = ['a', 'b'].map((prefix) => spawnChild({ dir, mode: 'writer', prefix, count: 1000, expect: 2000 }));
    const seen = await Promise.all(kids.map((c) => new Promise<ChildMsg>((resolve, reject) => {
      c.on('message', (m: ChildMsg) => (m.type === 'seen' || m.type === 'error' ? resolve(m) : undefined));
      c.once('exit', (code) => (code !== 0 ? reject(new Error(`child exited with ${code}`)) : undefined));
    })));
    assert.deepEqual(seen.map((m) => m.n), [2000, 2000]);
    await Promise.all(kids.map(exited));
    const s = await Store.open({ dir, watch: false });
    try {
      assert.equal(s.items.count({ kind: 'fact' }), 2000);
      assert.equal(s.items.count({ conversation: 'a' }), 1000);
      assert.equal(s.openReport.tornBytes, 0);
    } finally {
      await s.close();
    }
  });

  it('keeps every acknowledged save through 30+ SIGKILLs, including kills during compaction', async function () {
    this.timeout(90_000);
    const dir = tempDir('crash');
    const random = rng(20_261_130);
    const acked = new Set<string>();
    let kills = 0;
    let tornRepairs = 0;
    let midCompaction = 0;
    for (let run = 0; run < 32; run++) {
      // A tiny compaction threshold (2 KB ≈ 2 records) plus explicit compactions make kills land in them often.
      const child = spawnChild({ dir, mode: 'crash', prefix: `r${run}`, compactBytes: 2048 });
      const killAfter = 1 + Math.floor(random() * 60);
      let acks = 0;
      await new Promise<void>((resolve, reject) => {
        child.on('message', (m: ChildMsg) => {
          if (m.type === 'error') reject(new Error(`child failed: ${m.code}`));
          // Odd runs: kill at the first compaction after `killAfter` acks; even runs: kill on the ack itself.
          if (m.type === 'compacting' && run % 2 === 1 && acks >= killAfter) {
            child.kill('SIGKILL');
            resolve();
          }
          if (m.type !== 'ack') return;
          acked.add(m.id!);
          if (++acks === killAfter && run % 2 === 0) {
            child.kill('SIGKILL');
            resolve();
          }
        });
        child.once('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited early: ${code}`))));
      });
      await exited(child);
      kills++;
      if (fs.existsSync(path.join(dir, 'memory.db.tmp')) || fs.existsSync(path.join(dir, 'memory.journal.tmp'))) midCompaction++;
      // Reopen as a new process would: every acknowledged id must be there.
      const s = await Store.open({ dir, watch: false });
      try {
        if (s.openReport.tornBytes > 0) tornRepairs++;
        const missing = [...acked].filter((id) => !s.items.has(id));
        assert.deepEqual(missing, [], `run ${run}: acknowledged items missing`);
        assert.equal(s.openReport.failedRecords, 0);
      } finally {
        // Every few runs the checker closes properly (compacting); otherwise it leaves state as is.
        if (run % 4 === 0) await s.close();
        else s.dispose();
      }
    }
    assert.ok(kills >= 30);
    assert.ok(acked.size > kills);
    // Informational: how often a kill left a torn record behind.
    console.log(`      kills=${kills} acked=${acked.size} tornRepairs=${tornRepairs} killedMidCompaction=${midCompaction}`);
  });
});

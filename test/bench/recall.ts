// Recall latency (SPEC §9): query → finished recall block at 10k and 100k items with the hash
// embedder, RSS, and activation (open of a store of that size → first recall). Items are distinct
// conversation turns (test/bench/corpus.ts: the LoCoMo turns, every later copy varied for real)
// imported through the write API; recall and search are timed on the same questions; RSS is sampled
// through the run (peak and per-phase steady state). Activation is also measured in a fresh process
// (the bench re-runs itself with MEMORY_BENCH_REOPEN=dir), so its RSS holds nothing of the filling engine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MemoryEngine } from '../../src/engine/engine';
import { FixedClock, nullLogger } from '../../src/engine/host';
import type { ImportMessage } from '../../src/engine/write/turnWriter';
import { keywordPruning } from './keywordPrune';
import { loadCorpus, type Corpus } from './corpus';
import { locomoDataFile, measure, round, rssMb, type BenchContext } from './harness';
import { RssSampler, rerunArgs, timeQueries } from './scale';
import { internals } from '../../src/engine/internals';

const PROJECTS = ['alpha', 'beta', 'gamma', 'delta'];
const TURNS_PER_CONVERSATION = 40;

export async function fill(engine: MemoryEngine, n: number, corpus: Corpus, t0: number, log: (s: string) => void, rss: RssSampler): Promise<number> {
  const started = performance.now();
  const CHUNK = 5_000;
  for (let i = 0; i < n; i += CHUNK) {
    const msgs: ImportMessage[] = [];
    for (let j = i; j < Math.min(n, i + CHUNK); j++) {
      const conv = Math.floor(j / TURNS_PER_CONVERSATION);
      const text = corpus.text(j);
      msgs.push({
        conversation: `c${conv}`, role: j % 2 ? 'assistant' : 'user', text, at: t0 + j * 60_000,
        project: PROJECTS[conv % PROJECTS.length],
      });
    }
    await engine.importMessages(msgs);
    rss.sample();
    if ((i / CHUNK) % 4 === 0) log(`imported ${Math.min(n, i + CHUNK)} of ${n}`);
  }
  await engine.flush();
  return performance.now() - started;
}

/** process.memoryUsage in MB: rss, JS heap used, external (incl. array buffers and wasm memories), array buffers. */
function memoryMb(): Record<string, number> {
  const m = process.memoryUsage();
  const mb = (x: number) => round(x / (1024 * 1024), 1);
  return { rss: mb(m.rss), heapUsed: mb(m.heapUsed), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) };
}

/** The child side of the fresh-process activation measure: open, first recall, 100 recalls, memory. */
async function reopenOnly(storeRoot: string, n: number, questions: string[]): Promise<Record<string, unknown>> {
  const t0 = Date.parse('2025-01-01T00:00:00Z');
  const clock = new FixedClock(t0 + n * 60_000 + 86_400_000);
  const a0 = performance.now();
  const engine = await MemoryEngine.open({ storeDir: path.join(storeRoot, 'store'), vaultDir: path.join(storeRoot, 'vault'), clock, logger: nullLogger, syncVault: 'background' });
  const openMs = performance.now() - a0;
  try {
    await engine.recall({ message: questions[0]!, conversation: 'first', project: 'alpha', window: 128_000 });
    const firstRecallMs = performance.now() - a0;
    const afterOpen = memoryMb();
    let q = 0;
    const recall = await measure(async () => {
      const question = questions[q++ % questions.length]!;
      await engine.recall({ message: question, conversation: `new-${q}`, project: PROJECTS[q % PROJECTS.length], window: 128_000 });
    }, { warmup: 10, runs: 100 });
    const health = engine.headline().health;
    return {
      openMs: round(openMs, 1), toFirstRecallMs: round(firstRecallMs, 1), indexOpen: engine.indexOpen, memoryAfterOpenMb: afterOpen, recall, memoryAfterRecallsMb: memoryMb(),
      footprint: { level: health.level, ...health.footprint },
    };
  } finally {
    await engine.close();
  }
}

function freshProcessReopen(storeRoot: string, n: number, file: string): Record<string, unknown> {
  const script = process.argv[1];
  if (!script) return { error: 'no script to re-run' };
  const r = spawnSync(process.execPath, rerunArgs(script, 'recall', ['--items', String(n), '--data', file]), {
    env: { ...process.env, MEMORY_BENCH_REOPEN: storeRoot }, encoding: 'utf8', maxBuffer: 16 << 20,
  });
  try {
    return JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    return { error: `child exited ${r.status}`, stderr: String(r.stderr).slice(-500) };
  }
}

export async function benchRecall(ctx: BenchContext): Promise<Record<string, unknown>> {
  const file = locomoDataFile(ctx.args);
  const reopen = process.env.MEMORY_BENCH_REOPEN;
  const corpus = loadCorpus(file);
  const questions = corpus.questions;
  if (reopen) return reopenOnly(reopen, typeof ctx.args.items === 'string' ? Number(ctx.args.items) : 100_000, questions);
  const sizes = typeof ctx.args.items === 'string' ? [Number(ctx.args.items)] : ctx.args.quick ? [10_000] : [10_000, 100_000];
  const out: Record<string, unknown> = { embedder: 'hash', data: path.basename(file) };
  for (const n of sizes) {
    const dir = mkdtempSync(path.join(tmpdir(), 'recall-bench-'));
    const t0 = Date.parse('2025-01-01T00:00:00Z');
    const clock = new FixedClock(t0 + n * 60_000 + 86_400_000);
    const opts = { storeDir: path.join(dir, 'store'), vaultDir: path.join(dir, 'vault'), clock, logger: nullLogger };
    const sampler = new RssSampler();
    let engine = await MemoryEngine.open(opts);
    try {
      sampler.mark('fill');
      const fillMs = await fill(engine, n, corpus, t0, ctx.log, sampler);
      await internals(engine).index.embedPending();
      const st = engine.status();
      const items = { requested: n, indexEntries: internals(engine).index.size, distinctTexts: st.rawRecord.blobs };
      sampler.mark('queries');
      const { recallMs, searchMs } = await timeQueries(engine, questions, 200, () => sampler.sample());
      const keyword = await keywordPruning(engine, questions, 100);
      const rss = rssMb();
      const memoryAfterFillMb = memoryMb();
      // What health rates (R-MAINT-3): memory's own footprint, not the process's RSS.
      const health = engine.headline().health;
      const footprintAfterFill = { level: health.level, ...health.footprint };
      // Activation: close (compacts), reopen, first recall.
      await engine.close();
      const a0 = performance.now();
      engine = await MemoryEngine.open({ ...opts, syncVault: 'background' });
      const openMs = performance.now() - a0;
      await engine.recall({ message: questions[0]!, conversation: 'first', project: 'alpha', window: 128_000 });
      const firstRecallMs = performance.now() - a0;
      const sameProcessRss = rssMb();
      await engine.close();
      const memory = sampler.stop();
      const fresh = freshProcessReopen(dir, n, file);
      out[String(n)] = {
        items, fillSeconds: round(fillMs / 1000, 1), recall: recallMs, search: searchMs, keywordPruning: keyword, rssMb: rss, rss: memory, memoryAfterFillMb, footprintAfterFill,
        activation: { openMs: round(openMs, 1), toFirstRecallMs: round(firstRecallMs, 1), rssMb: sameProcessRss },
        freshProcess: fresh,
        targets: { recallP95Ms: n >= 100_000 ? 25 : 5, rssMb: 400, toFirstRecallMs: 1500 },
      };
      ctx.log(`${n}: recall p95 ${recallMs.p95} ms, open→first recall ${round(firstRecallMs, 0)} ms, rss ${rss} MB`);
    } finally {
      await engine.close().catch(() => undefined);
      sampler.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

// The whole story at one size (`bench scale --items N`): import N distinct conversation turns through
// the write API, derive (flush the buffers into the raw record + embed), time recall and search on the
// same questions, close and reopen (open → first recall), then the same in a fresh process. Reports one
// JSON document: requested items vs index entries vs distinct texts stored, bytes written to disk per
// phase (/proc/self/io write_bytes, where the OS has it) and per logical byte (UTF-8 bytes of the
// imported texts), RSS sampled through the run (peak and steady state), store size on disk.
// The engine runs with its own defaults (compaction policy included): nothing is tuned for the bench.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MemoryEngine } from '../../src/engine/engine';
import { FixedClock, nullLogger } from '../../src/engine/host';
import type { ImportMessage } from '../../src/engine/write/turnWriter';
import { keywordPruning } from './keywordPrune';
import { loadCorpus } from './corpus';
import { timeSurfaces } from './dashboard';
import { locomoDataFile, quantiles, round, type BenchContext } from './harness';
import { internals } from '../../src/engine/internals';

const PROJECTS = ['alpha', 'beta', 'gamma', 'delta'];
const TURNS_PER_CONVERSATION = 40;
const T0 = Date.parse('2025-01-01T00:00:00Z');

/** Arguments that run benchmark `name` again in a fresh process, whether this one is dist/bench.js or dist/cli.js. */
export function rerunArgs(script: string, name: string, extra: string[]): string[] {
  const direct = path.basename(script).startsWith('bench');
  return direct ? [script, name, ...extra] : [script, 'bench', name, ...extra, '--json'];
}

/** Bytes this process caused to be written to storage (and passed to write()), or null off Linux. */
export function ioBytes(): { writeBytes: number; grossWriteBytes: number; wchar: number } | null {
  try {
    const io = readFileSync('/proc/self/io', 'utf8');
    const get = (k: string) => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(io)?.[1] ?? NaN);
    // write_bytes counts a page when it is first dirtied; cancelled_write_bytes what was then truncated or deleted
    // before the kernel wrote it back (a compaction's spill file, a replaced journal): the net reached the disk.
    return { writeBytes: get('write_bytes') - get('cancelled_write_bytes'), grossWriteBytes: get('write_bytes'), wchar: get('wchar') };
  } catch {
    return null;
  }
}

/** Peak RSS of this process so far (VmHWM; the kernel's own high-water mark), MB, or null. */
function peakRssMb(): number | null {
  try {
    const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);
    return Number.isFinite(kb) ? round(kb / 1024, 1) : null;
  } catch {
    return null;
  }
}

/**
 * Samples RSS every `ms` and at each phase mark; reports per phase p50 (steady) and max, and at each phase's
 * maximum what held it: V8's heap and external/array-buffer bytes, and `detail()` (the engine's footprint).
 */
export class RssSampler {
  private phase = 'start';
  private readonly samples = new Map<string, number[]>();
  private readonly maxMb = new Map<string, number>();
  private readonly atMax = new Map<string, Record<string, number>>();
  private readonly timer: NodeJS.Timeout;
  constructor(ms = 200, private readonly detail?: () => Record<string, number>) {
    this.timer = setInterval(() => this.sample(), ms);
    this.timer.unref?.();
  }
  sample(): void {
    const m = process.memoryUsage();
    const mb = m.rss / (1024 * 1024);
    let s = this.samples.get(this.phase);
    if (!s) this.samples.set(this.phase, (s = []));
    if (mb > (this.maxMb.get(this.phase) ?? -1)) {
      this.maxMb.set(this.phase, mb);
      const MB = (b: number) => round(b / (1024 * 1024), 1);
      let d: Record<string, number> = {};
      try { d = this.detail?.() ?? {}; } catch { /* an engine closing: no detail */ }
      this.atMax.set(this.phase, { rssMb: MB(m.rss), v8HeapUsedMb: MB(m.heapUsed), v8HeapTotalMb: MB(m.heapTotal), externalMb: MB(m.external), arrayBuffersMb: MB(m.arrayBuffers), ...Object.fromEntries(Object.entries(d).map(([k, v]) => [k, MB(v)])) });
    }
    s.push(mb);
  }
  mark(phase: string): void {
    this.sample();
    this.phase = phase;
    this.sample();
  }
  stop(): Record<string, unknown> {
    this.sample();
    clearInterval(this.timer);
    const phases: Record<string, { samples: number; p50Mb: number; maxMb: number }> = {};
    let max = 0;
    for (const [p, s] of this.samples) {
      const q = [...s].sort((a, b) => a - b);
      phases[p] = { samples: q.length, p50Mb: round(q[Math.floor(q.length / 2)]!, 1), maxMb: round(q[q.length - 1]!, 1), ...(this.atMax.has(p) ? { atMax: this.atMax.get(p) } : {}) };
      max = Math.max(max, q[q.length - 1]!);
    }
    return { peakSampledMb: round(max, 1), peakKernelMb: peakRssMb(), phases };
  }
}

/**
 * The engine's memory by part, in bytes under the names the sampler reports them by (in MB): sql.js's heap + the file
 * it holds, keyword index, vectors, caches.
 */
function footprintParts(engine: MemoryEngine | undefined): Record<string, number> {
  if (!engine) return {};
  const f = engine.footprint();
  const store = internals(engine).store;
  return { databaseMb: f.databaseBytes, sqlHeapMb: store.heapBytes, overlayMb: store.fileMemoryBytes, keywordIndexMb: f.keywordIndexBytes, vectorIndexMb: f.vectorIndexBytes, cacheMb: f.cacheBytes };
}

/** Bytes per file under `dir` (relative paths), largest first. */
function fileSizes(dir: string, prefix = ''): Record<string, number> {
  const out: [string, number][] = [];
  const walk = (d: string, pre: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p, `${pre}${e.name}/`);
      else out.push([`${pre}${e.name}`, statSync(p).size]);
    }
  };
  walk(dir, prefix);
  return Object.fromEntries(out.sort((a, b) => b[1] - a[1]));
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return n;
}

/** Recall and search timed on the same questions (each question asked of both, alternating); 10 warm-up questions. */
export async function timeQueries(engine: MemoryEngine, questions: string[], runs: number, onQuery?: () => void) {
  const recall: number[] = [];
  const search: number[] = [];
  for (let q = -10; q < runs; q++) {
    const i = q < 0 ? q + 10 : q;
    const question = questions[i % questions.length]!;
    const project = PROJECTS[i % PROJECTS.length];
    let t = performance.now();
    await engine.recall({ message: question, conversation: `q-${q}`, project, window: 128_000 });
    const r = performance.now() - t;
    t = performance.now();
    await engine.search(question, { project });
    const s = performance.now() - t;
    if (q >= 0) { recall.push(r); search.push(s); }
    onQuery?.();
  }
  return { questions: runs, recallMs: quantiles(recall), searchMs: quantiles(search) };
}

async function firstRecall(opts: Parameters<typeof MemoryEngine.open>[0], question: string) {
  const a0 = performance.now();
  const engine = await MemoryEngine.open({ ...opts, syncVault: 'background' });
  const openMs = performance.now() - a0;
  await engine.recall({ message: question, conversation: 'first', project: 'alpha', window: 128_000 });
  return { engine, openMs: round(openMs, 1), toFirstRecallMs: round(performance.now() - a0, 1) };
}

/** The clock of a run of `n` items: a day after the last imported message. */
export function scaleClock(n: number): FixedClock {
  return new FixedClock(T0 + n * 60_000 + 86_400_000);
}

function engineOptions(root: string, n: number) {
  return { storeDir: path.join(root, 'store'), vaultDir: path.join(root, 'vault'), clock: scaleClock(n), logger: nullLogger };
}

/** The fresh-process side: open, first recall, timed queries, memory, bytes written. */
async function childSide(root: string, n: number, questions: string[]): Promise<Record<string, unknown>> {
  const rss = new RssSampler();
  const io0 = ioBytes();
  const { engine, openMs, toFirstRecallMs } = await firstRecall(engineOptions(root, n), questions[0]!);
  rss.mark('queries');
  try {
    const queries = await timeQueries(engine, questions, 100, () => rss.sample());
    rss.mark('close');
    await engine.close();
    const io1 = ioBytes();
    return { openMs, toFirstRecallMs, ...queries, bytesWritten: io0 && io1 ? io1.writeBytes - io0.writeBytes : null, rss: rss.stop() };
  } finally {
    await engine.close().catch(() => undefined);
  }
}

export async function benchScale(ctx: BenchContext): Promise<Record<string, unknown>> {
  const file = locomoDataFile(ctx.args);
  const corpus = loadCorpus(file);
  const n = typeof ctx.args.items === 'string' && /^\d+$/.test(ctx.args.items) ? Number(ctx.args.items) : 10_000;
  const child = process.env.MEMORY_BENCH_SCALE_CHILD;
  if (child) return childSide(child, n, corpus.questions);

  const root = mkdtempSync(path.join(typeof ctx.args.tmp === 'string' ? ctx.args.tmp : tmpdir(), 'scale-bench-'));
  let engineRef: MemoryEngine | undefined;
  const rss = new RssSampler(200, () => footprintParts(engineRef));
  const io: Record<string, number | null> = {};
  const io0 = ioBytes();
  let last = io0;
  // CPU seconds per phase (user + system, every thread of the process: the gate's and analyses' workers too) and
  // the cores that makes on average (CPU seconds / wall seconds).
  const cpu: Record<string, { seconds: number; cores: number }> = {};
  let lastCpu = process.cpuUsage();
  let lastWall = performance.now();
  // Ends a phase: its bytes written and its CPU.
  const endPhase = (phase: string) => {
    const now = ioBytes();
    io[phase] = now && last ? now.writeBytes - last.writeBytes : null;
    last = now;
    const c = process.cpuUsage(lastCpu);
    const wall = performance.now() - lastWall;
    const seconds = (c.user + c.system) / 1e6;
    cpu[phase] = { seconds: round(seconds, 1), cores: round(wall > 0 ? seconds / (wall / 1000) : 0, 2) };
    lastCpu = process.cpuUsage();
    lastWall = performance.now();
  };
  const opts = engineOptions(root, n);
  let engine = await MemoryEngine.open(opts);
  engineRef = engine;
  try {
    // Import.
    rss.mark('import');
    let logicalBytes = 0;
    const t0 = performance.now();
    lastCpu = process.cpuUsage();
    lastWall = t0;
    const CHUNK = 5_000;
    const importLog: { items: number; seconds: number }[] = [];
    for (let i = 0; i < n; i += CHUNK) {
      const msgs: ImportMessage[] = [];
      for (let j = i; j < Math.min(n, i + CHUNK); j++) {
        const conv = Math.floor(j / TURNS_PER_CONVERSATION);
        const text = corpus.text(j);
        logicalBytes += Buffer.byteLength(text, 'utf8');
        msgs.push({ conversation: `c${conv}`, role: j % 2 ? 'assistant' : 'user', text, at: T0 + j * 60_000, project: PROJECTS[conv % PROJECTS.length] });
      }
      await engine.importMessages(msgs);
      rss.sample();
      const done = Math.min(n, i + CHUNK);
      if (done % 50_000 === 0 || done === n) {
        importLog.push({ items: done, seconds: round((performance.now() - t0) / 1000, 1) });
        ctx.log(`scale: imported ${done} of ${n} (${Math.round((performance.now() - t0) / 1000)} s)`);
      }
    }
    const importMs = performance.now() - t0;
    endPhase('import');

    // Derive: buffers → raw record, then vectors.
    rss.mark('derive');
    const t1 = performance.now();
    await engine.flush();
    await internals(engine).index.embedPending();
    const deriveMs = performance.now() - t1;
    endPhase('derive');
    ctx.log(`scale: derived in ${Math.round(deriveMs / 1000)} s`);

    const status = engine.status();
    const storeWrittenAfterDerive = status.store.written;
    const counts = {
      requestedItems: n,
      indexEntries: internals(engine).index.size,
      rawItems: status.items.raw ?? 0,
      distinctTexts: status.rawRecord.blobs,
      logicalBytes,
    };

    // Dashboard and status: each call timed (median of 5 after one warm-up; bench dashboard times the same).
    const dashboardMs = await timeSurfaces(engine);
    ctx.log(`scale: dashboard ${JSON.stringify(dashboardMs)}`);

    // Queries, same questions for both.
    rss.mark('queries');
    const queries = await timeQueries(engine, corpus.questions, 200, () => rss.sample());
    const keywordSearch = await keywordPruning(engine, corpus.questions, 100);
    endPhase('queries');
    ctx.log(`scale: recall p95 ${queries.recallMs.p95} ms, search p95 ${queries.searchMs.p95} ms`);

    // Close (the engine's own compaction policy) and reopen in this process.
    rss.mark('close');
    const storeWrittenBeforeClose = engine.status().store.written;
    const tc = performance.now();
    engineRef = undefined;
    await engine.close();
    const closeMs = performance.now() - tc;
    endPhase('close');
    const disk = { storeBytes: dirBytes(opts.storeDir), vaultBytes: dirBytes(opts.vaultDir), storeFiles: fileSizes(opts.storeDir) };
    rss.mark('reopen');
    const again = await firstRecall(opts, corpus.questions[0]!);
    engine = again.engine;
    await engine.close();
    endPhase('reopen');
    const memory = rss.stop();

    // Fresh process.
    const script = process.argv[1];
    let fresh: Record<string, unknown> = { error: 'no script to re-run' };
    if (script) {
      const r = spawnSync(process.execPath, rerunArgs(script, 'scale', ['--items', String(n), '--data', file]), {
        env: { ...process.env, MEMORY_BENCH_SCALE_CHILD: root }, encoding: 'utf8', maxBuffer: 16 << 20,
      });
      try {
        fresh = JSON.parse(r.stdout) as Record<string, unknown>;
      } catch {
        fresh = { error: `child exited ${r.status}`, stderr: String(r.stderr).slice(-500) };
      }
    }

    const written = Object.values(io).every((v) => v !== null) ? Object.values(io).reduce((a, b) => a! + b!, 0)! : null;
    return {
      items: counts,
      seconds: { import: round(importMs / 1000, 1), derive: round(deriveMs / 1000, 1), importAndDerive: round((importMs + deriveMs) / 1000, 1), close: round(closeMs / 1000, 2) },
      importProgress: importLog,
      cpu,
      ...queries,
      keywordPruning: keywordSearch,
      dashboardMs,
      reopen: { openMs: again.openMs, toFirstRecallMs: again.toFirstRecallMs },
      freshProcess: fresh,
      diskWrites: {
        bytesWritten: written, perLogicalByte: written !== null && logicalBytes ? round(written / logicalBytes, 2) : null,
        // The floor: a store written once is storeBytes; this is how many times over the run wrote it.
        perStoreByte: written !== null && disk.storeBytes ? round(written / disk.storeBytes, 2) : null,
        importAndDerivePerStoreByte: io.import !== null && io.derive !== null && disk.storeBytes ? round((io.import! + io.derive!) / disk.storeBytes, 2) : null,
        importAndDerivePerLogicalByte: io.import !== null && io.derive !== null ? round((io.import! + io.derive!) / logicalBytes, 2) : null,
        byPhase: io,
        // Before cancellations (what write_bytes alone says; runs before 2026-12-02 reported this figure).
        grossBytesWritten: io0 && last ? last.grossWriteBytes - io0.grossWriteBytes : null,
        storeAfterDerive: storeWrittenAfterDerive,
        storeBeforeClose: storeWrittenBeforeClose,
      },
      disk: { ...disk, storeBytesPerItem: round(disk.storeBytes / n, 0) },
      rss: memory,
      targets: { importAndDeriveSeconds: n >= 1_000_000 ? 600 : null, recallP95Ms: n >= 1_000_000 ? 150 : n >= 100_000 ? 25 : 5, toFirstRecallMs: n >= 1_000_000 ? 3000 : 1500, peakRssMb: n >= 1_000_000 ? 1536 : 400, storeBytesPerItem: 2048, bytesWrittenPerStoreByte: 3 },
    };
  } finally {
    await engine.close().catch(() => undefined);
    // MEMORY_BENCH_KEEP=1 keeps the store for a look at its files (the path is logged).
    if (process.env.MEMORY_BENCH_KEEP) ctx.log(`scale: kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
}

// Benchmark harness: runs a measured function with warm-up and repetitions and reports
// median/p95 in milliseconds. A baseline (when given) runs in the same process, interleaved
// with the subject, so results are ratios that hold on a noisy machine.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface Timing {
  runs: number;
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
  meanMs: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export function summarize(samples: number[]): Timing {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
  return {
    runs: s.length,
    medianMs: round(percentile(s, 50)),
    p95Ms: round(percentile(s, 95)),
    minMs: round(s[0] ?? NaN),
    maxMs: round(s[s.length - 1] ?? NaN),
    meanMs: round(mean),
  };
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export interface MeasureOptions {
  warmup?: number;
  runs?: number;
}

/** Times `fn` (sync or async) `runs` times after `warmup` unmeasured calls. `i` is the run index. */
export async function measure(fn: (i: number) => unknown, opts: MeasureOptions = {}): Promise<Timing> {
  const warmup = opts.warmup ?? 5;
  const runs = opts.runs ?? 50;
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  return summarize(samples);
}

/** Subject and baseline interleaved run by run; ratio = subject / baseline (medians and p95s). */
export async function compare(subject: (i: number) => unknown, baseline: (i: number) => unknown, opts: MeasureOptions = {}) {
  const warmup = opts.warmup ?? 5;
  const runs = opts.runs ?? 50;
  for (let i = 0; i < warmup; i++) { await subject(-1 - i); await baseline(-1 - i); }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    await subject(i);
    a.push(performance.now() - t0);
    t0 = performance.now();
    await baseline(i);
    b.push(performance.now() - t0);
  }
  const sa = summarize(a);
  const sb = summarize(b);
  return { subject: sa, baseline: sb, ratioMedian: round(sa.medianMs / sb.medianMs), ratioP95: round(sa.p95Ms / sb.p95Ms) };
}

export function rssMb(): number {
  return round(process.memoryUsage().rss / (1024 * 1024), 1);
}

export interface BenchContext {
  /** Extra arguments after the bench name (e.g. `--data FILE`, `--items 10000`). */
  args: Record<string, string | boolean>;
  log: (line: string) => void;
}

export type BenchFn = (ctx: BenchContext) => Promise<Record<string, unknown>>;

/** p50 / p95 / max of raw millisecond samples (for latencies collected inside a benchmark's own loop). */
export function quantiles(ms: number[]): { n: number; p50: number; p95: number; max: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: round(percentile(s, 50), 2), p95: round(percentile(s, 95), 2), max: round(s[s.length - 1] ?? NaN, 2) };
}

/** `--data FILE`, else `../shared/bench-data/locomo-dev.json` beside the checkout, found from wherever this was built to. */
export function locomoDataFile(args: Record<string, string | boolean>): string {
  if (typeof args.data === 'string') return args.data;
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, '..', 'shared', 'bench-data', 'locomo-dev.json');
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('LoCoMo data not found: pass --data FILE');
}

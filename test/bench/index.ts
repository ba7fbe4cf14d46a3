// The named benchmarks `vscode-memory bench NAME` / `npm run bench -- NAME` can run.
// Each returns a JSON-able object; `default` ones run when no name is given.
import type { BenchFn } from './harness';
import { benchDashboard } from './dashboard';
import { benchQueries } from './keywordPrune';
import { benchGate } from './gate';
import { benchHook } from './hook';
import { benchLocomo } from './locomo';
import { benchProject } from './project';
import { benchRecall } from './recall';
import { benchScale } from './scale';
import { benchStore } from './store';
import { benchVault } from './vault';
import { benchWrite } from './write';

const num = (v: string | boolean | undefined): number | undefined => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined);

export interface BenchEntry {
  run: BenchFn;
  default: boolean;
  summary: string;
}

export const BENCHMARKS: Record<string, BenchEntry> = {
  store: {
    summary: 'save acknowledgement p50/p95, compaction time and snapshot size, open time and RSS at 10k/100k items',
    default: true,
    run: async (ctx) => benchStore({ sizes: num(ctx.args.items) ? [num(ctx.args.items)!] : ctx.args.quick ? [10_000] : undefined, log: ctx.log }) as Promise<Record<string, unknown>>,
  },
  vault: {
    summary: 'index 10,000 notes from scratch, no-change re-sync, rebuild, watcher write→indexed latency',
    default: true,
    run: (ctx) => benchVault({ notes: num(ctx.args.items) ?? (ctx.args.quick ? 2_000 : undefined), log: ctx.log }),
  },
  project: {
    summary: 'project vault (real git): re-sync after a pull that changes 1,000 notes (--items N): time, rows before/after, duplicates = 0; the watcher\'s path',
    default: false,
    run: (ctx) => benchProject({ notes: num(ctx.args.items), log: ctx.log }),
  },
  recall: {
    summary: 'recall latency (query → block) p50/p95 at 10k and 100k items, RSS, open → first recall',
    default: true,
    run: benchRecall,
  },
  scale: {
    summary: 'the whole story at --items N (default 10k): import, derive, recall + search on the same questions, reopen, fresh process; bytes written, RSS peak/steady',
    default: false,
    run: benchScale,
  },
  dashboard: {
    summary: 'dashboard surfaces (overview, tags, review queue, engine card) and status/headline, timed on a copy of an existing store (--store DIR, e.g. a kept scale run; --items N for its clock)',
    default: false,
    run: benchDashboard,
  },
  queries: {
    summary: 'recall + search on a copy of an existing store (--store DIR, e.g. a kept scale run; --items N for its clock): open → first recall, p50/p95, keyword search pruned vs exhaustive',
    default: false,
    run: benchQueries,
  },
  hook: {
    summary: 'agent hook latency spawn → answer (dist/hook.js): via the running extension\'s socket and cold, p50/p95 at 10k/100k items',
    default: false,
    run: benchHook,
  },
  locomo: {
    summary: 'LoCoMo evidence retrieval: engine vs plain BM25 (lunr) vs vector-only, recall_any/all@1,5,10 per category',
    default: true,
    run: benchLocomo,
  },
  write: {
    summary: 'recordTurn ack p50/p95, write → searchable (keyword, vector), raw-record ratio on LoCoMo, flush throughput',
    default: true,
    run: benchWrite,
  },
  gate: {
    summary: 'poison gate before/after (rules vs rules + learned stage): P/R/flag rate per language and family on deepset (cross-validated), own held-out, the dev sets (benign, ordinary, hard, attack, authors), LoCoMo turns; texts/s',
    default: false,
    run: benchGate,
  },
  harness: {
    summary: 'self-check of the harness: a tight loop against a baseline run in the same process',
    default: false,
    run: async () => {
      const { compare } = await import('./harness');
      const data = Array.from({ length: 10_000 }, (_, i) => i);
      return compare(() => data.reduce((a, b) => a + b, 0), () => { let s = 0; for (const x of data) s += x; return s; }, { runs: 30 });
    },
  },
};

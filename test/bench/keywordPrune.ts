// Keyword search with and without pruning on the same loaded index and the same questions, in one
// process (bench recall and bench scale report it): time, how many queries pruned, same answers.
import { performance } from 'node:perf_hooks';
import type { MemoryEngine } from '../../src/engine/engine';
import { internals } from '../../src/engine/internals';
import { loadCorpus } from './corpus';
import { withStoreCopy } from './dashboard';
import { locomoDataFile, quantiles, round, type BenchContext } from './harness';
import { timeQueries } from './scale';

const PROJECTS = ['alpha', 'beta', 'gamma', 'delta'];

export async function keywordPruning(engine: MemoryEngine, questions: string[], runs: number): Promise<Record<string, unknown>> {
  const index = internals(engine).index;
  const pruned: number[] = [], full: number[] = [];
  let differ = 0;
  for (let q = -5; q < runs; q++) {
    const i = q < 0 ? q + 5 : q;
    const query = { text: questions[i % questions.length]!, scope: { project: PROJECTS[i % PROJECTS.length] }, now: Date.now(), k: 60, sides: 'keyword' as const };
    // Alternate which goes first so neither always meets a warm cache.
    const order = q % 2 ? [true, false] : [false, true];
    const answers: string[] = [];
    for (const exhaustiveKeyword of order) {
      const t = performance.now();
      const hits = await index.search({ ...query, exhaustiveKeyword });
      const ms = performance.now() - t;
      if (q >= 0) (exhaustiveKeyword ? full : pruned).push(ms);
      answers.push(JSON.stringify(hits));
    }
    if (q >= 0 && answers[0] !== answers[1]) differ++;
  }
  const p = quantiles(pruned), f = quantiles(full);
  return { questions: runs, prunedMs: p, exhaustiveMs: f, p50Ratio: round(p.p50 / f.p50, 2), p95Ratio: round(p.p95 / f.p95, 2), differentAnswers: differ };
}

/**
 * `bench queries --store DIR [--items N]`: recall and search timed on a copy of an existing store (e.g. the
 * `store/` a `MEMORY_BENCH_KEEP=1 bench scale --items N` run kept; N gives its clock): open → first
 * recall, 200 questions, and keyword search pruned vs exhaustive. The original is never touched.
 */
export async function benchQueries(ctx: BenchContext): Promise<Record<string, unknown>> {
  const corpus = loadCorpus(locomoDataFile(ctx.args));
  return withStoreCopy(ctx, 'queries', async (engine, t0, openMs) => {
    await engine.recall({ message: corpus.questions[0]!, conversation: 'first', project: 'alpha', window: 128_000 });
    const toFirstRecallMs = performance.now() - t0;
    const queries = await timeQueries(engine, corpus.questions, 200);
    const keyword = await keywordPruning(engine, corpus.questions, 100);
    ctx.log(`queries: recall p95 ${queries.recallMs.p95} ms; keyword pruned/exhaustive p95 ${keyword.p95Ratio}`);
    return { indexEntries: internals(engine).index.size, openMs: round(openMs, 1), toFirstRecallMs: round(toFirstRecallMs, 1), ...queries, keywordPruning: keyword };
  });
}

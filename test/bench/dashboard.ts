// The dashboard and the status card on an existing store (`bench dashboard --store DIR`), e.g. one a
// `MEMORY_BENCH_KEEP=1 bench scale --items N` run kept (its `store/` folder; pass the same --items N for its clock): the store is copied to a temp
// folder (the original is never touched), opened — timed, a store of an older schema migrates here — and each
// surface timed as `bench scale` does (the same function) (median of 5 after one warm-up): overview, tags, review queue, engine
// card, status, headline. Minutes faster than a scale run when only these figures changed.
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MemoryError } from '../../src/engine/errors';
import { MemoryEngine } from '../../src/engine/engine';
import { nullLogger, systemClock } from '../../src/engine/host';
import { DashboardData } from '../../src/vscode/dashboard/dashboardData';
import { round, type BenchContext } from './harness';
import { scaleClock } from './scale';

/** Each call timed: median of 5 after one warm-up (ms). */
export async function timeSurfaces(engine: MemoryEngine): Promise<Record<string, number>> {
  const dash = new DashboardData(engine, () => ({ includeSecrets: false }));
  const timeIt = async (fn: () => unknown) => {
    await fn();
    const ms: number[] = [];
    for (let i = 0; i < 5; i++) { const t = performance.now(); await fn(); ms.push(performance.now() - t); }
    return round(ms.sort((a, b) => a - b)[2]!, 1);
  };
  return {
    overview: await timeIt(() => dash.overview()), tags: await timeIt(() => dash.tags()), review: await timeIt(() => dash.review()),
    engineCard: await timeIt(() => dash.engineCard()), status: await timeIt(() => engine.status()), headline: await timeIt(() => engine.headline()),
  };
}

/**
 * Opens a copy of the store folder `--store DIR` names (the original is never touched; a store of an older schema
 * migrates in the copy) with the clock of a `bench scale --items N` run when `--items N` is given, runs `body`
 * with the engine and the time its open took (ms, from t0), closes it and removes the copy.
 */
export async function withStoreCopy<T>(ctx: BenchContext, bench: string, body: (engine: MemoryEngine, t0: number, openMs: number) => Promise<T>): Promise<T> {
  const from = typeof ctx.args.store === 'string' ? ctx.args.store : '';
  if (!from) throw new MemoryError('E_USAGE', `bench ${bench} needs --store DIR (a store folder, e.g. one MEMORY_BENCH_KEEP=1 bench scale kept)`);
  const root = mkdtempSync(path.join(tmpdir(), `${bench}-bench-`));
  try {
    const storeDir = path.join(root, 'store');
    cpSync(path.resolve(from), storeDir, { recursive: true });
    const n = typeof ctx.args.items === 'string' && /^\d+$/.test(ctx.args.items) ? Number(ctx.args.items) : null;
    const t0 = performance.now();
    const engine = await MemoryEngine.open({ storeDir, vaultDir: path.join(root, 'vault'), clock: n === null ? systemClock : scaleClock(n), logger: nullLogger, syncVault: 'background' });
    const openMs = performance.now() - t0;
    try {
      return await body(engine, t0, openMs);
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function benchDashboard(ctx: BenchContext): Promise<Record<string, unknown>> {
  return withStoreCopy(ctx, 'dashboard', async (engine, _t0, open) => {
    const openMs = round(open, 1);
    const s = engine.status();
    const dashboardMs = await timeSurfaces(engine);
    ctx.log(`dashboard: ${JSON.stringify(dashboardMs)}`);
    // What each surface answered, as digests: two builds on the same store must agree.
    const dash = new DashboardData(engine, () => ({ includeSecrets: false }));
    const { briefing: _b, ...overview } = dash.overview();
    const review = dash.review();
    const digest = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 16);
    const st = engine.status();
    const answers = {
      reviewEntries: review.length, review: digest(review), overview: digest(overview), tags: digest(dash.tags()),
      status: digest({ items: st.items, recallable: st.recallable, invalidatedFacts: st.invalidatedFacts, rawRecord: st.rawRecord, conversations: st.conversations }),
    };
    return { items: s.items, openMs, migratedFrom: s.openReport.migratedFrom, dashboardMs, answers };
  });
}

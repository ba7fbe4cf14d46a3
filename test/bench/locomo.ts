// LoCoMo evidence retrieval (SPEC §9): every dialogue turn is imported as a raw message at its
// session's date through the engine's write API, each LoCoMo conversation as its own project; each
// question is asked from that project and we count how often the evidence turns are in the top k.
// Baselines in the same process: plain BM25 (lunr, one index per conversation) and vector-only.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import lunr from 'lunr';
import { MemoryEngine } from '../../src/engine/engine';
import type { ImportMessage } from '../../src/engine/write/turnWriter';
import type { ItemKind } from '../../src/engine/types';
import { FixedClock, nullLogger } from '../../src/engine/host';
import { queryTerms } from '../../src/engine/recall/keywordIndex';
import { performance } from 'node:perf_hooks';
import type { BenchContext } from './harness';
import { locomoDataFile, quantiles, round } from './harness';
import { internals } from '../../src/engine/internals';

interface Turn { dia_id: string; speaker: string; text: string }
interface Session { id: number | string; date_time: string; turns: Turn[] }
interface Sample { sample_id: string; speaker_a: string; speaker_b: string; sessions: Session[]; qa: { question: string; answer?: unknown; evidence: string[]; category: number }[] }

const KS = [1, 5, 10] as const;
const CATEGORIES = [1, 2, 3, 4];

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC). */
export function parseLocomoDate(s: string): number {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i.exec(s);
  if (!m) return Date.parse(s) || 0;
  let h = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') h += 12;
  const month = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']
    .indexOf(m[5]!.toLowerCase());
  return Date.UTC(Number(m[6]), Math.max(0, month), Number(m[4]), h, Number(m[2]));
}

type Tally = Record<string, { n: number; any: number[]; all: number[] }>;

function newTally(): Tally {
  const t: Tally = {};
  for (const c of ['overall', ...CATEGORIES.map(String)]) t[c] = { n: 0, any: KS.map(() => 0), all: KS.map(() => 0) };
  return t;
}

function count(t: Tally, category: number, evidence: string[], ranked: string[]): void {
  for (const key of ['overall', String(category)]) {
    const row = t[key]!;
    row.n++;
    KS.forEach((k, i) => {
      const top = new Set(ranked.slice(0, k));
      if (evidence.some((e) => top.has(e))) row.any[i]!++;
      if (evidence.every((e) => top.has(e))) row.all[i]!++;
    });
  }
}

function report(t: Tally): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [key, row] of Object.entries(t)) {
    const r: Record<string, number> = { n: row.n };
    KS.forEach((k, i) => {
      r[`any@${k}`] = row.n ? round((100 * row.any[i]!) / row.n, 1) : 0;
      r[`all@${k}`] = row.n ? round((100 * row.all[i]!) / row.n, 1) : 0;
    });
    out[key] = r;
  }
  return out;
}

export async function benchLocomo(ctx: BenchContext): Promise<Record<string, unknown>> {
  const file = locomoDataFile(ctx.args);
  const data = JSON.parse(readFileSync(file, 'utf8')) as Sample[];
  const engineT = newTally(), bm25T = newTally(), vectorT = newTally();
  const started = Date.now();
  let questions = 0, turns = 0;
  const latencies: number[] = [];
  // Evidence search: the kinds that point at messages (summaries and entities map to no turn);
  // `engineAllKinds` asks the same questions without the kinds filter, for comparison.
  const kinds: ItemKind[] = ['raw', 'fact', 'note'];
  const allKindsT = newTally();
  for (const sample of data) {
    const dir = mkdtempSync(path.join(tmpdir(), 'locomo-'));
    const lastDate = Math.max(...sample.sessions.map((s) => parseLocomoDate(s.date_time)));
    const clock = new FixedClock(lastDate + 86_400_000);
    const engine = await MemoryEngine.open({ storeDir: path.join(dir, 'store'), vaultDir: path.join(dir, 'vault'), clock, logger: nullLogger, syncVault: false });
    try {
      const project = sample.sample_id;
      const byItem = new Map<string, string>();
      const texts = new Map<string, string>();
      const msgs: ImportMessage[] = [];
      for (const s of sample.sessions) {
        const at = parseLocomoDate(s.date_time);
        s.turns.forEach((tr, i) => {
          // "[Speaker] text": the name is searchable, but not a `key: value` line the fact extractor would misread.
          const text = `[${tr.speaker}] ${tr.text}`;
          texts.set(tr.dia_id, text);
          msgs.push({
            conversation: `${project}-S${s.id}`, role: tr.speaker === sample.speaker_a ? 'user' as const : 'assistant' as const,
            text, at: at + i * 1000, project, meta: { dia: tr.dia_id },
          });
        });
      }
      turns += msgs.length;
      const ids = await engine.importMessages(msgs);
      ids.forEach((id, i) => byItem.set(id, String(msgs[i]!.meta!.dia)));
      await engine.flush();
      // Baseline: lunr BM25 over the same texts, one index per conversation.
      const idx = lunr(function () {
        this.ref('id');
        this.field('text');
        for (const [id, text] of texts) this.add({ id, text });
      });
      const turnsOf = (itemId: string): string[] => {
        const dia = byItem.get(itemId);
        if (dia) return [dia];
        if (itemId.startsWith('fa:')) return internals(engine).store.itemSources.sourcesOf(itemId).map((s) => byItem.get(s)).filter((x): x is string => !!x);
        return [];
      };
      for (const q of sample.qa) {
        if (!CATEGORIES.includes(q.category)) continue;
        questions++;
        const t0 = performance.now();
        const hits = await engine.search(q.question, { project, kinds }, 30);
        latencies.push(performance.now() - t0);
        const allHits = await engine.search(q.question, { project }, 30);
        count(allKindsT, q.category, q.evidence, dedupe(allHits.flatMap((h) => turnsOf(h.id))));
        const ranked = dedupe(hits.flatMap((h) => turnsOf(h.id)));
        count(engineT, q.category, q.evidence, ranked);
        count(bm25T, q.category, q.evidence, lunrSearch(idx, q.question));
        const vhits = await vectorOnly(engine, q.question, project);
        count(vectorT, q.category, q.evidence, dedupe(vhits.flatMap((id) => turnsOf(id))));
      }
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
    ctx.log(`${sample.sample_id}: ${questions} questions so far`);
  }
  const engineR = report(engineT), bm25R = report(bm25T);
  return {
    data: path.basename(file), questions, turns, seconds: round((Date.now() - started) / 1000, 1), embedder: 'hash',
    kinds: kinds.join(','),
    searchMs: quantiles(latencies),
    engine: engineR, bm25: bm25R, vector: report(vectorT), engineAllKinds: report(allKindsT),
    delta: { 'any@5': round(engineR.overall!['any@5']! - bm25R.overall!['any@5']!, 1) },
  };
}

function lunrSearch(idx: lunr.Index, question: string): string[] {
  // Plain query: the question's words, OR-ed (lunr's default), with lunr's own English pipeline.
  const terms = question.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, ' ').split(/\s+/).filter(Boolean);
  if (!terms.length) return [];
  try {
    return idx.query((q) => { for (const t of terms) q.term(t, {}); }).map((r) => r.ref);
  } catch {
    return [];
  }
}

async function vectorOnly(engine: MemoryEngine, question: string, project: string): Promise<string[]> {
  const index = internals(engine).index;
  await index.embedPending();
  const cands = await index.search({ text: question, scope: { project }, now: engine.clock.now(), k: 10, minVectorScore: -1, sides: 'vector' });
  // Keyword-free: keep only candidates the vector side found, by vector score.
  return cands.filter((c) => c.vectorScore > 0).sort((a, b) => b.vectorScore - a.vectorScore).map((c) => c.id);
}



function dedupe(xs: string[]): string[] {
  return [...new Set(xs)];
}

export { queryTerms };

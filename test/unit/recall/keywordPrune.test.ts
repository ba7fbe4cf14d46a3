// The expanded keyword search prunes (keywordContext.ts): it must return exactly what scoring every
// posting returns — same docs, same order, same scores to the last bit — on corpora with common and
// rare words, conversation links, filters, removed and replaced docs, duplicate texts (ties), every
// normalisation and several k. And it must actually prune, or the comparison proves nothing.
import { strict as assert } from 'node:assert';
import { KeywordIndex, TopK, type KeywordContext, type KeywordSearchOptions } from '../../../src/engine/recall/keywordIndex';
import { analyze } from '../../../src/engine/recall/language';
import { prng } from '../../../src/engine/prng';

type Prng = { next(): number };
const seeded = (seed: number): Prng => { const f = prng(seed); return { next: f }; };

const SYL = ['ka', 'lo', 'mi', 'ru', 'te', 'so', 'vin', 'dar', 'pel', 'qu', 'zor', 'nex'];

/** A vocabulary of made-up words (no stop words, nothing a stemmer shortens much). */
function vocabulary(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const w = `${SYL[i % SYL.length]}${SYL[Math.floor(i / SYL.length) % SYL.length]}${SYL[Math.floor(i / 144) % SYL.length]}x`;
    if (!out.includes(w)) out.push(w);
  }
  return out;
}

/** Zipf-like pick: word r with weight 1/(r+1). */
function zipf(rng: Prng, n: number): number {
  const u = rng.next();
  return Math.min(n - 1, Math.floor(Math.exp(u * Math.log(n + 1)) - 1));
}

/** Conversations of `per` docs linked like recall's raw messages: neighbours at 0.5, next at 0.25. */
function conversations(n: number, per: number): KeywordContext {
  const links = (d: number) => {
    const out: { docId: number; weight: number }[] = [];
    const c = Math.floor(d / per);
    for (const [off, weight] of [[1, 0.5], [2, 0.25]] as const) {
      for (const x of [d - off, d + off]) if (x >= 0 && x < n && Math.floor(x / per) === c) out.push({ docId: x, weight });
    }
    return out;
  };
  return {
    linksOf: links,
    linksInto: (d, docs, ws) => {
      const l = links(d);
      l.forEach((x, i) => { docs[i] = x.docId; ws[i] = x.weight; });
      return l.length;
    },
  };
}

function corpus(seed: number, n: number, words: string[]) {
  const rng = seeded(seed);
  const idx = new KeywordIndex();
  const texts: string[] = [];
  for (let d = 0; d < n; d++) {
    // Every 13th doc repeats an earlier text: equal scores, so ties must break the same way.
    const text = d % 13 === 12 ? texts[d - 5]! : Array.from({ length: 3 + Math.floor(rng.next() * 25) }, () => words[zipf(rng, words.length)]!).join(' ');
    texts.push(text);
    idx.add(d, text, null);
  }
  // Removed and replaced docs leave dead ordinals in the postings until compaction.
  for (let d = 7; d < n; d += 29) idx.remove(d);
  for (let d = 11; d < n; d += 31) idx.add(d, `${words[zipf(rng, words.length)]} ${words[3]} ${words[0]}`, null);
  return { idx, rng };
}

describe('KeywordIndex expanded search pruning', () => {
  it('returns exactly what scoring every posting returns, and prunes most queries', function () {
    this.timeout(30_000);
    const words = vocabulary(600);
    const N = 4000;
    const { idx, rng } = corpus(7, N, words);
    const context = conversations(N, 40);
    const filters: (((d: number) => boolean) | undefined)[] = [undefined, (d) => d % 4 === 1, (d) => (d * 2654435761) % 10 < 7, (d) => d > 3000];
    let queries = 0, pruned = 0;
    for (let q = 0; q < 400; q++) {
      const nTerms = 1 + Math.floor(rng.next() * 6);
      const text = Array.from({ length: nTerms }, () => words[rng.next() < 0.5 ? zipf(rng, 40) : zipf(rng, words.length)]!).join(' ');
      const terms = analyze(text, null);
      const k = [1, 5, 60][q % 3]!;
      const normalise = ([undefined, 'max', 'coverage'] as const)[Math.floor(q / 3) % 3];
      const opts: KeywordSearchOptions = { context, filter: filters[q % filters.length], normalise };
      const full = idx.search(terms, k, { ...opts, exhaustive: true });
      assert.equal(idx.lastPruneStats.prunedTerms, 0);
      const fast = idx.search(terms, k, opts);
      const stats = { ...idx.lastPruneStats };
      assert.deepEqual(fast, full, `query ${q} "${text}" k=${k} ${normalise ?? 'raw'}`);
      queries++;
      if (stats.prunedTerms > 0) pruned++;
    }
    assert.equal(queries, 400);
    assert.ok(pruned > queries / 4, `pruned ${pruned} of ${queries}`);
  });

  it('an index loaded from its image and grown since answers bit for bit like one built in memory; the image is never copied out', function () {
    this.timeout(30_000);
    const words = vocabulary(500);
    const N = 3000;
    const { idx: mem, rng } = corpus(11, N, words);
    const image = mem.serialize(); // compacts `mem`: both start from the same ordinals
    const loaded = KeywordIndex.deserialize(image);
    const internalsOf = (k: KeywordIndex) => k as unknown as { postings: Int32Array[]; frozen: Int32Array; tails: (Int32Array | undefined)[] };
    const both = (f: (k: KeywordIndex) => void) => { f(mem); f(loaded); };
    // New docs with the common words (every frequent term gets a tail), removals in the image's part, replacements.
    for (let d = N; d < N + 1500; d++) {
      const text = Array.from({ length: 3 + Math.floor(rng.next() * 20) }, () => words[zipf(rng, words.length)]!).join(' ');
      both((k) => k.add(d, text, null));
    }
    for (let d = 3; d < N; d += 17) both((k) => k.remove(d));
    for (let d = 5; d < N; d += 41) {
      const text = `${words[0]} ${words[1]} ${words[zipf(rng, words.length)]}`;
      both((k) => k.add(d, text, null));
    }
    const li = internalsOf(loaded);
    let viewsKept = 0, tails = 0;
    for (let t = 0; t < li.postings.length; t++) {
      if ((li.frozen[t] ?? 0) > 0) {
        assert.equal(li.postings[t]!.buffer, image.buffer, `term ${t}: still a view of the image`);
        viewsKept++;
      }
      if (li.tails[t]) tails++;
    }
    assert.ok(viewsKept > 100 && tails > 50, `${viewsKept} views kept, ${tails} tails`);
    const context = conversations(N + 1500, 30);
    const compare = (label: string) => {
      for (let q = 0; q < 150; q++) {
        const text = Array.from({ length: 1 + (q % 5) }, () => words[q % 2 ? zipf(rng, 30) : zipf(rng, words.length)]!).join(' ');
        const terms = analyze(text, null);
        const opts: KeywordSearchOptions[] = [{}, { context }, { context, exhaustive: true }, { context, filter: (d) => d % 3 !== 0, normalise: 'coverage' }];
        for (const o of opts) assert.deepEqual(loaded.search(terms, 20, o), mem.search(terms, 20, o), `${label}: query ${q} "${text}" ${JSON.stringify(Object.keys(o))}`);
      }
    };
    compare('grown');
    // Enough removals to compact both (a quarter of the ordinals dead): the image's part and the tails are renumbered.
    for (let d = 0; d < N + 1500; d += 2) both((k) => k.remove(d));
    compare('compacted');
    assert.deepEqual(loaded.serialize(), mem.serialize(), 'the same image');
  });

  it('scores as BM25F written out by hand: refused docs neither score nor lend their words', () => {
    const words = vocabulary(80);
    const N = 600;
    const rng = seeded(11);
    const texts = Array.from({ length: N }, () => Array.from({ length: 2 + Math.floor(rng.next() * 12) }, () => words[zipf(rng, words.length)]!));
    const idx = new KeywordIndex();
    texts.forEach((t, d) => idx.add(d, t.join(' '), null));
    const context = conversations(N, 20);
    const allowed = (d: number) => d % 5 !== 2;
    const avg = texts.reduce((n, t) => n + t.length, 0) / N;
    const df = new Map<string, number>();
    for (const t of texts) for (const w of new Set(t)) df.set(w, (df.get(w) ?? 0) + 1);
    for (let q = 0; q < 60; q++) {
      const terms = [...new Set(Array.from({ length: 1 + (q % 4) }, () => words[zipf(rng, words.length)]!))];
      // By hand: tf and length of a doc count its allowed neighbours at their weights.
      const want: { docId: number; score: number }[] = [];
      for (let d = 0; d < N; d++) {
        if (!allowed(d)) continue;
        const links = context.linksOf(d).filter((l) => allowed(l.docId));
        const norm = 1 + links.reduce((n, l) => n + l.weight, 0);
        const effLen = texts[d]!.length + links.reduce((n, l) => n + l.weight * texts[l.docId]!.length, 0);
        let score = 0;
        for (const t of terms) {
          const count = (x: number) => texts[x]!.filter((w) => w === t).length;
          const idf = Math.log(1 + (N - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
          const tf = count(d) + links.reduce((n, l) => n + l.weight * count(l.docId), 0);
          if (tf > 0) score += idf * (tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * effLen) / (avg * norm)));
        }
        if (score > 0) want.push({ docId: d, score });
      }
      want.sort((a, b) => b.score - a.score || a.docId - b.docId);
      const got = idx.search(terms, 10, { context, filter: allowed });
      assert.deepEqual(got.map((h) => h.docId), want.slice(0, 10).map((h) => h.docId), `query ${terms.join(' ')}`);
      got.forEach((h, i) => assert.ok(Math.abs(h.score - want[i]!.score) < 1e-4 * want[i]!.score, `score of ${h.docId}`));
    }
  });

  it('gives equal scores to the lower doc id whatever the order they were pushed in', () => {
    const entries = Array.from({ length: 50 }, (_, i) => ({ id: i, score: i % 3 }));
    const pick = (order: typeof entries) => {
      const h = new TopK(7);
      for (const e of order) h.push(e.id, e.score);
      return h.sorted();
    };
    const want = pick(entries);
    assert.deepEqual(want.map((h) => h.docId), [2, 5, 8, 11, 14, 17, 20]);
    const rng = seeded(3);
    for (let r = 0; r < 20; r++) {
      const shuffled = [...entries].sort(() => rng.next() - 0.5);
      assert.deepEqual(pick(shuffled), want);
    }
  });
});

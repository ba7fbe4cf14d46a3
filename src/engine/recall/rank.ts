// Ranking of recall candidates (SPEC R-RECALL-4): hybrid relevance first, then recency by kind,
// importance and trust, plus small same-conversation / same-project bonuses; and the passage of a
// raw message around the query terms. Pure functions over plain values.
// Recency, importance and the bonuses scale relevance by at most ±a few percent: they only break
// near-ties. (An additive recency term let month-old evidence lose to any fresh weak match: on
// LoCoMo, sessions spread over months, it cost ~half of the relevant hits in the top 5.)
import type { ItemKind, Trust } from '../types';
import { TRUST_WEIGHT } from '../types';
import { fold, tokenize } from './language';

const DAY_MS = 86_400_000;

/** Age half-lives (days) by kind, from R-RECALL-4: facts ~a month, raw ~three months, the rest ~a year. */
export const HALF_LIFE_DAYS: Record<ItemKind, number> = {
  fact: 30, raw: 90, summary: 365, note: 365, entity: 365, working: 1, doc: 365,
};

export interface RankWeights {
  relevance: number;
  recency: number;
  importance: number;
  sameConversation: number;
  sameProject: number;
}

/**
 * Relevance dominates; the others are shares of it: score = trust · rel · (relevance + recency·r +
 * importance·i + bonuses), r and i in [0, 1]. With these weights a fresh important item can beat a
 * stale unimportant one only when its relevance is within ~10% of it.
 */
export const DEFAULT_RANK_WEIGHTS: Readonly<RankWeights> = {
  relevance: 0.9, recency: 0.06, importance: 0.04, sameConversation: 0.03, sameProject: 0.02,
};

export interface Candidate {
  /** Merged hybrid relevance in [0, 1]. */
  relevance: number;
  kind: ItemKind;
  pinned?: boolean;
  createdMs: number;
  nowMs: number;
  /** [0, 1]; 0.5 when unknown. */
  importance?: number;
  trust: Trust;
  sameConversation?: boolean;
  sameProject?: boolean;
}

/** Recency factor in (0, 1]: 1 for new or pinned items, halving every half-life of the kind. */
export function recencyFactor(kind: ItemKind, createdMs: number, nowMs: number, pinned = false): number {
  if (pinned) return 1;
  const ageDays = Math.max(0, nowMs - createdMs) / DAY_MS;
  return Math.pow(0.5, ageDays / HALF_LIFE_DAYS[kind]);
}

/** Final score; 0 for quarantined items (trust weight 0 — they are never recalled). */
export function scoreCandidate(c: Candidate, w: RankWeights = DEFAULT_RANK_WEIGHTS): number {
  const trust = TRUST_WEIGHT[c.trust] ?? 0;
  if (trust === 0) return 0;
  const rel = clamp01(c.relevance);
  const imp = clamp01(c.importance ?? 0.5);
  const base = w.relevance + w.recency * recencyFactor(c.kind, c.createdMs, c.nowMs, c.pinned) + w.importance * imp;
  const bonus = (c.sameConversation ? w.sameConversation : 0) + (c.sameProject ? w.sameProject : 0);
  // Trust scales everything: an ingested item needs far more relevance to beat an owner's note.
  return trust * rel * (base + bonus);
}

export interface Hit {
  docId: number;
  score: number;
}

export interface MergeOptions {
  /** Vector hits under this cosine are ignored (memory.recall.minScore, 0.6). */
  minVectorScore?: number;
  /** 'rrf': reciprocal-rank fusion; 'weighted': weighted sum of normalised scores. */
  method?: 'rrf' | 'weighted';
  keywordWeight?: number;
  vectorWeight?: number;
  /** RRF constant (60 in Cormack et al. 2009). */
  rrfK?: number;
}

/**
 * Merges keyword and vector hits into relevance in [0, 1] per doc.
 * Keyword scores are expected normalised (KeywordIndex 'coverage' or 'max'); vector scores are cosines.
 */
export function mergeHybrid(keywordHits: readonly Hit[], vectorHits: readonly Hit[], opts: MergeOptions = {}): Map<number, number> {
  const minV = opts.minVectorScore ?? 0.6;
  const wk = opts.keywordWeight ?? 0.5;
  const wv = opts.vectorWeight ?? 0.5;
  const vec = vectorHits.filter((h) => h.score >= minV);
  const out = new Map<number, number>();
  if ((opts.method ?? 'weighted') === 'rrf') {
    const k = opts.rrfK ?? 60;
    const best = (wk + wv) / (k + 1); // a doc ranked first by both lists
    keywordHits.forEach((h, i) => out.set(h.docId, (out.get(h.docId) ?? 0) + wk / (k + i + 1)));
    vec.forEach((h, i) => out.set(h.docId, (out.get(h.docId) ?? 0) + wv / (k + i + 1)));
    for (const [id, s] of out) out.set(id, Math.min(1, s / best));
    return out;
  }
  // Weighted: the cosine is rescaled so minScore → 0 and 1 → 1 (a bare pass is weak evidence).
  for (const h of keywordHits) out.set(h.docId, wk * clamp01(h.score));
  for (const h of vec) {
    const v = minV < 1 ? clamp01((h.score - minV) / (1 - minV)) : 1;
    out.set(h.docId, (out.get(h.docId) ?? 0) + wv * v);
  }
  const total = wk + wv;
  for (const [id, s] of out) out.set(id, Math.min(1, s / total));
  return out;
}

/**
 * The window of `text` (≤ maxChars) holding the most query terms, cut at word boundaries, with "…"
 * where it was cut. 280 chars: a hit line in the recall block (R-RECALL-4).
 */
export function passageAround(text: string, queryTokens: readonly string[], maxChars = 280): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= maxChars) return flat;
  const wanted = new Set(queryTokens.map((t) => fold(t)));
  // Word positions with a flag for "matches a query term" (prefix match covers stemmed query terms).
  const words: { start: number; end: number; hit: boolean }[] = [];
  for (const m of flat.matchAll(/\S+/g)) {
    const toks = tokenize(m[0]);
    const hit = toks.some((t) => wanted.has(t) || [...wanted].some((q) => q.length >= 4 && t.startsWith(q)));
    words.push({ start: m.index!, end: m.index! + m[0].length, hit });
  }
  const budget = maxChars - 2; // room for the two "…" marks
  let bestStart = 0, bestHits = -1;
  let j = 0, hits = 0;
  for (let i = 0; i < words.length; i++) {
    if (j < i) { j = i; hits = 0; }
    while (j < words.length && words[j]!.end - words[i]!.start <= budget) {
      if (words[j]!.hit) hits++;
      j++;
    }
    if (hits > bestHits) { bestHits = hits; bestStart = i; }
    if (words[i]!.hit) hits--;
  }
  if (bestHits <= 0) bestStart = 0;
  // The first window with the most hits: it starts as early as possible, so hits keep some context before.
  const s = bestStart;
  let e = s;
  while (e < words.length && words[e]!.end - words[s]!.start <= budget) e++;
  if (e === s) return flat.slice(0, budget) + '…'; // one giant word
  const body = flat.slice(words[s]!.start, words[e - 1]!.end);
  return (s > 0 ? '…' : '') + body + (e < words.length ? '…' : '');
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

// Deterministic hash embedder: the fallback when no model weights are present (SPEC R-RECALL-8).
// Features: stemmed word unigrams and bigrams plus character 3–5-grams of each folded token,
// signed feature hashing into `dims`, L2-normalised. Same text → same vector, on every machine.
import { MemoryError } from '../errors';
import { analyze, detectLanguage } from '../recall/language';
import { normalizeInPlace, type EmbedKind, type Embedder } from './embedder';

export const HASH_EMBEDDER_DIMS = 384; // same width as multilingual-e5-small, so storage code is shared

// Feature weights (hand-tuned): whole words matter most, n-grams give paraphrase/inflection overlap.
const W_UNIGRAM = 1.0;
const W_BIGRAM = 0.7;
const W_CHARGRAM = 0.35;
const MAX_CHARS = 8000; // longer texts are embedded by their start; recall passages are short
/**
 * memory.recall.minScore is a floor for e5 cosines, where even unrelated passages score ~0.7.
 * Hash cosines of unrelated texts sit near 0 (±0.05 at 384 signed buckets) and one shared content
 * word already gives ~0.1–0.2, so the setting is scaled onto that range: the default 0.6 → 0.1.
 */
export const HASH_MIN_SCORE_SCALE = 1 / 6;

export class HashEmbedder implements Embedder {
  readonly id: string;
  constructor(readonly dims: number = HASH_EMBEDDER_DIMS) {
    if (!Number.isInteger(dims) || dims < 16 || dims > 4096) throw new MemoryError('E_BAD_INPUT', 'hash embedder: dims must be in [16, 4096]');
    this.id = `hash-v1-${dims}`;
  }

  /** Maps the e5-calibrated minScore setting onto hash cosines (see HASH_MIN_SCORE_SCALE). */
  calibrateMinScore(setting: number): number {
    return setting * HASH_MIN_SCORE_SCALE;
  }

  /**
   * Where a batch may be embedded off this thread (the engine's worker pool, same code): resolves with the
   * vectors, or null when it cannot take the batch — then this thread embeds it. Unset: always inline.
   */
  offload?: (texts: readonly string[], dims: number) => Promise<Float32Array[] | null>;

  async embed(texts: string[], _kind: EmbedKind): Promise<Float32Array[]> {
    const off = this.offload ? await this.offload(texts, this.dims) : null;
    return off ?? texts.map((t) => this.embedOne(t));
  }

  /** Synchronous core (the same vector `embed` returns). */
  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dims);
    const src = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
    const toks = analyze(src, detectLanguage(src));
    const dims = this.dims;
    let prev = '';
    for (const t of toks) {
      addFeature(v, dims, hash32(t, 0x9e3779b1), W_UNIGRAM);
      if (prev) addFeature(v, dims, hash32(prev + ' ' + t, 0x85ebca6b), W_BIGRAM);
      prev = t;
      // Char n-grams over the boundary-marked token: "<timeout>" → "<ti", "tim", … ("timeouts" overlaps).
      const s = '<' + t + '>';
      for (let n = 3; n <= 5; n++) {
        if (s.length < n) break;
        for (let i = 0; i + n <= s.length; i++) addFeature(v, dims, hashRange(s, i, i + n, 0xc2b2ae35 + n), W_CHARGRAM);
      }
    }
    return normalizeInPlace(v);
  }
}

function addFeature(v: Float32Array, dims: number, h: number, w: number): void {
  // Low bits pick the slot, the top bit the sign (signed hashing keeps the expected dot product unbiased).
  const slot = (h >>> 1) % dims;
  v[slot]! += h & 1 ? w : -w;
}

/** FNV-1a over UTF-16 code units, with a murmur finaliser; 32-bit unsigned. */
export function hash32(s: string, seed: number): number {
  return hashRange(s, 0, s.length, seed);
}

function hashRange(s: string, from: number, to: number, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = from; i < to; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

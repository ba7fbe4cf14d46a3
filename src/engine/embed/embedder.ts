// The Embedder port (SPEC R-RECALL-8): turns texts into L2-normalised vectors, locally.
// Implementations: e5Embedder (transformers.js, multilingual-e5-small) and hashEmbedder (no weights).
// Vectors from different embedder ids are never compared: the id names the vector space.

export type EmbedKind = 'query' | 'passage';

export interface Embedder {
  /** Names the vector space, e.g. 'hash-v1-384' or 'e5-small-q8'; vector files are keyed by it. */
  readonly id: string;
  readonly dims: number;
  /** One normalised vector per text, in order. */
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]>;
  dispose?(): Promise<void>;
}

/** Dot product of two vectors of equal length (cosine for normalised vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Scales `v` in place to unit length; a zero vector stays zero. */
export function normalizeInPlace(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i]! *= inv;
  }
  return v;
}

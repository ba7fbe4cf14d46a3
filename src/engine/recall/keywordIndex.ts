// In-memory BM25 inverted index over plain records (SPEC R-RECALL-3), independent of the store.
// Invariants: postings hold internal ordinals in ascending order, one int32 per doc (ordinal and tf packed,
// keywordContext.ts: POSTING_TF_BITS) in one Int32Array per term — for an index loaded from its image, an exact-size view of the image (`frozen` ints)
// followed by an own tail array for what was added since (copying a frequent term's whole list out of the
// image at its first new document cost ~160 MB at 1M docs); an update gets a fresh ordinal and the old one
// is tombstoned until compaction.
// Context expansion (optional, at query time): a doc may count its linked docs' terms at a lower
// weight (BM25F-style: tf and length both add up), so a chat turn matches on its neighbours' words
// too; the index itself stays per-doc, so links can change without re-indexing anything.
import { MemoryError } from '../errors';
import { analyze, detectLanguage, type Language } from './language';
import { DocOrdMap, MAP_ENTRY_BYTES } from './docOrdMap';
import { ContextScratch, POSTING_TF_BITS, POSTING_TF_MAX, TopK, type Accumulators, type KeywordContext, type OrdView, type PruneStats, type QueryTerm } from './keywordContext';

export type { KeywordContext, KeywordLink } from './keywordContext';
export { TopK } from './keywordContext';
export { MAP_ENTRY_BYTES } from './docOrdMap';

export interface KeywordHit {
  docId: number;
  score: number;
}

export interface KeywordSearchOptions {
  /** Only doc ids for which this returns true are returned (scope, trust, secrets). */
  filter?: (docId: number) => boolean;
  /**
   * 'max': divide by the best hit's score (best = 1).
   * 'coverage': idf-weighted share of the query matched, with tf saturation — comparable across queries.
   */
  normalise?: 'max' | 'coverage';
  /** Context expansion: the docs whose text also counts toward a doc's, at a weight. */
  context?: KeywordContext;
  /** Score every posting (no pruning): the reference the pruned search must equal (tests, benchmarks). */
  exhaustive?: boolean;
}

export interface KeywordIndexOptions {
  k1?: number;
  b?: number;
  /** @internal Tests: fewer ordinals than the packed format's 2^26. */
  maxOrdinals?: number;
}

const MAGIC = 0x4b57_4931; // "KWI1"
const FORMAT_VERSION = 2; // 1: [ordinal, tf] int32 pairs (still read: converted at load); 2: packed postings
const INITIAL_POSTING_CAPACITY = 2; // postings; most terms are rare
/** Ordinals a packed posting can carry (2^26: 67M docs, tombstones included until compaction). */
export const MAX_ORDINALS = 2 ** (31 - POSTING_TF_BITS);
const MAX_DOC_ID = 0x7fff_ffff;
const COMPACT_DEAD_RATIO = 0.25; // rebuild once a quarter of the ordinals are dead
/** Estimated header of a small typed array object in V8. */
export const TYPED_ARRAY_OVERHEAD = 64;

export class KeywordIndex {
  private readonly k1: number;
  private readonly b: number;
  private readonly termIds = new Map<string, number>();
  private terms: string[] = [];
  private postings: Int32Array[] = [];
  private postLen = new Int32Array(1024); // postings used in postings[t] (one int32 per doc), tail included
  private frozen = new Int32Array(0); // postings of postings[t] that are a view of the loaded image (0: an own array)
  private tails: (Int32Array | undefined)[] = []; // what a frozen term got since the image was loaded
  private ordToDoc = new Int32Array(1024);
  private ordLen = new Int32Array(1024); // terms in the doc; 0 for a dead ordinal
  private ordCount = 0;
  private deadCount = 0;
  private totalLen = 0;
  private readonly docToOrd = new DocOrdMap();
  private acc = new Float32Array(0);
  private accTf = new Float32Array(0); // coverage numerator when normalising by coverage
  private readonly scratch = new ContextScratch();
  private readonly maxOrdinals: number;
  /** The image format `deserialize` read (FORMAT_VERSION for an index built in memory). */
  restoredFormat = FORMAT_VERSION;

  constructor(opts: KeywordIndexOptions = {}) {
    this.k1 = opts.k1 ?? 1.2; // BM25 defaults from Robertson & Zaragoza
    this.b = opts.b ?? 0.75;
    this.maxOrdinals = Math.min(MAX_ORDINALS, Math.max(1, opts.maxOrdinals ?? MAX_ORDINALS));
  }

  /** True when the index came from an image of an older format (the next save should rewrite it). */
  get restoredOld(): boolean {
    return this.restoredFormat < FORMAT_VERSION;
  }

  get size(): number {
    return this.docToOrd.size;
  }

  get vocabularySize(): number {
    return this.terms.length;
  }

  /**
   * Bytes this index holds in memory (capacity of its typed arrays, plus an estimate of the vocabulary:
   * UTF-16 term strings and ~48 bytes of Map/array overhead per term). For the health figures (R-MAINT-3).
   */
  get approxBytes(): number {
    let n = this.postLen.byteLength + this.ordToDoc.byteLength + this.ordLen.byteLength + this.acc.byteLength + this.accTf.byteLength;
    for (const p of this.postings) n += p.byteLength + TYPED_ARRAY_OVERHEAD;
    for (const p of this.tails) if (p) n += p.byteLength + TYPED_ARRAY_OVERHEAD;
    n += this.frozen.byteLength;
    for (const t of this.terms) n += t.length * 2 + MAP_ENTRY_BYTES;
    return n + this.docToOrd.approxBytes + this.scratch.approxBytes;
  }

  has(docId: number): boolean {
    return this.docToOrd.has(docId);
  }

  /**
   * Indexes `text` under `docId`, replacing what was there. Returns the language used. Throws E_TOO_LARGE (and
   * keeps what it holds) when every ordinal is a live doc and `docId` would be one more.
   */
  add(docId: number, text: string, lang?: Language | null): Language | null {
    checkDocId(docId);
    if (typeof text !== 'string') throw new MemoryError('E_BAD_INPUT', 'keyword index: text must be a string');
    if (this.ordCount >= this.maxOrdinals) {
      this.compact();
      if (this.ordCount >= this.maxOrdinals) {
        if (!this.docToOrd.has(docId)) {
          throw new MemoryError('E_TOO_LARGE', `keyword index: ${this.maxOrdinals} documents at most`, { docs: String(this.size) });
        }
        this.remove(docId); // a replacement: its old ordinal makes the room
        this.compact();
      }
    }
    this.remove(docId);
    const language = lang === undefined ? detectLanguage(text) : lang;
    const toks = analyze(text, language);
    const ord = this.ordCount++;
    this.ensureOrdCapacity(this.ordCount);
    this.ordToDoc[ord] = docId;
    this.docToOrd.set(docId, ord);
    const tf = new Map<number, number>();
    for (const t of toks) {
      let id = this.termIds.get(t);
      if (id === undefined) {
        id = this.terms.length;
        this.terms.push(t);
        this.termIds.set(t, id);
        this.postings.push(new Int32Array(INITIAL_POSTING_CAPACITY));
        if (id >= this.postLen.length) this.postLen = grow(this.postLen, id + 1);
      }
      tf.set(id, (tf.get(id) ?? 0) + 1);
    }
    for (const [id, n] of tf) {
      const len = this.postLen[id]!;
      const f = this.frozen[id] ?? 0;
      const at = len - f; // in the own array: the whole list, or the tail after the image's part
      let p = f > 0 ? this.tails[id] ?? new Int32Array(INITIAL_POSTING_CAPACITY) : this.postings[id]!;
      if (at + 1 > p.length) p = grow(p, at + 1);
      if (f > 0) this.tails[id] = p;
      else this.postings[id] = p;
      p[at] = (ord << POSTING_TF_BITS) | (n < POSTING_TF_MAX ? n : POSTING_TF_MAX);
      this.postLen[id] = len + 1;
    }
    // A doc with no terms still counts as live with length 1, so remove() stays symmetric.
    const len = Math.max(1, toks.length);
    this.ordLen[ord] = len;
    this.totalLen += len;
    return language;
  }

  remove(docId: number): boolean {
    const ord = this.docToOrd.get(docId);
    if (ord < 0) return false;
    this.docToOrd.delete(docId);
    this.totalLen -= this.ordLen[ord]!;
    this.ordLen[ord] = 0;
    this.deadCount++;
    if (this.deadCount > 1024 && this.deadCount > COMPACT_DEAD_RATIO * this.ordCount) this.compact();
    return true;
  }

  /**
   * BM25 top-k for already analysed query terms (use `queryTerms`). Terms are scored rarest first;
   * an expanded search prunes exactly (keywordContext.ts). Ties go to the lower doc id.
   */
  search(queryTokens: readonly string[], k: number, opts: KeywordSearchOptions | ((docId: number) => boolean) = {}): KeywordHit[] {
    const o: KeywordSearchOptions = typeof opts === 'function' ? { filter: opts } : opts;
    if (k <= 0 || this.docToOrd.size === 0) return [];
    const qtf = new Map<number, number>();
    for (const t of queryTokens) {
      const id = this.termIds.get(t);
      if (id !== undefined) qtf.set(id, (qtf.get(id) ?? 0) + 1);
    }
    if (qtf.size === 0) return [];
    if (this.acc.length < this.ordCount) {
      this.acc = new Float32Array(this.ordLen.length);
      this.accTf = new Float32Array(this.ordLen.length);
    }
    const n = this.docToOrd.size;
    const terms: (QueryTerm & { id: number })[] = [];
    let idfSum = 0;
    for (const [id, qn] of [...qtf].sort((a, b) => this.postLen[a[0]]! - this.postLen[b[0]]! || a[0] - b[0])) {
      const len = this.postLen[id]!;
      const df = len; // includes tombstoned ordinals until compaction: a slight idf under-estimate
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5)) * qn;
      idfSum += idf;
      terms.push({ id, ...this.postingsOf(id), idf });
    }
    const a: Accumulators = { acc: this.acc, accTf: this.accTf, coverage: o.normalise === 'coverage', k1: this.k1, b: this.b, avgLen: this.totalLen / n };
    let touched: number[];
    if (o.context) {
      const ctx = this.scratch.begin(this.internals, o.context, o.filter);
      try {
        touched = ctx.score(terms, k, a, o.exhaustive === true);
      } finally {
        ctx.end();
      }
    } else {
      touched = this.scorePlain(terms, a);
    }
    const heap = new TopK(k);
    const acc = this.acc, accTf = this.accTf;
    for (const ord of touched) {
      const s = a.coverage ? accTf[ord]! / idfSum : acc[ord]!;
      acc[ord] = 0;
      accTf[ord] = 0;
      if (!heap.wouldAccept(s)) continue;
      const docId = this.ordToDoc[ord]!;
      if (o.filter && !o.filter(docId)) continue;
      heap.push(docId, s);
    }
    const hits = heap.sorted();
    if (o.normalise === 'max' && hits.length > 0) {
      const top = hits[0]!.score;
      for (const h of hits) h.score = top > 0 ? h.score / top : 0;
    }
    return hits;
  }

  /** Term `id`'s postings as a query reads them: one list, or a loaded image's view followed by the tail added since. */
  private postingsOf(id: number): Pick<QueryTerm, 'p' | 'len' | 'p2' | 'len2'> {
    const len = this.postLen[id]!;
    const f = this.frozen[id] ?? 0;
    if (f === 0) return { p: this.postings[id]!, len };
    return len > f ? { p: this.postings[id]!, len: f, p2: this.tails[id]!, len2: len - f } : { p: this.postings[id]!, len: f };
  }

  /** Plain BM25 over every posting of `terms`; returns the ordinals touched. */
  private scorePlain(terms: readonly QueryTerm[], a: Accumulators): number[] {
    const touched: number[] = [];
    for (const t of terms) {
      this.plainPostings(t.p, t.len, t.idf, a, touched);
      if (t.p2) this.plainPostings(t.p2, t.len2!, t.idf, a, touched);
    }
    return touched;
  }

  /** One part of a term's postings into `a` (plain BM25); pushes the ordinals reached first onto `touched`. */
  private plainPostings(p: Int32Array, len: number, idf: number, a: Accumulators, touched: number[]): void {
    const { acc, accTf, coverage, k1, b, avgLen } = a;
    const ordLen = this.ordLen;
    for (let i = 0; i < len; i++) {
      const v = p[i]!;
      const ord = v >>> POSTING_TF_BITS;
      const dl = ordLen[ord]!;
      if (dl === 0) continue;
      const tf = v & POSTING_TF_MAX;
      const sat = (tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * dl) / avgLen));
      if (acc[ord] === 0) touched.push(ord);
      acc[ord] += idf * sat;
      if (coverage) accTf[ord] += (idf * sat) / (k1 + 1);
    }
  }

  /** How the last expanded search was pruned (tests, benchmarks). */
  get lastPruneStats(): Readonly<PruneStats> {
    return this.scratch.stats;
  }

  /** @internal For ContextScratch. */
  get internals(): OrdView {
    return { ordLen: this.ordLen, ordToDoc: this.ordToDoc, docToOrd: this.docToOrd, ordCount: this.ordCount };
  }

  /** Drops tombstoned ordinals and renumbers, keeping posting order ascending. */
  compact(): void {
    const remap = new Int32Array(this.ordCount).fill(-1);
    let next = 0;
    for (let ord = 0; ord < this.ordCount; ord++) {
      if (this.ordLen[ord]! > 0) {
        remap[ord] = next;
        this.ordToDoc[next] = this.ordToDoc[ord]!;
        this.ordLen[next] = this.ordLen[ord]!;
        this.docToOrd.set(this.ordToDoc[next]!, next);
        next++;
      }
    }
    this.ordLen.fill(0, next, this.ordCount);
    for (let t = 0; t < this.postings.length; t++) {
      const f = this.frozen[t] ?? 0;
      const head = remapInPlace(this.postings[t]!, f > 0 ? f : this.postLen[t]!, remap);
      if (f === 0) {
        this.postLen[t] = head;
        continue;
      }
      const tail = this.tails[t];
      const rest = tail ? remapInPlace(tail, this.postLen[t]! - f, remap) : 0;
      this.postLen[t] = head + rest;
      this.frozen[t] = head;
      if (head === 0) {
        // Nothing left of the image's part: the tail is the whole list now.
        this.postings[t] = tail ?? new Int32Array(INITIAL_POSTING_CAPACITY);
        this.tails[t] = undefined;
      }
    }
    this.ordCount = next;
    this.deadCount = 0;
  }

  /**
   * Binary image: header, vocabulary (NUL-separated UTF-8), per-term lengths, postings (packed, one int32 each),
   * ordinals. Compacts first so the image carries no tombstones.
   */
  serialize(): Buffer {
    this.compact();
    const vocab = Buffer.from(this.terms.join('\0'), 'utf8');
    const T = this.terms.length;
    let postInts = 0;
    for (let t = 0; t < T; t++) postInts += this.postLen[t]!;
    const headerInts = 8;
    const vocabPadded = (vocab.length + 3) & ~3;
    const bytes = headerInts * 4 + vocabPadded + T * 4 + postInts * 4 + this.ordCount * 8;
    const buf = Buffer.alloc(bytes);
    const h = new Int32Array(buf.buffer, buf.byteOffset, headerInts);
    h.set([MAGIC, FORMAT_VERSION, T, vocab.length, postInts, this.ordCount, Math.round(this.k1 * 1000), Math.round(this.b * 1000)]);
    let off = headerInts * 4;
    vocab.copy(buf, off);
    off += vocabPadded;
    new Int32Array(buf.buffer, buf.byteOffset + off, T).set(this.postLen.subarray(0, T));
    off += T * 4;
    for (let t = 0; t < T; t++) {
      const { p, len, p2, len2 = 0 } = this.postingsOf(t);
      new Int32Array(buf.buffer, buf.byteOffset + off, len).set(p.subarray(0, len));
      if (p2) new Int32Array(buf.buffer, buf.byteOffset + off + len * 4, len2).set(p2.subarray(0, len2));
      off += (len + len2) * 4;
    }
    new Int32Array(buf.buffer, buf.byteOffset + off, this.ordCount).set(this.ordToDoc.subarray(0, this.ordCount));
    off += this.ordCount * 4;
    new Int32Array(buf.buffer, buf.byteOffset + off, this.ordCount).set(this.ordLen.subarray(0, this.ordCount));
    return buf;
  }

  static deserialize(input: Uint8Array): KeywordIndex {
    // Typed views need 4-byte alignment; a Buffer from the pool may not have it.
    const buf = input.byteOffset % 4 === 0 ? Buffer.from(input.buffer, input.byteOffset, input.byteLength) : Buffer.from(input);
    const corrupt = (why: string) => new MemoryError('E_CORRUPT', `keyword index image: ${why}`);
    if (buf.length < 32) throw corrupt('too short');
    const h = new Int32Array(buf.buffer, buf.byteOffset, 8);
    if (h[0] !== MAGIC) throw corrupt('bad magic');
    const format = h[1]!;
    if (format !== 1 && format !== FORMAT_VERSION) throw corrupt(`unknown version ${format}`);
    const [T, vocabBytes, postInts, ordCount] = [h[2]!, h[3]!, h[4]!, h[5]!];
    const vocabPadded = (vocabBytes + 3) & ~3;
    const need = 32 + vocabPadded + T * 4 + postInts * 4 + ordCount * 8;
    if (T < 0 || postInts < 0 || ordCount < 0 || need !== buf.length) throw corrupt('size mismatch');
    if (ordCount > MAX_ORDINALS || (format === 1 && postInts % 2 !== 0)) throw corrupt('size mismatch');
    const idx = new KeywordIndex({ k1: h[6]! / 1000, b: h[7]! / 1000 });
    idx.restoredFormat = format;
    let off = 32;
    const vocab = buf.toString('utf8', off, off + vocabBytes);
    off += vocabPadded;
    idx.terms = T === 0 ? [] : vocab.split('\0');
    if (idx.terms.length !== T) throw corrupt('vocabulary count');
    for (let t = 0; t < T; t++) idx.termIds.set(idx.terms[t]!, t);
    idx.postLen = new Int32Array(Math.max(1024, T));
    idx.postLen.set(new Int32Array(buf.buffer, buf.byteOffset + off, T));
    off += T * 4;
    // Views into the image itself (`buf` is 4-byte aligned, see above): no copy of the postings (at 1M
    // docs ~160 MB). A term that grows gets its own array (grow copies). A version 1 image's pairs are
    // packed into one new array once (the next save writes version 2).
    let all = new Int32Array(buf.buffer, buf.byteOffset + off, postInts);
    off += postInts * 4;
    if (format === 1) {
      all = packPairs(all, ordCount, corrupt);
      for (let t = 0; t < T; t++) {
        if (idx.postLen[t]! % 2 !== 0) throw corrupt('odd posting length');
        idx.postLen[t] = idx.postLen[t]! >> 1;
      }
    }
    idx.postings = new Array<Int32Array>(T);
    idx.frozen = new Int32Array(T);
    let p = 0;
    for (let t = 0; t < T; t++) {
      const len = idx.postLen[t]!;
      if (len < 0 || p + len > all.length) throw corrupt('posting lengths');
      idx.postings[t] = all.subarray(p, p + len);
      idx.frozen[t] = len; // new documents go to a tail (add), the view is never copied out
      p += len;
    }
    idx.ensureOrdCapacity(ordCount);
    idx.ordToDoc.set(new Int32Array(buf.buffer, buf.byteOffset + off, ordCount));
    off += ordCount * 4;
    idx.ordLen.set(new Int32Array(buf.buffer, buf.byteOffset + off, ordCount));
    idx.ordCount = ordCount;
    for (let o = 0; o < ordCount; o++) {
      idx.docToOrd.set(idx.ordToDoc[o]!, o);
      idx.totalLen += idx.ordLen[o]!;
    }
    return idx;
  }

  private ensureOrdCapacity(n: number): void {
    if (n <= this.ordToDoc.length) return;
    this.ordToDoc = grow(this.ordToDoc, n);
    this.ordLen = grow(this.ordLen, n);
  }
}

/** Query terms for `text`: language detected from the text, else `fallback`, else all languages. */
export function queryTerms(text: string, fallback?: Language | null): { lang: Language | null; terms: string[] } {
  const lang = detectLanguage(text) ?? fallback ?? null;
  return { lang, terms: analyze(text, lang) };
}

function checkDocId(docId: number): void {
  if (!Number.isInteger(docId) || docId < 0 || docId > MAX_DOC_ID) {
    throw new MemoryError('E_BAD_INPUT', 'keyword index: doc id must be an integer in [0, 2^31)', { docId: String(docId) });
  }
}

/** Renumbers `len` postings of `p` by `remap` (-1: dropped), in place; returns the postings kept. */
function remapInPlace(p: Int32Array, len: number, remap: Int32Array): number {
  let w = 0;
  for (let i = 0; i < len; i++) {
    const v = p[i]!;
    const r = remap[v >>> POSTING_TF_BITS]!;
    if (r < 0) continue;
    p[w++] = (r << POSTING_TF_BITS) | (v & POSTING_TF_MAX);
  }
  return w;
}

/** A version 1 image's [ordinal, tf] pairs as packed postings (tf saturated as `add` does). */
function packPairs(pairs: Int32Array, ordCount: number, corrupt: (why: string) => MemoryError): Int32Array {
  const out = new Int32Array(pairs.length >> 1);
  for (let i = 0, w = 0; i < pairs.length; i += 2, w++) {
    const ord = pairs[i]!, tf = pairs[i + 1]!;
    if (ord < 0 || ord >= ordCount || tf < 1) throw corrupt('posting');
    out[w] = (ord << POSTING_TF_BITS) | (tf < POSTING_TF_MAX ? tf : POSTING_TF_MAX);
  }
  return out;
}

function grow(a: Int32Array, min: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(Math.max(min, a.length * 2, 4));
  next.set(a);
  return next;
}

// The keyword index's expanded search (a doc also counts its linked neighbours' words, BM25F-style)
// and its query pruning. Pruning is exact ("MaxScore", continue strategy): terms are scored rarest
// first; a term adds at most its bound (idf·(k1+1), or idf for coverage) to any doc, so once the
// bounds of the terms left sum below the k-th best partial score among allowed docs, no doc the
// query has not reached yet can enter the top k. The terms left then only complete the scores of
// the docs still in the running (a doc whose partial score plus the bounds left falls below that
// k-th score drops out), in the same order and arithmetic as a full pass — so the hits and scores
// are identical to scoring every posting, which `exhaustive` still does (tests compare the two).
// At 1M docs the common terms' postings were ~90 % of a query's time.
/** A doc's context links: each linked doc's terms count toward it at `weight` in (0, 1]. Must be symmetric. */
export interface KeywordContext {
  linksOf(docId: number): readonly KeywordLink[];
  /**
   * Optional allocation-free form of `linksOf`: writes up to `docs.length` links into the arrays and
   * returns how many (the search hot path prefers it).
   */
  linksInto?(docId: number, docs: Int32Array, weights: Float64Array): number;
}

export interface KeywordLink {
  docId: number;
  weight: number;
}

/**
 * A posting is one int32: the doc's ordinal above POSTING_TF_BITS bits of the term's count in it, which saturates at
 * POSTING_TF_MAX (BM25's tf curve has all but flattened there: k1 = 1.2 gives 0.96 of its limit at 31 in a doc of
 * average length). Half the bytes of [ordinal, tf] pairs — at 1M items the keyword index was ~0.26 GB, most of it
 * postings — for at most 2^26 ordinals (67M docs; the index refuses more, see KeywordIndex.add).
 */
export const POSTING_TF_BITS = 5;
export const POSTING_TF_MAX = (1 << POSTING_TF_BITS) - 1;

/**
 * One analysed query term: its postings (ascending ordinals), count used and idf × query count; a list
 * loaded from an index image continues in `p2` (`len2` used) — every ordinal there is above those in `p`.
 */
export interface QueryTerm {
  p: Int32Array;
  len: number;
  p2?: Int32Array;
  len2?: number;
  idf: number;
}

/** The index's per-ordinal arrays a search reads. */
export interface OrdView {
  ordLen: Int32Array;
  ordToDoc: Int32Array;
  docToOrd: { get(docId: number): number };
  ordCount: number;
}

/** What a search accumulates into; acc / accTf are all-zero outside the returned touched ordinals. */
export interface Accumulators {
  acc: Float32Array;
  accTf: Float32Array;
  coverage: boolean;
  k1: number;
  b: number;
  avgLen: number;
}

/** How the last expanded search went (for tests and benchmarks). */
export interface PruneStats {
  /** Terms scored over all their postings / only for the docs still in the running. */
  fullTerms: number;
  prunedTerms: number;
  /** Docs still in the running when the last term was scored (0 when nothing was pruned). */
  candidates: number;
}

/** A bound-comparison margin: float32 sums may round a hair above their float64 bound. */
const SLACK = 1e-5;

/**
 * Scratch for context expansion, kept by the index and reused by every search (a search must not
 * allocate index-sized arrays: at 100k docs that was ~2.5 MB of garbage per query). Per ordinal:
 * expanded tf (reset as read), expanded length and norm, filter verdict and resolved links; only the
 * ordinals a search reached are reset afterwards. A link whose doc fails the filter adds nothing.
 */
export class ContextScratch {
  tf = new Float64Array(0);
  norm = new Float64Array(0);
  private len = new Float64Array(0); // 0 = not computed yet
  private allowed = new Int8Array(0); // 0 unknown, 1 yes, -1 no
  private linkStart = new Int32Array(0); // -1 = not resolved yet; else offset into linkOrd/linkW
  private linkCount = new Int32Array(0);
  private linkOrd = new Int32Array(256);
  private linkW = new Float64Array(256);
  private linkUsed = 0;
  /** Pruned scoring: 1 = a doc still in the running, 2 = a link of one (its words reach it), 3 = both. */
  private mark = new Uint8Array(0);
  private readonly tmpDocs = new Int32Array(64); // linksInto output (a doc has a handful of links)
  private readonly tmpW = new Float64Array(64);
  private readonly dirty: number[] = [];
  private ix!: OrdView;
  private context!: KeywordContext;
  private filter: ((docId: number) => boolean) | undefined;
  readonly stats: PruneStats = { fullTerms: 0, prunedTerms: 0, candidates: 0 };

  get approxBytes(): number {
    return this.tf.byteLength + this.norm.byteLength + this.len.byteLength + this.allowed.byteLength + this.linkStart.byteLength
      + this.linkCount.byteLength + this.linkOrd.byteLength + this.linkW.byteLength + this.mark.byteLength;
  }

  begin(ix: OrdView, context: KeywordContext, filter?: (docId: number) => boolean): this {
    if (this.dirty.length || this.linkUsed) this.end(); // a search that threw half-way
    this.ix = ix;
    this.context = context;
    this.filter = filter;
    const n = this.ix.ordCount;
    if (this.tf.length < n) {
      const cap = Math.max(n, this.tf.length * 2, 1024);
      this.tf = new Float64Array(cap);
      this.norm = new Float64Array(cap);
      this.len = new Float64Array(cap);
      this.allowed = new Int8Array(cap);
      this.linkStart = new Int32Array(cap).fill(-1);
      this.linkCount = new Int32Array(cap);
      this.mark = new Uint8Array(cap);
    }
    this.stats.fullTerms = this.stats.prunedTerms = this.stats.candidates = 0;
    return this;
  }

  /** Resets what this search touched (tf is already reset as read). */
  end(): void {
    for (const ord of this.dirty) {
      this.len[ord] = 0;
      this.norm[ord] = 0;
      this.allowed[ord] = 0;
      this.linkStart[ord] = -1;
    }
    this.dirty.length = 0;
    this.linkUsed = 0;
    this.filter = undefined;
  }

  /**
   * Scores `terms` (rarest first) into `a`; returns the ordinals touched. With `exhaustive` every
   * posting is scored; otherwise terms left once pruning is safe only complete the running docs.
   */
  score(terms: readonly QueryTerm[], k: number, a: Accumulators, exhaustive: boolean): number[] {
    const touched: number[] = [];
    const reached: number[] = [];
    const bound = (t: QueryTerm) => (a.coverage ? t.idf : t.idf * (a.k1 + 1));
    const left = new Float64Array(terms.length + 1); // left[j] = Σ bounds of terms j…
    for (let j = terms.length - 1; j >= 0; j--) left[j] = left[j + 1]! + bound(terms[j]!);
    let done = 0; // Σ bounds of the terms scored: no partial score exceeds it
    let running: number[] | null = null;
    for (let j = 0; j < terms.length; j++) {
      const t = terms[j]!;
      if (!running && !exhaustive && j > 0 && left[j]! * (1 + SLACK) < done) {
        const theta = this.kthAllowed(touched, k, a);
        if (left[j]! * (1 + SLACK) < theta) running = this.markRunning([...touched]); // touched holds allowed docs only (termTf, resolve)
      }
      if (running) {
        this.scoreRunning(t, running, a);
        this.stats.prunedTerms++;
        const theta = this.kthAllowed(running, k, a);
        running = this.markRunning(running.filter((o) => (a.coverage ? a.accTf[o]! : a.acc[o]!) + left[j + 1]! * (1 + SLACK) >= theta));
      } else {
        this.scoreAll(t, a, touched, reached);
        this.stats.fullTerms++;
      }
      done += bound(t);
    }
    if (running) {
      this.stats.candidates = running.length;
      this.markRunning([]);
    }
    return touched;
  }

  /** One term over all its postings: every doc it reaches (or reaches through links) gets its share. */
  private scoreAll(t: QueryTerm, a: Accumulators, touched: number[], reached: number[]): void {
    reached.length = 0;
    this.termTf(t.p, t.len, reached);
    if (t.p2) this.termTf(t.p2, t.len2!, reached);
    const tfs = this.tf;
    for (const ord of reached) {
      const tf = tfs[ord]!;
      tfs[ord] = 0;
      if (a.acc[ord] === 0) touched.push(ord);
      this.add(ord, tf, t.idf, a);
    }
  }

  /** One term for the running docs only: the same sums in the same order as `termTf`, restricted. */
  private scoreRunning(t: QueryTerm, running: readonly number[], a: Accumulators): void {
    this.runningTf(t.p, t.len);
    if (t.p2) this.runningTf(t.p2, t.len2!);
    const tfs = this.tf;
    for (const ord of running) {
      const tf = tfs[ord]!;
      if (tf === 0) continue;
      tfs[ord] = 0;
      this.add(ord, tf, t.idf, a);
    }
  }

  /** Fills `tf` of the running docs (and their running neighbours) for one term's postings. */
  private runningTf(p: Int32Array, len: number): void {
    const tfs = this.tf, ordLen = this.ix.ordLen, mark = this.mark;
    for (let i = 0; i < len; i++) {
      const v = p[i]!;
      const ord = v >>> POSTING_TF_BITS;
      const m = mark[ord]!;
      if (m === 0 || ordLen[ord] === 0 || !this.ok(ord)) continue;
      const tf = v & POSTING_TF_MAX;
      if (m & 1) tfs[ord] += tf;
      if (!(m & 2)) continue;
      const s = this.resolve(ord), e = s + this.linkCount[ord]!;
      for (let j = s; j < e; j++) {
        const lo = this.linkOrd[j]!;
        if (mark[lo]! & 1) tfs[lo] += tf * this.linkW[j]!;
      }
    }
  }

  private add(ord: number, tf: number, idf: number, a: Accumulators): void {
    const effLen = this.effLen(ord); // also sets norm[ord]
    const sat = (tf * (a.k1 + 1)) / (tf + a.k1 * (1 - a.b + (a.b * effLen) / (a.avgLen * this.norm[ord]!)));
    a.acc[ord] += idf * sat;
    if (a.coverage) a.accTf[ord] += (idf * sat) / (a.k1 + 1);
  }

  /** The k-th best partial score among `ords` — allowed docs only, as every touched doc is (-Infinity when fewer than k). */
  private kthAllowed(ords: readonly number[], k: number, a: Accumulators): number {
    const heap = new TopK(k);
    const v = a.coverage ? a.accTf : a.acc;
    for (const ord of ords) {
      const s = v[ord]!;
      if (heap.wouldAccept(s)) heap.push(ord, s);
    }
    return heap.size < k ? -Infinity : heap.threshold;
  }

  /** Replaces the marks of the docs in the running (mark bit 1) and their links (bit 2). */
  private markRunning(running: number[]): number[] {
    const mark = this.mark;
    for (const ord of this.marked) mark[ord] = 0;
    this.marked.length = 0;
    for (const ord of running) {
      if (mark[ord] === 0) this.marked.push(ord);
      mark[ord]! |= 1;
      const s = this.resolve(ord), e = s + this.linkCount[ord]!;
      for (let j = s; j < e; j++) {
        const lo = this.linkOrd[j]!;
        if (mark[lo] === 0) this.marked.push(lo);
        mark[lo]! |= 2;
      }
    }
    return running;
  }

  private readonly marked: number[] = [];

  /** Fills `tf` for one term's postings; pushes the ordinals reached onto `reached`. */
  termTf(p: Int32Array, len: number, reached: number[]): void {
    const tfs = this.tf, ordLen = this.ix.ordLen;
    for (let i = 0; i < len; i++) {
      const v = p[i]!;
      const ord = v >>> POSTING_TF_BITS;
      // A doc the filter refuses is never returned and lends its words to no neighbour: skip it whole
      // (its own score, and the links it would resolve for its length, were most of a scoped query's work).
      if (ordLen[ord] === 0 || !this.ok(ord)) continue;
      const tf = v & POSTING_TF_MAX;
      if (tfs[ord] === 0) reached.push(ord);
      tfs[ord] += tf;
      // Links are symmetric: this doc's words reach each linked doc at the link's weight.
      const s = this.resolve(ord), e = s + this.linkCount[ord]!;
      for (let j = s; j < e; j++) {
        const lo = this.linkOrd[j]!;
        if (tfs[lo] === 0) reached.push(lo);
        tfs[lo] += tf * this.linkW[j]!;
      }
    }
  }

  effLen(ord: number): number {
    let v = this.len[ord]!;
    if (v === 0) {
      v = this.ix.ordLen[ord]!;
      let norm = 1;
      const s = this.resolve(ord), e = s + this.linkCount[ord]!;
      for (let j = s; j < e; j++) {
        const w = this.linkW[j]!;
        v += this.ix.ordLen[this.linkOrd[j]!]! * w;
        norm += w;
      }
      this.len[ord] = v;
      this.norm[ord] = norm;
    }
    return v;
  }

  private ok(ord: number): boolean {
    let a = this.allowed[ord]!;
    if (a === 0) {
      a = !this.filter || this.filter(this.ix.ordToDoc[ord]!) ? 1 : -1;
      this.allowed[ord] = a;
      this.dirty.push(ord);
    }
    return a > 0;
  }

  /** Resolves `ord`'s links once per search; returns their offset (count in linkCount). */
  private resolve(ord: number): number {
    let s = this.linkStart[ord]!;
    if (s >= 0) return s;
    s = this.linkUsed;
    let c = 0;
    const docId = this.ix.ordToDoc[ord]!;
    let n: number;
    let docs: Int32Array, ws: Float64Array;
    if (this.context.linksInto) {
      n = this.context.linksInto(docId, this.tmpDocs, this.tmpW);
      docs = this.tmpDocs;
      ws = this.tmpW;
    } else {
      const links = this.context.linksOf(docId);
      n = Math.min(links.length, this.tmpDocs.length);
      for (let i = 0; i < n; i++) { this.tmpDocs[i] = links[i]!.docId; this.tmpW[i] = links[i]!.weight; }
      docs = this.tmpDocs;
      ws = this.tmpW;
    }
    if (s + n > this.linkOrd.length) {
      const cap = Math.max(this.linkOrd.length * 2, s + n);
      const ord2 = new Int32Array(cap);
      ord2.set(this.linkOrd);
      this.linkOrd = ord2;
      const w2 = new Float64Array(cap);
      w2.set(this.linkW);
      this.linkW = w2;
    }
    const toOrd = this.ix.docToOrd;
    for (let i = 0; i < n; i++) {
      const weight = ws[i]!;
      const lo = toOrd.get(docs[i]!);
      if (lo < 0 || !(weight > 0) || !this.ok(lo)) continue;
      this.linkOrd[s + c] = lo;
      this.linkW[s + c] = weight < 1 ? weight : 1;
      c++;
    }
    this.linkUsed = s + c;
    this.linkStart[ord] = s;
    this.linkCount[ord] = c;
    if (this.allowed[ord] === 0) this.dirty.push(ord); // keep the reset list complete
    return s;
  }
}

/**
 * A fixed-size heap of the k best (docId, score): higher score first, ties to the lower doc id — a total
 * order, so which of several equal scores are kept never depends on the order they were pushed in.
 * sorted() gives best first.
 */
export class TopK {
  private readonly ids: Int32Array;
  private readonly scores: Float64Array;
  private n = 0;
  constructor(private readonly k: number) {
    this.ids = new Int32Array(k);
    this.scores = new Float64Array(k);
  }
  get size(): number {
    return this.n;
  }
  /** The score a new entry must reach once the heap is full (a tie wins only with a lower doc id). */
  get threshold(): number {
    return this.n < this.k ? -Infinity : this.scores[0]!;
  }
  /** False when `score` cannot get in whatever its doc id (cheap check before the filter). */
  wouldAccept(score: number): boolean {
    return this.n < this.k || score >= this.scores[0]!;
  }
  push(id: number, score: number): void {
    const ids = this.ids, sc = this.scores;
    // worse(i): entry i ranks below (score, id) — the root is the worst entry kept.
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!(score < sc[parent]! || (score === sc[parent]! && id > ids[parent]!))) break;
        sc[i] = sc[parent]!;
        ids[i] = ids[parent]!;
        i = parent;
      }
      sc[i] = score;
      ids[i] = id;
      return;
    }
    if (score < sc[0]! || (score === sc[0]! && id >= ids[0]!)) return;
    let i = 0;
    const n = this.n;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (sc[r]! < sc[l]! || (sc[r]! === sc[l]! && ids[r]! > ids[l]!)) ? r : l;
      if (sc[c]! > score || (sc[c]! === score && ids[c]! < id)) break;
      sc[i] = sc[c]!;
      ids[i] = ids[c]!;
      i = c;
    }
    sc[i] = score;
    ids[i] = id;
  }
  sorted(): { docId: number; score: number }[] {
    const out: { docId: number; score: number }[] = [];
    for (let i = 0; i < this.n; i++) out.push({ docId: this.ids[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.docId - b.docId);
  }
}

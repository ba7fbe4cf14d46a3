// The engine's in-memory recall index: keyword (BM25) and vector indexes over every recallable
// item, plus compact per-document metadata so eligibility (scope, trust, secrets, validity) is
// checked without touching the database. Invariants: an item the conversation may not see never
// leaves `search`; secrets and quarantined items are never embedded; vectors of one embedder only.
// Relevance (measured on LoCoMo, test/bench/locomo.ts): BM25 with conversation-context expansion —
// each raw message also counts the words of the messages ±1 (weight 0.5) and ±2 (0.25) around it in
// its conversation, since a turn's meaning often lives in its neighbours ("yes, do that") — fused with
// the vector cosine (weighted 0.8 / 0.2: the keyword side is the stronger signal with the hash
// embedder). Links are kept here (per-conversation order by time), so nothing is re-indexed when a
// message arrives; a neighbour the caller may not see contributes nothing.
import type { Embedder } from '../embed/embedder';
import type { Logger } from '../host';
import { type ItemKind, type Scope, type Trust, TRUST_LEVELS } from '../types';
import { type KeywordContext, type KeywordLink, KeywordIndex, queryTerms } from './keywordIndex';
import { type Language } from './language';
import { mergeHybrid } from './rank';
import { VectorIndex, partitionLabel, partitionsFor } from './vectorIndex';

/** What the index needs of an item (the engine maps store rows onto this). */
export interface IndexedItem {
  id: string;
  kind: ItemKind;
  /** The searchable text (for notes: summary + body; for raw messages: the message). */
  text: string;
  project: string | null;
  projectType: string | null;
  conversation: string | null;
  trust: Trust;
  untrusted: boolean;
  secret: boolean;
  pinned: boolean;
  role: string | null;
  created: number;
  importance: number | null;
  invalidated: boolean;
  archived: boolean;
  expiresAt: number | null;
  language?: Language | null;
}

export interface IndexQuery {
  text: string;
  scope: Scope;
  conversation?: string;
  now: number;
  /** Candidates to return after merging. */
  k: number;
  includeSecrets?: boolean;
  /** Items the poison gate marked untrusted (left out of recall blocks by default). */
  includeUntrusted?: boolean;
  /** Vector hits under this cosine are ignored (memory.recall.minScore). */
  minVectorScore?: number;
  /** Only these kinds. */
  kinds?: readonly ItemKind[];
  /** Conversation language, used when the query's own cannot be detected. */
  fallbackLanguage?: Language | null;
  /** Leave out items of this conversation (e.g. the current one's own messages). */
  excludeConversation?: string;
  /** Which sides to ask (default both); one side alone is for diagnostics and benchmarks. */
  sides?: 'both' | 'keyword' | 'vector';
}

export interface IndexCandidate {
  id: string;
  docId: number;
  relevance: number;
  keywordScore: number;
  vectorScore: number;
}

const KIND_CODES: ItemKind[] = ['note', 'raw', 'summary', 'fact', 'entity', 'working', 'doc'];
const F_UNTRUSTED = 1, F_SECRET = 2, F_PINNED = 4, F_DEAD = 8, F_NOT_RECALLED_ROLE = 16;
// Candidates fetched from each side before merging: enough to survive the filters and re-ranking.
const CANDIDATES_PER_SIDE = 60;
/** Context-expansion weights by distance (1, 2 messages away); tuned on LoCoMo (+11 points any@5 over none). */
export const CONTEXT_WEIGHTS: readonly number[] = [0.5, 0.25];
/** Hybrid fusion weights: keyword first (see the header). */
const KEYWORD_WEIGHT = 0.8, VECTOR_WEIGHT = 0.2;

export class RecallIndex {
  readonly keyword = new KeywordIndex();
  private vectors: VectorIndex;
  private readonly docOf = new Map<string, number>();
  private ids: (string | undefined)[] = [];
  private freeDocs: number[] = [];
  private kind = new Uint8Array(1024);
  private trust = new Uint8Array(1024);
  private flags = new Uint8Array(1024);
  private created = new Float64Array(1024);
  private expires = new Float64Array(1024);
  private importance = new Float32Array(1024);
  private project = new Int32Array(1024);
  private projectType = new Int32Array(1024);
  private conversation = new Int32Array(1024);
  // Per-conversation doubly linked list of raw messages in time order (-1 = none), for context expansion.
  private prevDoc: Int32Array<ArrayBuffer> = new Int32Array(1024).fill(-1);
  private nextDoc: Int32Array<ArrayBuffer> = new Int32Array(1024).fill(-1);
  private readonly convTail = new Map<number, number>();
  private readonly context: KeywordContext = { linksOf: (doc) => this.linksOf(doc) };
  private readonly interned = new Map<string, number>([['', 0]]);
  private vectorRun: Promise<void> | undefined;
  lastVectorRun: number | null = null;

  constructor(private embedder: Embedder, private readonly logger: Logger) {
    this.vectors = new VectorIndex(embedder.id, embedder.dims);
  }

  get size(): number { return this.docOf.size; }
  get embedderId(): string { return this.embedder.id; }
  get vectorCount(): number { return this.vectors.size; }
  get vectorPartitions(): number { return this.vectors.partitions().filter((p) => this.vectors.countIn(p) > 0).length; }
  get pendingVectorCount(): number { return this.pendingText.size; }
  has(id: string): boolean { return this.docOf.has(id); }
  hasVector(id: string): boolean {
    const d = this.docOf.get(id);
    return d !== undefined && this.vectors.has(d);
  }

  /** Switches embedder: old vectors are dropped (never mixed) and everything is re-embedded in the background. */
  setEmbedder(embedder: Embedder, vectors?: VectorIndex): void {
    this.embedder = embedder;
    this.vectors = vectors ?? new VectorIndex(embedder.id, embedder.dims);
    // Texts are not kept here: the engine re-feeds every item through `upsert` after a switch.
  }

  /** Adopts a vector index loaded from disk; vectors of unknown items are dropped. */
  adoptVectors(vectors: VectorIndex): void {
    if (vectors.embedderId !== this.embedder.id) return;
    this.vectors = vectors;
  }

  exportVectors(): VectorIndex { return this.vectors; }

  upsert(item: IndexedItem, textForVector?: string): void {
    let doc = this.docOf.get(item.id);
    if (doc === undefined) {
      doc = this.freeDocs.pop() ?? this.ids.length;
      this.ensure(doc + 1);
      this.ids[doc] = item.id;
      this.docOf.set(item.id, doc);
    } else {
      this.keyword.remove(doc);
      this.unlink(doc);
    }
    this.kind[doc] = KIND_CODES.indexOf(item.kind);
    this.trust[doc] = TRUST_LEVELS.indexOf(item.trust);
    let f = 0;
    if (item.untrusted) f |= F_UNTRUSTED;
    if (item.secret) f |= F_SECRET;
    if (item.pinned) f |= F_PINNED;
    if (item.invalidated || item.archived) f |= F_DEAD;
    if (item.role === 'tool' || item.role === 'thinking' || item.role === 'system') f |= F_NOT_RECALLED_ROLE;
    this.flags[doc] = f;
    this.created[doc] = item.created;
    this.expires[doc] = item.expiresAt ?? 0;
    this.importance[doc] = item.importance ?? 0.5;
    this.project[doc] = this.intern(item.project);
    this.projectType[doc] = this.intern(item.projectType);
    this.conversation[doc] = this.intern(item.conversation);
    if (this.indexable(doc)) this.keyword.add(doc, item.text, item.language ?? null);
    if (item.kind === 'raw' && this.conversation[doc] !== 0 && this.indexable(doc)) this.link(doc);
    const partition = partitionLabel(item.project, item.projectType);
    if (this.embeddable(doc)) {
      // A changed text needs a new vector; an unchanged one keeps its old vector (same partition).
      this.vectors.remove(doc);
      this.pendingText.set(doc, { text: textForVector ?? item.text, partition });
    } else {
      this.vectors.remove(doc);
      this.pendingText.delete(doc);
    }
  }

  /** Drops an item from both indexes; returns false when unknown. */
  remove(id: string): boolean {
    const doc = this.docOf.get(id);
    if (doc === undefined) return false;
    this.keyword.remove(doc);
    this.unlink(doc);
    this.vectors.remove(doc);
    this.pendingText.delete(doc);
    this.docOf.delete(id);
    this.ids[doc] = undefined;
    this.flags[doc] = F_DEAD;
    this.freeDocs.push(doc);
    return true;
  }

  idOf(doc: number): string | undefined { return this.ids[doc]; }
  kindOf(doc: number): ItemKind { return KIND_CODES[this.kind[doc]]!; }
  trustOf(doc: number): Trust { return TRUST_LEVELS[this.trust[doc]]!; }
  createdOf(doc: number): number { return this.created[doc]!; }
  importanceOf(doc: number): number { return this.importance[doc]!; }
  pinnedOf(doc: number): boolean { return (this.flags[doc]! & F_PINNED) !== 0; }
  conversationIs(doc: number, conversation: string | undefined): boolean {
    return !!conversation && this.conversation[doc] === (this.interned.get(conversation) ?? -1);
  }
  projectIs(doc: number, project: string | undefined): boolean {
    return !!project && this.project[doc] === (this.interned.get(project) ?? -1);
  }

  /** Embeds everything pending, in batches; safe to call concurrently (one run at a time). */
  async embedPending(batchSize = 64): Promise<number> {
    while (this.vectorRun) await this.vectorRun;
    if (this.pendingText.size === 0) return 0;
    let done = 0;
    const run = (async () => {
      while (this.pendingText.size > 0) {
        const batch = [...this.pendingText.entries()].slice(0, batchSize);
        const embedder = this.embedder;
        let vecs: Float32Array[];
        try {
          vecs = await embedder.embed(batch.map(([, p]) => p.text), 'passage');
        } catch (e) {
          this.logger.warn('vectors.embed_failed', { items: batch.length, error: e instanceof Error ? e.name : 'error' });
          return;
        }
        if (embedder !== this.embedder) continue; // switched meanwhile: the new embedder re-queues
        batch.forEach(([doc, p], i) => {
          if (this.pendingText.get(doc) !== p) return; // changed meanwhile: the newer text is queued
          this.pendingText.delete(doc);
          if (this.ids[doc] !== undefined && this.embeddable(doc)) this.vectors.upsert(doc, p.partition, vecs[i]!);
        });
        done += batch.length;
      }
    })();
    this.vectorRun = run;
    try {
      await run;
    } finally {
      this.vectorRun = undefined;
      this.lastVectorRun = Date.now();
    }
    return done;
  }

  /** Hybrid candidates the conversation may see, merged to a relevance in [0, 1]. */
  async search(q: IndexQuery): Promise<IndexCandidate[]> {
    const allowed = this.allowedFilter(q);
    const { terms } = queryTerms(q.text, q.fallbackLanguage ?? null);
    const sides = q.sides ?? 'both';
    const kw = terms.length && sides !== 'vector' ? this.keyword.search(terms, CANDIDATES_PER_SIDE, { filter: allowed, normalise: 'max', context: this.context }) : [];
    let vec: { docId: number; score: number }[] = [];
    if (this.vectors.size > 0 && q.text.trim() && sides !== 'keyword') {
      try {
        const [qv] = await this.embedder.embed([q.text], 'query');
        if (qv) vec = this.vectors.search(qv, partitionsFor(q.scope), CANDIDATES_PER_SIDE, allowed);
      } catch (e) {
        // Fail-soft (R-RECALL-9): keyword candidates still stand.
        this.logger.warn('recall.vector_failed', { error: e instanceof Error ? e.name : 'error' });
      }
    }
    const minV = this.vectorFloor(q.minVectorScore ?? 0.6);
    const merged = mergeHybrid(kw, vec, { minVectorScore: minV, keywordWeight: KEYWORD_WEIGHT, vectorWeight: VECTOR_WEIGHT });
    const kwScore = new Map(kw.map((h) => [h.docId, h.score]));
    const vScore = new Map(vec.map((h) => [h.docId, h.score]));
    const out: IndexCandidate[] = [];
    for (const [docId, relevance] of merged) {
      const id = this.ids[docId];
      if (!id || relevance <= 0) continue;
      out.push({ id, docId, relevance, keywordScore: kwScore.get(docId) ?? 0, vectorScore: vScore.get(docId) ?? 0 });
    }
    out.sort((a, b) => b.relevance - a.relevance);
    return out.slice(0, Math.max(q.k, 1) * 4);
  }

  /** Eligibility: scope, trust, validity, roles, secrets, untrusted, kinds, expiry. */
  allowedFilter(q: Pick<IndexQuery, 'scope' | 'now' | 'includeSecrets' | 'includeUntrusted' | 'kinds' | 'excludeConversation'>): (doc: number) => boolean {
    const p = q.scope.project ? (this.interned.get(q.scope.project) ?? -1) : -2;
    const t = q.scope.projectType ? (this.interned.get(q.scope.projectType) ?? -1) : -2;
    const quarantined = TRUST_LEVELS.indexOf('quarantined');
    let blocked = F_DEAD | F_NOT_RECALLED_ROLE;
    if (!q.includeSecrets) blocked |= F_SECRET;
    if (!q.includeUntrusted) blocked |= F_UNTRUSTED;
    const kinds = q.kinds ? new Set(q.kinds.map((k) => KIND_CODES.indexOf(k))) : undefined;
    const excl = q.excludeConversation ? (this.interned.get(q.excludeConversation) ?? -3) : -3;
    return (doc: number) => {
      if ((this.flags[doc]! & blocked) !== 0) return false;
      if (this.trust[doc] === quarantined) return false;
      if (kinds && !kinds.has(this.kind[doc]!)) return false;
      const exp = this.expires[doc]!;
      if (exp > 0 && exp <= q.now) return false;
      if (excl >= 0 && this.conversation[doc] === excl) return false;
      const ip = this.project[doc]!;
      if (ip !== 0) return ip === p;
      const it = this.projectType[doc]!;
      if (it !== 0) return it === t;
      return true;
    };
  }

  private readonly pendingText = new Map<number, { text: string; partition: string }>();

  /**
   * The cosine floor for this embedder: `memory.recall.minScore` is written for e5 cosines; an
   * embedder with another cosine scale (the hash embedder) maps it onto its own.
   */
  vectorFloor(setting: number): number {
    const cal = (this.embedder as Embedder & { calibrateMinScore?: (s: number) => number }).calibrateMinScore;
    return typeof cal === 'function' ? cal.call(this.embedder, setting) : setting;
  }

  /** The raw messages around `doc` in its conversation, weighted by distance (CONTEXT_WEIGHTS). */
  linksOf(doc: number): KeywordLink[] {
    const out: KeywordLink[] = [];
    let p = this.prevDoc[doc] ?? -1, n = this.nextDoc[doc] ?? -1;
    for (const weight of CONTEXT_WEIGHTS) {
      if (p >= 0) { out.push({ docId: p, weight }); p = this.prevDoc[p]!; }
      if (n >= 0) { out.push({ docId: n, weight }); n = this.nextDoc[n]!; }
    }
    return out;
  }

  /** Inserts a raw message into its conversation's time-ordered list (appending is the usual case). */
  private link(doc: number): void {
    const c = this.conversation[doc]!;
    const tail = this.convTail.get(c);
    if (tail === undefined) {
      this.convTail.set(c, doc);
      return;
    }
    let after = tail;
    while (after >= 0 && this.created[after]! > this.created[doc]!) after = this.prevDoc[after]!;
    const before = after >= 0 ? this.nextDoc[after]! : this.headOf(tail);
    this.prevDoc[doc] = after;
    this.nextDoc[doc] = before;
    if (after >= 0) this.nextDoc[after] = doc;
    if (before >= 0) this.prevDoc[before] = doc;
    else this.convTail.set(c, doc);
  }

  private headOf(doc: number): number {
    while (this.prevDoc[doc]! >= 0) doc = this.prevDoc[doc]!;
    return doc;
  }

  private unlink(doc: number): void {
    const p = this.prevDoc[doc]!, n = this.nextDoc[doc]!;
    const c = this.conversation[doc]!;
    if (p >= 0) this.nextDoc[p] = n;
    if (n >= 0) this.prevDoc[n] = p;
    if (this.convTail.get(c) === doc) {
      if (p >= 0) this.convTail.set(c, p);
      else this.convTail.delete(c);
    }
    this.prevDoc[doc] = -1;
    this.nextDoc[doc] = -1;
  }

  private indexable(doc: number): boolean {
    return this.trust[doc] !== TRUST_LEVELS.indexOf('quarantined') && (this.flags[doc]! & F_NOT_RECALLED_ROLE) === 0;
  }

  private embeddable(doc: number): boolean {
    return this.indexable(doc) && (this.flags[doc]! & (F_SECRET | F_DEAD)) === 0;
  }

  private intern(s: string | null): number {
    if (!s) return 0;
    let n = this.interned.get(s);
    if (n === undefined) {
      n = this.interned.size;
      this.interned.set(s, n);
    }
    return n;
  }

  private ensure(n: number): void {
    if (n <= this.kind.length) return;
    const cap = Math.max(n, this.kind.length * 2);
    const g = <T extends Uint8Array | Float64Array | Float32Array | Int32Array>(a: T): T => {
      const next = new (a.constructor as { new (n: number): T })(cap);
      next.set(a as never);
      return next;
    };
    this.kind = g(this.kind);
    this.trust = g(this.trust);
    this.flags = g(this.flags);
    this.created = g(this.created);
    this.expires = g(this.expires);
    this.importance = g(this.importance);
    this.project = g(this.project);
    this.projectType = g(this.projectType);
    this.conversation = g(this.conversation);
    this.prevDoc = growLinks(this.prevDoc, cap);
    this.nextDoc = growLinks(this.nextDoc, cap);
  }
}

function growLinks(a: Int32Array, cap: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(cap).fill(-1);
  next.set(a);
  return next;
}

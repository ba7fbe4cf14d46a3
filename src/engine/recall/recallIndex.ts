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
import { HashEmbedder } from '../embed/hashEmbedder';
import { MemoryError } from '../errors';
import type { Logger } from '../host';
import { type ItemKind, type Scope, type Trust, TRUST_LEVELS } from '../types';
import { type KeywordContext, type KeywordLink, KeywordIndex, MAP_ENTRY_BYTES, queryTerms } from './keywordIndex';
import { IdList, IdTable } from './idTable';
import { bufferSource, decodeImage, encodeImage, IMAGE_VERSION, type ImageOut, type ImageSource, writeImage } from './indexImage';
import { type Language } from './language';
import { mergeHybrid } from './rank';
import { VectorIndex, partitionLabel, partitionsFor } from './vectorIndex';
import { growLinks, vectorKey } from './vectorKey';

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
  /** Score every keyword posting instead of pruning (same answer, slower): the benchmarks' reference. */
  exhaustiveKeyword?: boolean;
  /** Query terms already analysed by the caller (`queryTerms(text)`), so the text is not analysed twice. */
  terms?: string[];
  lang?: Language | null;
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

/** What `restore` read from an image: the store sequence number it reflects. */
export interface RestoredImage {
  seq: number;
  docs: number;
}

export class RecallIndex {
  keyword = new KeywordIndex();
  private vectors: VectorIndex;
  private readonly idAt = (doc: number): string | undefined => this.ids.get(doc);
  private readonly idIs = (doc: number, id: string): boolean => this.ids.is(doc, id);
  private docOf = new IdTable(this.idAt, undefined, 0, this.idIs);
  private ids = new IdList();
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
  private readonly context: KeywordContext = {
    linksOf: (doc) => this.linksOf(doc),
    linksInto: (doc, docs, weights) => this.linksInto(doc, docs, weights),
  };
  private readonly interned = new Map<string, number>([['', 0]]);
  private internedNames: string[] = [''];
  // Per doc: hash of the text its vector was (or will be) made from, plus its partition, so an
  // unchanged item keeps its vector on re-index (0 = none).
  private textHash = new Uint32Array(1024);
  private vectorRun: Promise<void> | undefined;
  // Vectors made ahead for texts about to be indexed (an import's messages, embedded on the gate pool's workers with
  // their verdicts), by text: upsert takes one instead of queueing the text. Only the hash embedder's (its vector is a
  // function of the text, the same code on every thread); setEmbedder clears them, so each is of the embedder in use.
  private primed = new Map<string, Float32Array>();
  lastVectorRun: number | null = null;
  /** The format of the vector file last adopted (an older one is rewritten at the next save). */
  adoptedFileVersion = 0;
  /** The format of the image last restored (an older one is rewritten at the next save). */
  restoredVersion = 0;
  /** The image last restored is of an older format, or holds a keyword index of one: the next save rewrites it. */
  restoredStale = false;
  /** Bumped by every change to the keyword side / metadata, and to the vectors (persistence checks these). */
  version = 0;
  vectorVersion = 0;

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

  get embedderInUse(): Embedder { return this.embedder; }

  /** The width vectors may be primed at (`prime`): the hash embedder's, or null for any other embedder. */
  get primeDims(): number | null { return this.embedder instanceof HashEmbedder ? this.embedder.dims : null; }
  /** Vectors primed and not yet taken or cleared (benchmarks, tests). */
  get primedCount(): number { return this.primed.size; }
  /** Upserts that took a primed vector instead of queueing their text, since this index was made. */
  primedUsed = 0;

  /** The vector `id` holds (dequantised when stored as int8), or undefined when it has none yet. */
  vectorOf(id: string): Float32Array | undefined {
    const doc = this.docOf.get(id);
    return doc === undefined ? undefined : this.vectors.get(doc);
  }

  /**
   * Hands over the hash embedder's vector of `text` (HashEmbedder.embedOne, computed elsewhere) for the next upsert of
   * an item with that text (taken once; `clearPrimed` lets go of those never taken). Ignored unless the embedder in
   * use is a hash embedder of that width.
   */
  primeVector(text: string, vec: Float32Array): void {
    const dims = this.primeDims;
    if (dims === null || typeof text !== 'string' || !(vec instanceof Float32Array) || vec.length !== dims) return;
    this.primed.set(text, vec);
  }

  clearPrimed(): void { this.primed.clear(); }

  /**
   * Bytes this index holds in memory (R-MAINT-3 health): the keyword index, the vectors, and the rest —
   * per-document metadata arrays, the id map and texts waiting for a vector. Typed arrays count their
   * capacity; strings and Map entries are estimated (UTF-16 + ~48 bytes per entry).
   */
  footprint(): { keywordBytes: number; vectorBytes: number; metadataBytes: number; pendingBytes: number } {
    let metadataBytes = this.kind.byteLength + this.trust.byteLength + this.flags.byteLength + this.created.byteLength
      + this.expires.byteLength + this.importance.byteLength + this.project.byteLength + this.projectType.byteLength
      + this.conversation.byteLength + this.prevDoc.byteLength + this.nextDoc.byteLength + this.textHash.byteLength
      + (this.convTail.size + this.freeDocs.length) * MAP_ENTRY_BYTES;
    metadataBytes += this.docOf.raw.byteLength;
    metadataBytes += this.ids.approxBytes;
    for (const name of this.internedNames) metadataBytes += name.length * 2 + 2 * MAP_ENTRY_BYTES;
    let pendingBytes = 0;
    for (const p of this.pendingText.values()) pendingBytes += (p.text.length + p.partition.length) * 2 + MAP_ENTRY_BYTES;
    return { keywordBytes: this.keyword.approxBytes, vectorBytes: this.vectors.approxBytes, metadataBytes, pendingBytes };
  }

  /**
   * Switches embedder: the old vectors and queue are dropped at once (never mixed with the new
   * space). Texts are not kept here: the caller re-queues items (`idsNeedingVectors` + `queueVector`)
   * or adopts a saved file (`adoptVectors`) for the new embedder.
   */
  setEmbedder(embedder: Embedder): void {
    this.vectorVersion++;
    this.embedder = embedder;
    this.vectors.release();
    this.vectors = new VectorIndex(embedder.id, embedder.dims);
    this.pendingText.clear();
    this.primed.clear();
    this.textHash.fill(0);
  }

  /**
   * Adopts vectors saved by `saveVectors` for the current embedder: a row is kept only when its item
   * is indexed here, still embeddable, and its text and partition hash match; the rest are re-queued
   * by the caller. Returns how many rows were adopted.
   */
  adoptVectors(file: string | VectorIndex): number {
    const loaded = typeof file === 'string' ? VectorIndex.load(file, this.embedder.id, this.embedder.dims) : file;
    if (loaded.embedderId !== this.embedder.id || loaded.dims !== this.embedder.dims) throw new MemoryError('E_REFUSED', 'vector file belongs to another embedder');
    const map = loaded.itemMap;
    loaded.itemMap = undefined;
    this.adoptedFileVersion = loaded.fileVersion;
    if (!map) throw new MemoryError('E_CORRUPT', 'vector file: item map missing');
    // The file's ids are the restored image's (same bytes: the usual case, nothing decoded) or are decoded here.
    const same = this.ids.baseBlob.length > 0 && !!map.idBlob?.equals(this.ids.baseBlob);
    const fileIds = same ? null : map.ids();
    const hashes = map.hashes;
    const labelOf = this.partitionLabels();
    // Which rows fit: same item indexed here, still embeddable, same text and partition hash. The usual
    // row kept its doc number (same id bytes, or the same id string; a lookup by id only when it moved).
    const fits = (oldDoc: number, partition: string): number => {
      let doc: number;
      if (same && this.ids.isBase(oldDoc)) {
        doc = this.ids.has(oldDoc) ? oldDoc : -1;
      } else {
        const id = fileIds ? fileIds[oldDoc] : this.ids.baseGet(oldDoc);
        if (!id) return -1;
        doc = this.ids.get(oldDoc) === id ? oldDoc : (this.docOf.get(id) ?? -1);
      }
      if (doc < 0 || !this.embeddable(doc)) return -1;
      const h = hashes[oldDoc]! >>> 0;
      const current = this.textHash[doc]!;
      if (h === 0 || (current !== 0 && current !== h) || partition !== labelOf(doc)) return -1;
      return doc;
    };
    // One pass over the rows (partition by partition, no callback per row): where each one goes.
    const to = new Int32Array(hashes.length).fill(-1);
    const drop: number[] = [];
    let moved = false;
    for (const part of loaded.partitionDocs()) {
      for (let r = 0; r < part.count; r++) {
        const oldDoc = part.docIds[r]!;
        const doc = oldDoc < to.length ? fits(oldDoc, part.label) : -1;
        if (doc < 0) drop.push(oldDoc);
        else {
          to[oldDoc] = doc;
          if (doc !== oldDoc) moved = true;
        }
      }
    }
    let target: VectorIndex;
    if (!moved) {
      // The usual case (the file was saved with this index's doc numbering): keep the loaded rows in place.
      for (const d of drop) loaded.remove(d);
      target = loaded;
    } else {
      target = new VectorIndex(this.embedder.id, this.embedder.dims);
      loaded.forEachRow((oldDoc, partition, vec) => {
        if (oldDoc < to.length && to[oldDoc]! >= 0) target.upsert(to[oldDoc]!, partition, vec);
      });
      loaded.release();
    }
    const pending = this.pendingText.size > 0;
    for (let oldDoc = 0; oldDoc < to.length; oldDoc++) {
      const doc = to[oldDoc]!;
      if (doc < 0) continue;
      this.textHash[doc] = hashes[oldDoc]! >>> 0;
      if (pending) this.pendingText.delete(doc);
    }
    const adopted = target.size;
    // Vectors made meanwhile in this process (same embedder) win over the file's.
    this.vectors.forEachRow((doc, partition, vec) => target.upsert(doc, partition, vec));
    if (this.vectors !== target) this.vectors.release();
    this.vectors = target;
    this.vectorVersion++;
    return adopted;
  }

  /** At close, after the last save: the vectors' memory goes to the next index (`vectorVersion` stays: no save follows). */
  releaseVectors(): void { this.vectors.release(); }

  /** Writes the current embedder's vectors with the item map `adoptVectors` needs (temp + fsync + rename). */
  saveVectors(file: string): void {
    // Every doc's id (as the image has them, so a load can compare the bytes), a hash only where a vector is.
    const hashes = new Uint32Array(this.ids.length);
    this.vectors.forEachDoc((doc) => { hashes[doc] = this.textHash[doc]!; });
    this.vectors.save(file, { ids: this.ids.blob ?? this.ids.toArray(), hashes });
  }

  exportVectors(): VectorIndex { return this.vectors; }

  upsert(item: IndexedItem, textForVector?: string): void {
    this.version++;
    let doc = this.docOf.get(item.id);
    if (doc === undefined) {
      doc = this.freeDocs.pop() ?? this.ids.length;
      this.ensure(doc + 1);
      this.ids.set(doc, item.id);
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
      // A changed text (or partition) needs a new vector; an unchanged one keeps the vector it has.
      const text = textForVector ?? item.text;
      const h = vectorKey(text, partition);
      if (this.textHash[doc] === h && (this.vectors.has(doc) || this.pendingText.has(doc))) return;
      this.textHash[doc] = h;
      if (this.vectors.remove(doc)) this.vectorVersion++;
      const made = this.primed.size > 0 ? this.primed.get(text) : undefined;
      if (made) {
        this.primed.delete(text);
        this.pendingText.delete(doc);
        this.vectors.upsert(doc, partition, made);
        this.vectorVersion++;
        this.primedUsed++;
        return;
      }
      this.pendingText.set(doc, { text, partition });
    } else {
      this.textHash[doc] = 0;
      if (this.vectors.remove(doc)) this.vectorVersion++;
      this.pendingText.delete(doc);
    }
  }

  /** Queues a vector for an indexed item that has none (after a load or an embedder switch); false when not needed. */
  queueVector(id: string, text: string): boolean {
    const doc = this.docOf.get(id);
    if (doc === undefined || !this.embeddable(doc) || this.vectors.has(doc) || this.pendingText.has(doc)) return false;
    const partition = this.partitionOf(doc);
    this.textHash[doc] = vectorKey(text, partition);
    this.pendingText.set(doc, { text, partition });
    return true;
  }

  /** Ids of items that should have a vector and have none, queued or stored. */
  idsNeedingVectors(): string[] {
    const out: string[] = [];
    for (let doc = 0; doc < this.ids.length; doc++) {
      if (this.ids.has(doc) && this.embeddable(doc) && !this.vectors.has(doc) && !this.pendingText.has(doc)) out.push(this.ids.get(doc)!);
    }
    return out;
  }

  /** Items that should have a vector (the "of Y" in status). */
  get embeddableCount(): number {
    let n = 0;
    for (let doc = 0; doc < this.ids.length; doc++) if (this.ids.has(doc) && this.embeddable(doc)) n++;
    return n;
  }

  /** Every indexed item id (for dropping ids the store no longer has). */
  allIds(): string[] {
    return this.ids.toArray().filter((id): id is string => id !== undefined);
  }

  /** Drops an item from both indexes; returns false when unknown. */
  remove(id: string): boolean {
    const doc = this.docOf.get(id);
    if (doc === undefined) return false;
    this.version++;
    this.keyword.remove(doc);
    this.unlink(doc);
    if (this.vectors.remove(doc)) this.vectorVersion++;
    this.pendingText.delete(doc);
    this.docOf.delete(id);
    this.ids.set(doc, undefined);
    this.flags[doc] = F_DEAD;
    this.textHash[doc] = 0;
    this.freeDocs.push(doc);
    return true;
  }

  idOf(doc: number): string | undefined { return this.ids.get(doc); }
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

  /** Embeds what is pending in batches until at most `leave` texts wait; safe to call concurrently (one run at a time). */
  async embedPending(batchSize = 64, leave = 0): Promise<number> {
    while (this.vectorRun) await this.vectorRun;
    if (this.pendingText.size <= leave) return 0;
    let done = 0;
    const run = (async () => {
      while (this.pendingText.size > leave) {
        // The first `batchSize` entries, without copying the whole queue (100k queued at a switch).
        const batch: [number, { text: string; partition: string }][] = [];
        for (const e of this.pendingText) {
          batch.push(e);
          if (batch.length >= batchSize) break;
        }
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
          if (this.ids.has(doc) && this.embeddable(doc)) {
            this.vectors.upsert(doc, p.partition, vecs[i]!);
            this.vectorVersion++;
          }
        });
        done += batch.length;
        // A synchronous embedder (hash) resolves at once: yield so a large queue never blocks the event loop.
        if (this.pendingText.size > leave) await new Promise((r) => setImmediate(r));
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
    // Precomputed terms came from the text's own detected language; a fallback only applies when none was found.
    const terms = q.terms && (q.lang || !q.fallbackLanguage) ? q.terms : queryTerms(q.text, q.fallbackLanguage ?? null).terms;
    const sides = q.sides ?? 'both';
    const kw = terms.length && sides !== 'vector' ? this.keyword.search(terms, CANDIDATES_PER_SIDE, { filter: allowed, normalise: 'max', context: this.context, exhaustive: q.exhaustiveKeyword === true }) : [];
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
      const id = this.ids.get(docId);
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

  /** `partitionOf` memoised by (project, project type) for one pass over many docs (no string built per doc). */
  private partitionLabels(): (doc: number) => string {
    const cache = new Map<number, string>();
    return (doc) => {
      const key = this.project[doc]! * 0x1_0000_0000 + this.projectType[doc]!;
      let label = cache.get(key);
      if (label === undefined) cache.set(key, (label = this.partitionOf(doc)));
      return label;
    };
  }

  private partitionOf(doc: number): string {
    return partitionLabel(this.internedNames[this.project[doc]!] || null, this.internedNames[this.projectType[doc]!] || null);
  }

  /**
   * Binary image of everything but the vectors and the embedding queue (format: indexImage.ts): the
   * ids, the id table, the per-doc columns and the keyword index, with a CRC-32. `seq` is the store
   * sequence number the image reflects.
   */
  serialize(seq: number): Buffer {
    return encodeImage(this.imageOut(seq));
  }

  /** Writes `serialize(seq)`'s bytes to `file` (atomically) without building them in one buffer. */
  saveImage(file: string, seq: number): void {
    writeImage(file, this.imageOut(seq));
  }

  private imageOut(seq: number): ImageOut {
    return { seq, docs: this.ids.length, ids: this.ids.blob ?? this.ids.toArray(), interned: this.internedNames, table: this.docOf.raw, columns: this.columns(), keyword: this.keyword.serialize() };
  }

  /**
   * Replaces this index's keyword side and metadata with an image from `serialize` (vectors and the
   * queue start empty: adopt a vector file next). Throws E_CORRUPT and leaves the index empty when
   * the image is damaged or of another version.
   */
  restore(image: Uint8Array | ImageSource): RestoredImage {
    this.clear();
    try {
      const img = decodeImage(image instanceof Uint8Array ? bufferSource(image) : image, (n) => {
        this.ensure(n);
        return this.columns();
      });
      const n = img.docs;
      this.keyword = KeywordIndex.deserialize(img.keyword);
      this.internedNames = img.interned;
      this.interned.clear();
      this.internedNames.forEach((name, i) => this.interned.set(name, i));
      if (img.idBlob) {
        if (!this.ids.load(img.idBlob, n)) throw new MemoryError('E_CORRUPT', 'recall index image: bad id list');
      } else {
        this.ids = IdList.of(img.ids ?? []);
      }
      let live = 0;
      for (let d = 0; d < n; d++) {
        if (!this.ids.has(d)) this.freeDocs.push(d);
        else live++;
      }
      // The saved id table as it is (a view into the image: no per-item work), else one built here.
      const adopted = img.table && IdTable.adopt(img.table, n, live, this.idAt, this.idIs);
      this.docOf = adopted || new IdTable(this.idAt, undefined, 0, this.idIs);
      if (!adopted) {
        this.docOf.rehash(IdTable.slotsFor(live));
        for (let d = 0; d < n; d++) if (this.ids.has(d)) this.docOf.set(this.ids.get(d)!, d);
      }
      this.restoredVersion = img.version;
      this.restoredStale = img.version < IMAGE_VERSION || this.keyword.restoredOld;
      // Conversation tails: the linked raw message of each conversation with no successor.
      const raw = KIND_CODES.indexOf('raw');
      for (let d = 0; d < n; d++) {
        if (this.ids.has(d) && this.kind[d] === raw && this.conversation[d] !== 0 && this.indexable(d) && this.nextDoc[d] === -1) {
          this.convTail.set(this.conversation[d]!, d);
        }
      }
      return { seq: img.seq, docs: this.docOf.size };
    } catch (e) {
      this.clear();
      throw e instanceof MemoryError ? e : new MemoryError('E_CORRUPT', `recall index image: ${(e as Error)?.name ?? 'unreadable'}`);
    }
  }

  /** Empties the index (keyword, metadata, vectors, queue); the embedder stays. */
  clear(): void {
    this.version++;
    this.vectorVersion++;
    this.keyword = new KeywordIndex();
    this.vectors = new VectorIndex(this.embedder.id, this.embedder.dims);
    this.docOf.clear();
    this.ids = new IdList();
    this.freeDocs = [];
    this.convTail.clear();
    this.interned.clear();
    this.interned.set('', 0);
    this.internedNames = [''];
    this.pendingText.clear();
    for (const a of this.columns()) a.fill(0);
    this.prevDoc.fill(-1);
    this.nextDoc.fill(-1);
  }

  /** The per-doc arrays an image carries, in image order (8-byte elements first keeps alignment simple). */
  private columns(): (Uint8Array | Float64Array | Float32Array | Int32Array | Uint32Array)[] {
    return [this.created, this.expires, this.importance, this.project, this.projectType, this.conversation, this.prevDoc, this.nextDoc,
      this.textHash, this.kind, this.trust, this.flags];
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

  /** `linksOf` without allocating (the keyword search hot path). */
  linksInto(doc: number, docs: Int32Array, weights: Float64Array): number {
    let p = this.prevDoc[doc] ?? -1, n = this.nextDoc[doc] ?? -1;
    let c = 0;
    for (let i = 0; i < CONTEXT_WEIGHTS.length && c + 2 <= docs.length; i++) {
      const weight = CONTEXT_WEIGHTS[i]!;
      if (p >= 0) { docs[c] = p; weights[c++] = weight; p = this.prevDoc[p]!; }
      if (n >= 0) { docs[c] = n; weights[c++] = weight; n = this.nextDoc[n]!; }
    }
    return c;
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
      this.internedNames.push(s);
    }
    return n;
  }

  private ensure(n: number): void {
    if (n <= this.kind.length) return;
    const cap = Math.max(n, this.kind.length * 2);
    const g = <T extends Uint8Array | Float64Array | Float32Array | Int32Array | Uint32Array>(a: T): T => {
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
    this.textHash = g(this.textHash);
    this.prevDoc = growLinks(this.prevDoc, cap);
    this.nextDoc = growLinks(this.nextDoc, cap);
  }
}

// Keeps the in-memory recall index in step with the store: the saved image loaded at open (plus a
// catch-up from the journal) or a rebuild; store changes applied right after each write's
// acknowledgement; vectors made in the background; the image and vectors saved when idle and at close;
// the embedder switched without ever mixing two embedders' vectors. Owned by MemoryEngine.
import { closeSync, existsSync, openSync } from 'node:fs';
import * as path from 'node:path';
import { E5Embedder, loadEmbedderWithReason, type LoadedEmbedder } from '../embed/e5Embedder';
import type { Embedder } from '../embed/embedder';
import { HashEmbedder } from '../embed/hashEmbedder';
import { errorCode } from '../errors';
import { Disposable, Emitter, type Event, type Logger } from '../host';
import type { IndexRow } from '../store/repositories';
import type { Store } from '../store/store';
import { kindOfId } from '../types';
import { fileSource } from './indexImage';
import { RecallIndex, type IndexedItem, type RestoredImage } from './recallIndex';
import { VECTOR_FORMAT } from './vectorFile';
import { VectorIndex } from './vectorIndex';

/** Items read from the store per chunk when catching up. */
const CATCH_UP_CHUNK = 500;
/** Items embedded per background slice (recalls run between slices). */
const FILL_SLICE = 256;
/** The index is saved after this long without changes (a crash then costs at most a catch-up). */
const PERSIST_IDLE_MS = 30_000;
/** Vectors are computed this soon after writes, off the write's acknowledgement (≤ 1 s to searchable). */
const VECTOR_DELAY_MS = 50;
const VECTOR_BACKLOG = 20_000; // keepUp's default backlog
/**
 * An idle or close save is skipped while the image on disk can still catch up (the journal holds every
 * record after its sequence) and at most this many items changed since it. Rewriting the image grows with
 * the store (~200 B per index entry: ~1.5 s at 1M items); re-reading an item at the next open costs ~0.1 ms
 * in a small store and up to ~2.5 ms at 1M (its raw chunk inflated, long posting lists copied once), so the
 * limit does not grow with the index (500 items: ≤ ~1.3 s at each later open of a 1M store, until a save).
 * Access counts are index-neutral and never count here.
 */
const SKIP_MAX_CHANGED = 500;
/**
 * Likewise the vector file (~430 B per vector, rewritten whole): an idle or close save is skipped while at
 * most this many vector changes (or `VECTOR_SKIP_FRACTION` of the vectors) happened since it was written
 * or adopted. The next open adopts the file where texts are unchanged and embeds the rest in the background
 * (free with the hash embedder; ~10–50 ms each with e5, so this limit is kept small).
 */
const VECTOR_SKIP_MAX_CHANGED = 256;
const VECTOR_SKIP_FRACTION = 1 / 1000;

/** A vector file as read: the index, the error that refused it, or null when there is none. */
type LoadedVectors = VectorIndex | { error: unknown } | null;

export interface IndexOpenReport { mode: 'loaded' | 'rebuilt'; caughtUp: number; adoptedVectors: number; ms: number }

export class IndexKeeper extends Disposable {
  /** The index as it is (no catch-up): for the recaller, whose callers sync first; read through `index` otherwise. */
  readonly recallIndex: RecallIndex;
  // Store changes not yet applied: applied right after the write's acknowledgement (setImmediate) or,
  // at the latest, by the next read through `index`.
  private pendingIds = new Set<string>();
  private pendingReindex = false;
  private catchUpTimer: NodeJS.Immediate | undefined;
  private vectorTimer: NodeJS.Timeout | undefined;
  private persistTimer: NodeJS.Timeout | undefined;
  private vectorFill: Promise<void> | undefined;
  // What was last written (see persist).
  private persisted = { seq: -1, version: -1, vectorVersion: -1, embedder: '' };
  /** Ids applied to the index since the image on disk was written or loaded; null = too many, or unknown. */
  private changedSinceImage: Set<string> | null = null;
  private closed = false;
  private readonly caughtUpEmitter = this._register(new Emitter<{ ids: string[] }>());
  /** Fires after store changes were applied to the index. */
  readonly onDidCatchUp: Event<{ ids: string[] }> = this.caughtUpEmitter.event;
  /** The embedder's model and why it was chosen (the status card). */
  embedderInfo: { model: string | null; reason: string } = { model: null, reason: 'configured' };
  /** How the index came up at open: loaded from its file (+ catch-up) or rebuilt from the store. */
  openReport: IndexOpenReport = { mode: 'rebuilt', caughtUp: 0, adoptedVectors: 0, ms: 0 };

  constructor(
    private readonly store: Store,
    embedder: Embedder,
    private readonly textOf: (item: IndexRow) => string,
    private readonly logger: Logger,
    /** Embeds large batches of the hash embedder off the calling thread (the engine's worker pool). */
    private readonly hashOffload?: HashEmbedder['offload'],
    /** Texts waiting for a vector past which `keepUp` waits for vectors. */
    private readonly vectorBacklog = VECTOR_BACKLOG,
  ) {
    super();
    this.recallIndex = new RecallIndex(this.withOffload(embedder), logger);
  }

  /**
   * The embedder this index uses for `embedder`: a hash embedder of the same width with the pool attached (the
   * caller's object is left as it is — it may be shared), a model embedder as it is.
   */
  private withOffload(embedder: Embedder): Embedder {
    if (!(embedder instanceof HashEmbedder) || !this.hashOffload || embedder.offload) return embedder;
    const own = new HashEmbedder(embedder.dims);
    own.offload = this.hashOffload;
    return own;
  }

  /** The index with every store change so far applied (a read here never misses a write). */
  get index(): RecallIndex {
    this.syncNow();
    return this.recallIndex;
  }

  /** The saved index image's file. */
  get indexFile(): string { return path.join(this.store.dir, 'index', 'recall.idx'); }
  private vectorFile(embedderId: string): string { return path.join(this.store.dir, 'vectors', `${embedderId}.bin`); }

  /** Applies store changes the index has not seen yet. */
  syncNow(): void {
    if (this.pendingReindex || this.pendingIds.size) this.catchUp();
  }

  /**
   * For bulk writers: vectors follow the writes in the background, slower than a bulk import, and every text waiting
   * for one is held in memory (~600k texts, ~300 MB, by the end of a 1M import). Past `backlog` waiting texts this
   * resolves once half of them have their vectors.
   */
  async keepUp(): Promise<void> {
    this.syncNow();
    const backlog = this.vectorBacklog;
    if (this.recallIndex.pendingVectorCount > backlog) await this.recallIndex.embedPending(64, Math.floor(backlog / 2));
  }

  /**
   * Brings the index up at open: the saved image when it loads and the journal still holds every record
   * after its sequence number (only those items are re-read), else a full rebuild from the store. Then the
   * embedder's saved vectors are adopted where their text is unchanged, and missing vectors are made in the
   * background. Never fails on a bad file.
   */
  load(): void {
    const started = Date.now();
    // The vector file first: its rows (~0.5 GB at 1M items) are allocated while the JS heap is still small
    // (a large allocation can start a full GC, which costs more once the image is in memory).
    const vectors = this.readVectorFile();
    const restored = this.restoreImage();
    let mode: IndexOpenReport['mode'] = 'rebuilt';
    let caughtUp = 0;
    if (restored) {
      const ids = restored.touched.filter((id) => kindOfId(id));
      this.applyIds(ids, this.recallIndex);
      mode = 'loaded';
      caughtUp = ids.length;
      // The file on disk stays usable as long as the journal holds what it lacks (see persist).
      this.persisted = { ...this.persisted, seq: restored.seq, version: this.recallIndex.version };
      this.changedSinceImage = new Set();
      this.noteChanged(restored.touched);
      // An image of an older format is rewritten at the next save (its load builds what version 2 stores).
      if (this.recallIndex.restoredStale) {
        this.changedSinceImage = null;
        this.persisted.version = -1;
      }
    } else {
      this.recallIndex.clear();
      this.reindexAll();
    }
    const adoptedVectors = this.adoptVectorFile(vectors);
    this.openReport = { mode, caughtUp, adoptedVectors, ms: Date.now() - started };
    this.logger.info('engine.index_ready', { mode, items: this.recallIndex.size, caughtUp, adoptedVectors, ms: this.openReport.ms });
    this.fillVectors();
  }

  /** The saved image and the ids written since, or null when it is missing, unreadable or too old. */
  private restoreImage(): { seq: number; touched: string[] } | null {
    if (this.store.openReport.needsReindex) return null;
    try {
      const fd = openSync(this.indexFile, 'r');
      let restored: RestoredImage;
      try {
        restored = this.recallIndex.restore(fileSource(fd));
      } finally {
        closeSync(fd);
      }
      const touched = this.store.touchedIdsSince(restored.seq);
      if (!touched) this.logger.info('index.stale', { seq: restored.seq, storeSeq: this.store.seq });
      return touched ? { seq: restored.seq, touched } : null;
    } catch (e) {
      if ((e as NodeJS.ErrnoException)?.code !== 'ENOENT') this.logger.warn('index.load_failed', { error: errorCode(e) });
      return null;
    }
  }

  /** Re-reads `ids` from the store into the index (in chunks); ids the store no longer has are dropped. */
  private applyIds(ids: readonly string[], index: RecallIndex): void {
    for (let i = 0; i < ids.length; i += CATCH_UP_CHUNK) {
      const chunk = ids.slice(i, i + CATCH_UP_CHUNK);
      const found = new Map(this.store.items.indexRows(chunk).map((it) => [it.id, it]));
      for (const id of chunk) {
        const it = found.get(id);
        if (it) this.indexItem(it);
        else index.remove(id);
      }
    }
  }

  /** Re-feeds every item; items the index holds that the store no longer has are dropped. */
  private reindexAll(): void {
    const seen = new Set<string>();
    this.store.items.forEachIndexRow((it) => { seen.add(it.id); this.indexItem(it); });
    for (const id of this.recallIndex.allIds()) if (!seen.has(id)) this.recallIndex.remove(id);
  }

  private indexItem(it: IndexRow): void {
    const ix: IndexedItem = {
      id: it.id, kind: it.kind, text: this.textOf(it), project: it.project, projectType: it.projectType, conversation: it.conversation,
      trust: it.trust, untrusted: it.untrusted, secret: it.secret, pinned: it.pinned, role: it.role, created: it.created,
      importance: it.importance, invalidated: it.invalidatedAt !== null, archived: it.archivedAt !== null, expiresAt: it.expiresAt,
    };
    this.recallIndex.upsert(ix);
  }

  /** The current embedder's vector file as loaded, the error that refused it, or null when there is none. */
  private readVectorFile(): LoadedVectors {
    const file = this.vectorFile(this.recallIndex.embedderId);
    if (!existsSync(file)) return null;
    try {
      return VectorIndex.load(file, this.recallIndex.embedderId, this.recallIndex.embedderInUse.dims);
    } catch (error) {
      return { error };
    }
  }

  /** Adopts `vectors/<embedder-id>.bin` (or the file read already) when present; a refused or damaged file only costs re-embedding. */
  private adoptVectorFile(loaded: LoadedVectors = this.readVectorFile()): number {
    if (!loaded) return 0;
    try {
      if (!(loaded instanceof VectorIndex)) throw loaded.error;
      const n = this.recallIndex.adoptVectors(loaded);
      // A file of an older format is rewritten at the next save (its load is the slow row-by-row one).
      if (this.recallIndex.adoptedFileVersion >= VECTOR_FORMAT) {
        this.persisted.vectorVersion = this.recallIndex.vectorVersion;
        this.persisted.embedder = this.recallIndex.embedderId;
      }
      return n;
    } catch (e) {
      this.logger.warn('vectors.load_failed', { embedder: this.recallIndex.embedderId, error: errorCode(e) });
      return 0;
    }
  }

  /** Queues and embeds, in the background and in slices, every item that should have a vector and has none. */
  private fillVectors(): void {
    if (this.closed) return;
    if (this.vectorFill) {
      // A fill for the previous embedder stops at its next slice; run again for the current one.
      const current = this.vectorFill;
      void current.then(() => { if (this.vectorFill === undefined) this.fillVectors(); });
      return;
    }
    const run = (async () => {
      await new Promise((r) => setImmediate(r)); // never on the caller's stack (open, a switch)
      const embedderId = this.index.embedderId;
      const ids = this.index.idsNeedingVectors();
      if (ids.length) this.logger.info('vectors.fill', { embedder: embedderId, items: ids.length });
      for (let i = 0; i < ids.length && !this.closed && this.index.embedderId === embedderId; i += FILL_SLICE) {
        for (const it of this.store.items.indexRows(ids.slice(i, i + FILL_SLICE))) this.index.queueVector(it.id, this.textOf(it));
        await this.index.embedPending();
        await new Promise((r) => setImmediate(r)); // let recalls run between slices
      }
      this.schedulePersist();
    })();
    this.vectorFill = run.catch((e) => this.logger.warn('vectors.fill_failed', { error: errorCode(e) })).finally(() => { this.vectorFill = undefined; });
  }

  /** Resolves once background vector work started so far (fill after open or a switch) has finished. */
  async whenVectorsReady(): Promise<void> {
    while (this.vectorFill) await this.vectorFill;
    await this.index.embedPending();
  }

  /** At close: the last save, then the vectors' memory goes to the next index this process opens (RecallIndex.releaseVectors). */
  closeIndex(): void {
    this.persist('close');
    this.recallIndex.releaseVectors();
  }

  /**
   * Writes the index image (stamped with the store sequence) and this embedder's vectors when they
   * changed since the last save. Called on close and when idle — never on the per-turn path.
   */
  persist(why: 'close' | 'idle' | 'switch' | 'forget' = 'idle'): void {
    const index = this.index;
    if (this.store.openReport.needsReindex && index.size === 0) return;
    const started = Date.now();
    let wrote = false;
    try {
      const seq = this.store.seq;
      if (seq !== this.persisted.seq || index.version !== this.persisted.version) {
        const skip = this.imageCanCatchUp(why);
        if (skip) {
          this.logger.info('index.save_skipped', { why, seq: this.persisted.seq, changed: skip.changed });
        } else {
          index.saveImage(this.indexFile, seq);
          this.persisted.seq = seq;
          this.persisted.version = index.version;
          this.changedSinceImage = new Set();
          wrote = true;
        }
      }
      if (index.vectorVersion !== this.persisted.vectorVersion || this.persisted.embedder !== index.embedderId) {
        const changed = index.vectorVersion - this.persisted.vectorVersion;
        if (this.vectorFileCanWait(why, changed)) {
          this.logger.info('vectors.save_skipped', { why, changed });
        } else {
          index.saveVectors(this.vectorFile(index.embedderId));
          this.persisted.vectorVersion = index.vectorVersion;
          this.persisted.embedder = index.embedderId;
          wrote = true;
        }
      }
      // Only when a file was written (both saves skipped, or nothing changed: no "saved" line).
      if (wrote) this.logger.info('index.saved', { why, seq, items: index.size, vectors: index.vectorCount, ms: Date.now() - started });
    } catch (e) {
      this.logger.warn('index.save_failed', { why, error: errorCode(e) });
    }
  }

  /**
   * Whether the image on disk may stay as it is: it exists, the journal still holds every record after
   * its sequence (also after this close: a close that compacts starts a fresh journal), and few items
   * changed since. A forget always rewrites (the forgotten text must leave the file), so does a switch.
   */
  private imageCanCatchUp(why: 'close' | 'idle' | 'switch' | 'forget'): { changed: number } | null {
    if (why === 'forget' || why === 'switch' || this.persisted.seq < 0 || !this.changedSinceImage) return null;
    this.store.refresh();
    if (this.store.journalBaseSeq > this.persisted.seq || this.persisted.seq > this.store.seq) return null;
    if (why === 'close' && this.store.compactsOnClose()) return null;
    if (!existsSync(this.indexFile)) return null;
    return { changed: this.changedSinceImage.size };
  }

  /** Whether the vector file on disk may stay as it is (see VECTOR_SKIP_MAX_CHANGED): same embedder, few changes. */
  private vectorFileCanWait(why: 'close' | 'idle' | 'switch' | 'forget', changed: number): boolean {
    if (why === 'forget' || why === 'switch' || this.persisted.vectorVersion < 0 || this.persisted.embedder !== this.recallIndex.embedderId) return false;
    if (changed <= 0 || changed > Math.max(VECTOR_SKIP_MAX_CHANGED, this.recallIndex.vectorCount * VECTOR_SKIP_FRACTION)) return false;
    return existsSync(this.vectorFile(this.recallIndex.embedderId));
  }

  /** Counts ids changed since the image (null past the skip limit: the next save writes). */
  private noteChanged(ids: readonly string[]): void {
    if (!this.changedSinceImage) return;
    for (const id of ids) this.changedSinceImage.add(id);
    if (this.changedSinceImage.size > SKIP_MAX_CHANGED) this.changedSinceImage = null;
  }

  private schedulePersist(): void {
    if (this.closed) return;
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = setTimeout(() => {
      this.persistTimer = undefined;
      if (!this.closed) this.persist('idle');
    }, PERSIST_IDLE_MS);
    this.persistTimer.unref?.();
  }

  /**
   * Switches the embedder. The old vectors are saved (if changed) and dropped at once — never mixed
   * with the new ones; the new embedder's saved file is adopted where texts are unchanged, and the
   * rest is embedded in the background (status shows "X of Y"). Same id: only the info is updated.
   */
  async useEmbedder(given: Embedder, info: { model?: string | null; reason?: string } = {}): Promise<void> {
    const embedder = this.withOffload(given);
    const model = info.model !== undefined ? info.model : embedder instanceof E5Embedder ? embedder.modelId : null;
    this.embedderInfo = { model, reason: info.reason ?? 'configured' };
    const index = this.index;
    if (embedder.id === index.embedderId) return;
    const previous = index.embedderInUse;
    if (this.persisted.embedder !== previous.id || this.persisted.vectorVersion !== index.vectorVersion) {
      try {
        index.saveVectors(this.vectorFile(previous.id));
      } catch (e) {
        this.logger.warn('vectors.save_failed', { embedder: previous.id, error: errorCode(e) });
      }
    }
    index.setEmbedder(embedder);
    this.persisted.vectorVersion = -1;
    this.persisted.embedder = '';
    const adopted = this.adoptVectorFile();
    this.logger.info('embedder.switched', { from: previous.id, to: embedder.id, reason: this.embedderInfo.reason, adopted, items: index.embeddableCount });
    this.fillVectors();
    if (previous !== embedder && previous.id !== embedder.id) await previous.dispose?.().catch(() => undefined);
  }

  /**
   * e5 when its weights are under `modelsDir` (or download is allowed), else the hash embedder; then
   * `useEmbedder`. Never throws for a model problem: the reason says why hash was chosen.
   */
  async loadEmbedder(opts: { modelsDir: string; allowDownload?: boolean; modelId?: string; tryModel?: boolean }): Promise<{ id: string; reason: LoadedEmbedder['reason'] }> {
    const r = await loadEmbedderWithReason({ ...opts, logger: this.logger });
    if (this.closed) {
      await r.embedder.dispose?.().catch(() => undefined);
      return { id: r.embedder.id, reason: r.reason };
    }
    await this.useEmbedder(r.embedder, { reason: r.reason, model: r.embedder instanceof E5Embedder ? r.embedder.modelId : null });
    return { id: r.embedder.id, reason: r.reason };
  }

  /**
   * Records store changes. Indexing (analysis, postings, neighbour links) is kept off the write's
   * acknowledgement: the store fires before the writer's promise resolves. It runs on the next turn of
   * the event loop, or earlier when something reads the index.
   */
  noteStoreChange(ids: readonly string[], reloaded: boolean, indexNeutral?: readonly string[]): void {
    if (reloaded) this.pendingReindex = true;
    // A flush moved these messages' texts into the raw record: nothing the index holds changed, so they are not
    // read back (and their raw text not inflated) — half the cost of deriving. The journal still lists them.
    const same = indexNeutral?.length ? new Set(indexNeutral) : undefined;
    for (const id of ids) if (!same?.has(id)) this.pendingIds.add(id);
    if (!this.catchUpTimer && !this.closed) {
      this.catchUpTimer = setImmediate(() => {
        this.catchUpTimer = undefined;
        if (!this.closed) this.catchUp();
      });
    }
  }

  /** Applies pending store changes to the index, then tells listeners. */
  private catchUp(): void {
    const reloaded = this.pendingReindex;
    const ids = [...this.pendingIds];
    this.pendingReindex = false;
    this.pendingIds = new Set();
    try {
      if (reloaded) {
        this.changedSinceImage = null;
        for (const id of ids) this.recallIndex.remove(id);
        this.reindexAll();
      } else {
        this.noteChanged(ids);
        this.applyIds(ids.filter((id) => kindOfId(id)), this.recallIndex);
      }
    } catch (e) {
      // The store went away under us (closed, or a crash is being simulated): the index is rebuilt
      // or caught up from the journal at the next open, so nothing is lost.
      if (errorCode(e) !== 'E_CLOSED') throw e;
      this.logger.warn('index.catch_up_skipped', { items: ids.length, error: 'E_CLOSED' });
      return;
    }
    this.scheduleVectors();
    this.schedulePersist();
    this.caughtUpEmitter.fire({ ids });
  }

  /** Vectors are computed shortly after writes, off the write's acknowledgement. */
  scheduleVectors(): void {
    if (this.vectorTimer || this.closed) return;
    this.vectorTimer = setTimeout(() => {
      this.vectorTimer = undefined;
      void this.recallIndex.embedPending().catch((e) => this.logger.warn('vectors.failed', { error: errorCode(e) }));
    }, VECTOR_DELAY_MS);
    this.vectorTimer.unref?.();
  }

  /**
   * Stops at once (no new timers, no new fill); the promise resolves when background vector work still
   * running has finished (the caller persists after it).
   */
  stop(): Promise<void> {
    this.closed = true;
    if (this.vectorTimer) clearTimeout(this.vectorTimer);
    if (this.persistTimer) clearTimeout(this.persistTimer);
    return this.vectorFill?.catch(() => undefined) ?? Promise.resolve();
  }
}

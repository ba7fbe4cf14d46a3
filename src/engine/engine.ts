// The engine facade: the one object every surface (VS Code, CLI, benchmarks) talks to.
// It composes the store, the vault index, the recall index and the write path, keeps the in-memory
// indexes in step with the store (including other windows' writes), and never imports `vscode`.
import { promises as fsp, existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Embedder } from './embed/embedder';
import { HashEmbedder } from './embed/hashEmbedder';
import { MemoryError } from './errors';
import { Disposable, Emitter, nullLogger, systemClock, type Clock, type Event, type Logger } from './host';
import { defaultVaultDir } from './paths';
import { Recaller, type ExpandResult, type ReadContext, type RecallRequest, type RecallResult, type SearchHit } from './recall/recaller';
import { RecallIndex, type IndexedItem } from './recall/recallIndex';
import type { Item } from './store/repositories';
import { Store, type OpenReport } from './store/store';
import { withDefaults, type EngineSettings } from './settings';
import { kindOfId, NOTE_KINDS, type NoteKind } from './types';
import { appendTurn } from './vault/dailyLog';
import { serializeNote } from './vault/noteParser';
import { writeNote } from './vault/noteWriter';
import { VaultIndex, type VaultSyncReport } from './vault/vaultIndex';
import { projectDir, relPathOfId, resolveInVault, VAULT_DIRS } from './vault/vaultLayout';
import { gate } from './write/poisonGate';
import { TurnWriter, type FlushResult, type ImportMessage, type TurnInput, type TurnResult } from './write/turnWriter';

export interface EngineOptions {
  storeDir: string;
  vaultDir?: string;
  settings?: Partial<EngineSettings>;
  logger?: Logger;
  clock?: Clock;
  wasmPath?: string;
  /** An embedder to use from the start (tests, benchmarks); default: the hash embedder. */
  embedder?: Embedder;
  /**
   * Reconcile the vault with the store at open: true/'await' (default; the CLI), 'background'
   * (VS Code: activation must not wait for a large vault — `whenVaultSynced` resolves later), false.
   */
  syncVault?: boolean | 'await' | 'background';
}

export interface EngineStatus {
  enabled: boolean;
  storeDir: string;
  vaultDir: string;
  embedder: { id: string; model: string | null; dims: number };
  items: Record<string, number>;
  recallable: { summaries: number; facts: number };
  vectors: { summaries: string; facts: string; total: number; pending: number; partitions: number; lastRun: string | null };
  invalidatedFacts: number;
  conversations: number;
  bufferedMessages: number;
  skips: Record<string, number>;
  saved: Record<string, number>;
  rawRecord: { enabled: boolean; blobs: number; rawBytes: number; storedBytes: number; ratio: number | null };
  switches: { captureToolResults: boolean; captureThinking: boolean; includeSecrets: boolean };
  recallBudgetChars: number;
  store: { seq: number; snapshotBytes: number; journalBytes: number };
  health: { rssBytes: number; level: 'ok' | 'warn' | 'critical' };
  openReport: OpenReport;
}

export interface RememberInput {
  text: string;
  project?: string;
  kind?: NoteKind;
  at?: number;
}

export class MemoryEngine extends Disposable {
  readonly vaultDir: string;
  readonly vault: VaultIndex;
  readonly index: RecallIndex;
  readonly writer: TurnWriter;
  readonly recaller: Recaller;
  private settingsValue: EngineSettings;
  private readonly changeEmitter = this._register(new Emitter<{ ids: string[] }>());
  /** Fires after items change (local writes, other windows' writes, vault edits). */
  readonly onDidChange: Event<{ ids: string[] }> = this.changeEmitter.event;
  private vectorTimer: NodeJS.Timeout | undefined;
  private vaultSynced: Promise<void> = Promise.resolve();
  private readonly pendingLogs = new Set<Promise<void>>();
  private closed = false;

  private constructor(
    readonly store: Store,
    opts: EngineOptions,
    readonly logger: Logger,
    readonly clock: Clock,
    embedder: Embedder,
  ) {
    super();
    this.settingsValue = withDefaults(opts.settings);
    this.vaultDir = path.resolve(opts.vaultDir ?? defaultVaultDir(opts.storeDir));
    const settings = () => this.settingsValue;
    this.vault = new VaultIndex(this.vaultDir, store, clock, logger);
    this.index = new RecallIndex(embedder, logger);
    this.writer = new TurnWriter(store, settings, clock, logger);
    this.recaller = new Recaller(store, this.index, this.vaultDir, settings, clock, logger, (i) => this.writer.textOf(i));
    this._register(store.onDidChange((c) => this.onStoreChange(c.ids, c.reloaded)));
  }

  static async open(opts: EngineOptions): Promise<MemoryEngine> {
    const logger = opts.logger ?? nullLogger;
    const clock = opts.clock ?? systemClock;
    const store = await Store.open({ dir: opts.storeDir, logger, clock, wasmPath: opts.wasmPath });
    const engine = new MemoryEngine(store, opts, logger, clock, opts.embedder ?? new HashEmbedder());
    try {
      mkdirSync(engine.vaultDir, { recursive: true });
      const started = Date.now();
      engine.vault.loadFromStore();
      engine.reindexAll();
      logger.info('engine.index_built', { items: engine.index.size, ms: Date.now() - started });
      const sync = opts.syncVault ?? 'await';
      if (sync !== false) {
        const run = engine.vault.syncAll({ rebuild: store.openReport.needsReindex }).then(
          () => undefined,
          (e) => logger.error('vault.sync_failed', { error: e instanceof MemoryError ? e.code : (e as Error)?.name }),
        );
        engine.vaultSynced = run;
        if (sync !== 'background') await run;
      }
      const s = engine.settingsValue;
      if (s.l0CaptureToolResults) logger.warn('l0.capture_tool_results_on', {});
      if (s.l0CaptureThinking) logger.warn('l0.capture_thinking_on', {});
      engine.scheduleVectors();
    } catch (e) {
      await store.close().catch(() => undefined);
      throw e;
    }
    return engine;
  }

  get settings(): Readonly<EngineSettings> { return this.settingsValue; }

  /** Resolves once the vault reconciliation started at open has finished. */
  whenVaultSynced(): Promise<void> { return this.vaultSynced; }

  updateSettings(partial: Partial<EngineSettings>): void {
    this.settingsValue = withDefaults({ ...this.settingsValue, ...partial });
  }

  // ------------------------------------------------------------------ write

  async recordTurn(t: TurnInput): Promise<TurnResult> {
    this.ensureOpen();
    if (!this.settingsValue.enabled) return { ids: [], skipped: [] };
    const res = await this.writer.recordTurn(t);
    // The daily log is the transcript: every turn, detached from the acknowledgement.
    const log = appendTurn(this.vaultDir, {
      at: t.at ?? this.clock.now(), timeZone: this.clock.timeZone(), user: t.user, assistant: t.assistant, conversation: t.conversation,
    }).then(
      () => undefined,
      (e) => this.logger.warn('daily_log.append_failed', { error: (e as Error)?.name }),
    );
    this.pendingLogs.add(log);
    void log.finally(() => this.pendingLogs.delete(log));
    return res;
  }

  /** Verbatim import of transcript messages (no save filter); derivation runs on the next flush. */
  async importMessages(msgs: readonly ImportMessage[]): Promise<string[]> {
    this.ensureOpen();
    return this.writer.importMessages(msgs);
  }

  async flush(conversation?: string): Promise<FlushResult[]> {
    this.ensureOpen();
    const res = await this.writer.flush(conversation);
    await this.index.embedPending();
    return res;
  }

  /** Pinned, owner-trust note written to the vault (R-UI-1 `/remember`); bypasses the save filter. */
  async remember(input: RememberInput): Promise<{ id: string; path: string }> {
    this.ensureOpen();
    const text = typeof input?.text === 'string' ? input.text.trim() : '';
    if (!text) throw new MemoryError('E_BAD_INPUT', 'nothing to remember: the text is empty');
    if (text.length > 20_000) throw new MemoryError('E_TOO_LARGE', 'a remembered note is limited to 20,000 characters');
    const kind = input.kind ?? 'user';
    if (!NOTE_KINDS.includes(kind)) throw new MemoryError('E_BAD_INPUT', `kind must be one of ${NOTE_KINDS.join(', ')}`);
    const verdict = gate(text);
    if (verdict.verdict === 'reject') {
      this.logger.warn('gate.reject', { kind: 'remember', detector: verdict.detector ?? '' });
      throw new MemoryError('E_REFUSED', 'not remembered: the text reads as an instruction to the assistant (poison gate)');
    }
    const at = input.at ?? this.clock.now();
    const firstLine = text.split('\n').find((l) => l.trim())!.trim();
    const summary = firstLine.length > 200 ? firstLine.slice(0, 199) + '…' : firstLine;
    const folder = input.project ? projectDir(input.project) : VAULT_DIRS.semantic;
    const rel = `${folder}/${slug(firstLine)}.md`;
    const frontmatter: Record<string, unknown> = {
      kind, summary, pinned: true, origin: { by: 'remember' }, created: new Date(at).toISOString(),
    };
    if (input.project) frontmatter.project = input.project;
    if (verdict.verdict === 'untrusted') frontmatter.tags = ['untrusted'];
    const written = await writeNote(this.vaultDir, rel, { frontmatter, body: text + '\n' }, { mask: true });
    const id = await this.vault.syncFile(written.relPath);
    if (!id) throw new MemoryError('E_INTERNAL', 'the note was written but could not be indexed');
    await this.index.embedPending();
    return { id, path: written.path };
  }

  /** Deletes one item, its index entries and rows derived only from it (R-MAINT-4). */
  async forget(id: string, actor = 'user'): Promise<{ id: string; removed: string[] }> {
    this.ensureOpen();
    if (typeof id !== 'string' || !kindOfId(id)) throw new MemoryError('E_BAD_ID', 'unknown memory id format (expected vt:, rw:, gs:, fa:, en:)');
    if (id.startsWith('vt:')) relPathOfId(id);
    const item = this.store.items.get(id);
    if (!item) throw new MemoryError('E_NOT_FOUND', 'no such memory');
    const removed = [id];
    const derivedOnly = this.store.itemSources.derivedFrom(id).filter((d) => {
      const srcs = this.store.itemSources.sourcesOf(d);
      return srcs.length === 1 && srcs[0] === id;
    });
    removed.push(...derivedOnly);
    if (item.kind === 'note' && item.path) {
      try {
        await fsp.unlink(resolveInVault(this.vaultDir, item.path, { allowHidden: true }));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    const blobStillUsed = item.blobHash
      ? this.store.items.list({ kind: 'raw' }).some((x) => x.blobHash === item.blobHash && x.id !== id)
      : true;
    await this.store.transaction((tx) => {
      for (const r of removed) {
        tx.items.delete(r);
        tx.itemSources.remove(r);
      }
      if (item.blobHash && !blobStillUsed) tx.rawBlobs.delete(item.blobHash);
      tx.audit.add({ at: this.clock.now(), action: 'forget', actor, itemId: id, detail: { removed: removed.length, kind: item.kind } });
    });
    // A summary that also drew on other messages is re-derived without the forgotten one.
    if (item.kind === 'raw' && item.conversation && !removed.includes(`gs:${item.conversation}`) && this.store.items.get(`gs:${item.conversation}`)) {
      await this.writer.resummarize(item.conversation);
    }
    this.logger.info('forget', { id, removed: removed.length });
    return { id, removed };
  }

  // ------------------------------------------------------------------ read

  search(query: string, ctx: ReadContext = {}, k?: number): Promise<SearchHit[]> {
    this.ensureOpen();
    return this.recaller.search(query, ctx, k);
  }

  /** Fail-soft: never throws for a recall problem; an empty block carries the reason. */
  async recall(req: RecallRequest): Promise<RecallResult> {
    this.ensureOpen();
    try {
      return await this.recaller.recall(req);
    } catch (e) {
      const reason = e instanceof MemoryError ? e.code : 'error';
      this.logger.warn('recall.failed', { reason });
      return { block: '', items: [], hits: [], reason };
    }
  }

  expand(id: string, ctx: ReadContext = {}): Promise<ExpandResult> {
    this.ensureOpen();
    return this.recaller.expand(id, ctx);
  }

  // ------------------------------------------------------------------ maintenance

  async rebuild(): Promise<VaultSyncReport> {
    this.ensureOpen();
    const report = await this.vault.rebuild();
    await this.index.embedPending();
    return report;
  }

  status(): EngineStatus {
    const s = this.settingsValue;
    const counts = this.store.items.countByKind();
    const now = this.clock.now();
    let recallSummaries = 0, recallFacts = 0, vecSummaries = 0, vecFacts = 0;
    this.store.items.forEach({ kind: ['summary', 'fact'], recallable: true, now }, (it) => {
      if (it.kind === 'summary') { recallSummaries++; if (this.index.hasVector(it.id)) vecSummaries++; }
      else { recallFacts++; if (this.index.hasVector(it.id)) vecFacts++; }
    });
    const invalidatedFacts = this.store.items.count({ kind: 'fact' }) - this.store.items.count({ kind: 'fact', recallable: true });
    const counters = this.store.counters.all();
    const pick = (prefix: string) => Object.fromEntries(Object.entries(counters).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
    const blobs = this.store.rawBlobs.stats();
    const rss = process.memoryUsage().rss;
    const st = this.store.stats();
    return {
      enabled: s.enabled,
      storeDir: this.store.dir,
      vaultDir: this.vaultDir,
      embedder: { id: this.index.embedderId, model: this.index.embedderId.startsWith('hash') ? null : s.embedderModel, dims: 384 },
      items: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v ?? 0])),
      recallable: { summaries: recallSummaries, facts: recallFacts },
      vectors: {
        summaries: `${vecSummaries} of ${recallSummaries}`, facts: `${vecFacts} of ${recallFacts}`, total: this.index.vectorCount,
        pending: this.index.pendingVectorCount, partitions: this.index.vectorPartitions,
        lastRun: this.index.lastVectorRun ? new Date(this.index.lastVectorRun).toISOString() : null,
      },
      invalidatedFacts,
      conversations: this.store.conversations.list().length,
      bufferedMessages: this.store.rawBuffers.conversations().reduce((n, c) => n + c.entries, 0),
      skips: pick('skip.'),
      saved: pick('saved.'),
      rawRecord: { enabled: s.l0Enabled, ...blobs, ratio: blobs.storedBytes > 0 ? Math.round((blobs.rawBytes / blobs.storedBytes) * 100) / 100 : null },
      switches: { captureToolResults: s.l0CaptureToolResults, captureThinking: s.l0CaptureThinking, includeSecrets: s.recallIncludeSecrets },
      recallBudgetChars: s.indexBudgetChars,
      store: { seq: st.seq, snapshotBytes: st.snapshotBytes, journalBytes: st.journalBytes },
      health: { rssBytes: rss, level: rss >= s.healthCritBytes ? 'critical' : rss >= s.healthWarnBytes ? 'warn' : 'ok' },
      openReport: this.store.openReport,
    };
  }

  /** Flushes buffers, saves, and closes the store (compacting it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.vectorTimer) clearTimeout(this.vectorTimer);
    this.writer.dispose();
    await this.vaultSynced;
    await Promise.all([...this.pendingLogs]);
    try {
      await this.writer.flush();
    } catch (e) {
      this.logger.warn('close.flush_failed', { error: e instanceof MemoryError ? e.code : (e as Error)?.name });
    }
    await this.store.close();
    this.dispose();
  }

  // ------------------------------------------------------------------ internals

  private ensureOpen(): void {
    if (this.closed) throw new MemoryError('E_CLOSED', 'the memory engine is closed');
  }

  private reindexAll(): void {
    this.store.items.forEach({}, (it) => { this.indexItem(it); });
  }

  private indexItem(it: Item): void {
    const text = it.kind === 'raw' ? this.writer.textOf(it) : (it.text ?? '');
    const ix: IndexedItem = {
      id: it.id, kind: it.kind, text, project: it.project, projectType: it.projectType, conversation: it.conversation,
      trust: it.trust, untrusted: it.untrusted, secret: it.secret, pinned: it.pinned, role: it.role, created: it.created,
      importance: it.importance, invalidated: it.invalidatedAt !== null, archived: it.archivedAt !== null, expiresAt: it.expiresAt,
    };
    this.index.upsert(ix);
  }

  private onStoreChange(ids: string[], reloaded: boolean): void {
    if (reloaded) {
      for (const id of [...ids]) this.index.remove(id);
      this.reindexAll();
    } else {
      for (const id of ids) {
        if (!kindOfId(id)) continue;
        const it = this.store.items.get(id);
        if (it) this.indexItem(it);
        else this.index.remove(id);
      }
    }
    this.scheduleVectors();
    this.changeEmitter.fire({ ids });
  }

  /** Vectors are computed shortly after writes, off the write's acknowledgement (≤ 1 s to searchable). */
  private scheduleVectors(): void {
    if (this.vectorTimer || this.closed) return;
    this.vectorTimer = setTimeout(() => {
      this.vectorTimer = undefined;
      void this.index.embedPending().catch((e) => this.logger.warn('vectors.failed', { error: (e as Error)?.name }));
    }, 50);
    this.vectorTimer.unref?.();
  }
}

/** A file name from the note's first line: lower-case words, at most 60 chars, never empty. */
export function slug(s: string): string {
  const base = s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return base || 'note';
}

export { serializeNote, existsSync };

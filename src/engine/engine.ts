// The engine facade: the one object every surface (VS Code, CLI, benchmarks) talks to.
// It composes the store, the vault index, the recall index and the write path, keeps the in-memory
// indexes in step with the store (including other windows' writes), and never imports `vscode`.
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { LoadedEmbedder } from './embed/e5Embedder';
import type { Embedder } from './embed/embedder';
import { HashEmbedder } from './embed/hashEmbedder';
import { errorCode, MemoryError } from './errors';
import { Disposable, Emitter, nullLogger, systemClock, type Clock, type Event, type Logger } from './host';
import { defaultVaultDir } from './paths';
import { reflect, REFLECTION_LAST_DAY, type ReflectionResult } from './maintain/reflection';
import type { BackgroundModel } from './model/backgroundModel';
import { HealthMonitor, type EngineFootprint } from './maintain/health';
export type { EngineFootprint, EngineHealth } from './maintain/health';
import { AccessCounter } from './maintain/accessCounts';
import { StatusReader, type EngineHeadline, type EngineStatus } from './maintain/status';
export type { EngineHeadline, EngineStatus } from './maintain/status';
import { consolidate, reviewQueue, type ConsolidateOptions, type ConsolidationReport, type ReviewEntry, type ReviewOptions } from './maintain/consolidate';
import { ProviderQuarantine, type ProviderCount, type QuarantineApplyResult, type QuarantineEntry, type QuarantinePreview, type QuarantineReleaseResult, type QuarantineSelection } from './maintain/quarantine';
import { Recaller, type ExpandResult, type ReadContext, type RecallRequest, type RecallResult, type SearchHit } from './recall/recaller';
import type { RecallIndex } from './recall/recallIndex';
import { IndexKeeper, type IndexOpenReport } from './recall/indexKeeper';
import type { Item, ItemSourcesRepo, ItemsRepo, LedgerRepo, LinksRepo, QuarantinesRepo } from './store/repositories';
import type { ParsedNote } from './vault/noteParser';
import { setNoteFilePinned } from './vault/notePin';
import { captureDepsOf, registerEngineParts } from './internals';
import { captureTurn, type CaptureBudget, type CaptureInput, type LedgerOutcome } from './write/capture';
export type { CaptureBudget, CaptureInput, LedgerOutcome } from './write/capture';
import { Store, type StoreOptions } from './store/store';
import { takeRecoveryNotice } from './store/recoveryNotice';
import { withDefaults, type EngineSettings } from './settings';
import { appendTurn, recentTurns, type RecentTurn } from './vault/dailyLog';
import { VaultIndex, type VaultSyncReport } from './vault/vaultIndex';
import { ProjectVault } from './project/projectVault';
export type { ProjectAttachOptions, ProjectChangeEvent, ProjectNoteInfo, ProjectVaultInfo, ProjectVaultReport } from './project/projectVault';
import { saveAgentNote, type AgentSaveInput, type AgentSaveResult } from './write/agentSave';
import { loadDocument, type LoadDocumentInput, type LoadDocumentResult } from './write/docIngest';
import { updateWorkingBlock } from './write/workingUpdate';
import { promoteToNote, rememberNote, type DirectNoteDeps, type RememberInput } from './write/directNotes';
import { GatePool } from './write/gatePool';
import { TurnWriter, type FlushResult, type ImportMessage, type TurnInput, type TurnResult } from './write/turnWriter';

/** Messages of short-term history a resumed conversation gets from the daily logs (3 turns). */
const RECENT_HISTORY_MESSAGES = 6;

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
  /** Worker threads that gate an import's messages (default: one fewer than the cores, at most 3; 0: inline). */
  gateWorkers?: number;
  /** Texts waiting for a vector past which `importMessages` waits for vectors (IndexKeeper.keepUp; tests set it lower). */
  vectorBacklog?: number;
  /** The store's compaction policy and deferred-sync timer (tests); default: the store's own. */
  storePolicy?: Pick<StoreOptions, 'compactBytes' | 'compactRatio' | 'smallSnapshotBytes' | 'idleCompactMs' | 'idleCompactBytes' | 'replayCompactBytes' | 'syncEveryMs'>;
}

/**
 * Read-only queries for surfaces that show memory (the dashboard's view model): typed by the engine,
 * no transaction, no writer — every change goes through a verb of the facade.
 */
export interface EngineQuery {
  readonly items: Pick<ItemsRepo, 'get' | 'getMany' | 'list' | 'forEach' | 'count' | 'countByKind' | 'overviewGroups' | 'countAlive' | 'hiddenCounts' | 'tagCounts'>;
  readonly links: Pick<LinksRepo, 'from' | 'allFrom' | 'backlinks'>;
  readonly itemSources: Pick<ItemSourcesRepo, 'sourcesOf' | 'derivedFrom'>;
  readonly quarantines: Pick<QuarantinesRepo, 'get' | 'list' | 'rows'>;
  readonly ledger: Pick<LedgerRepo, 'list'>;
  /** An item's text (a raw message's comes from the compressed record). */
  textOf(item: Item): string;
  hasVector(id: string): boolean;
  readNote(id: string): Promise<ParsedNote | undefined>;
}

import { Forgetter, type ForgetPlan } from './maintain/forget';
export { describeForgetPlan, type ForgetPlan } from './maintain/forget';

export type { RememberInput } from './write/directNotes';

export class MemoryEngine extends Disposable {
  readonly vaultDir: string;
  private readonly vault: VaultIndex;
  private readonly writer: TurnWriter;
  private readonly recaller: Recaller;
  /** Samples `footprint().memoryBytes` every N turns (the participant counts turns) and words a notice once per worsening. */
  private readonly healthMonitor: HealthMonitor;
  private settingsValue: EngineSettings;
  private readonly changeEmitter = this._register(new Emitter<{ ids: string[] }>());
  /** Fires after items change (local writes, other windows' writes, vault edits). */
  readonly onDidChange: Event<{ ids: string[] }> = this.changeEmitter.event;
  private vaultSynced: Promise<void> = Promise.resolve();
  private readonly pendingLogs = new Set<Promise<void>>();
  private closed = false;
  private readonly keeper: IndexKeeper;
  private readonly access: AccessCounter;
  private readonly statusReader: StatusReader;
  private readonly forgetter: Forgetter;
  /** The repository's project vault (issue #15; project/projectVault.ts): attach, notes, share, make personal. */
  readonly project: ProjectVault;

  private constructor(
    private readonly store: Store,
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
    const pool = new GatePool({ workers: opts.gateWorkers, logger });
    this.writer = new TurnWriter(store, settings, clock, logger, pool);
    this.keeper = this._register(new IndexKeeper(store, embedder, (it) => this.textOfItem(it), logger, (texts, dims) => pool.embedMany(texts, dims), opts.vectorBacklog));
    this.writer.primer = this.keeper.recallIndex;
    this._register(this.keeper.onDidCatchUp((e) => this.changeEmitter.fire(e)));
    this.access = new AccessCounter(store, clock, logger);
    this.statusReader = new StatusReader({
      store, vaultDir: this.vaultDir, keeper: this.keeper, index: () => this.index, settings, clock,
    });
    this.forgetter = new Forgetter({
      store, vaultDir: this.vaultDir, clock, logger, writer: this.writer, index: () => this.index,
      whenLogsWritten: () => this.whenLogsWritten(), syncIndex: () => this.syncIndex(), persistIndex: (why) => this.persistIndex(why),
    });
    this.recaller = new Recaller(store, this.keeper.recallIndex, this.vaultDir, settings, clock, logger, (i) => this.writer.textOf(i));
    this.project = this._register(new ProjectVault({
      store, clock, logger, personal: this.vault, personalDir: this.vaultDir, afterWrite: () => this.index.embedPending().then(() => undefined),
    }));
    this.recaller.rowVisible = (id, meta) => this.project.visible(id, meta);
    this.recaller.noteRoot = (id) => (id.startsWith('pv:') ? this.project.attached?.dir : this.vaultDir);
    this.healthMonitor = HealthMonitor.fromSettings(this.settingsValue, () => this.footprint().memoryBytes);
    this._register(store.onDidChange((c) => this.onStoreChange(c.ids, c.reloaded, c.indexNeutral)));
    const keeper = this.keeper;
    registerEngineParts(this, {
      store, vault: this.vault, writer: this.writer, recaller: this.recaller, healthMonitor: this.healthMonitor,
      get index() { return keeper.index; },
      rawIndex: this.keeper.recallIndex,
    });
    this.query = {
      items: store.items, links: store.links, itemSources: store.itemSources, quarantines: store.quarantines, ledger: store.ledger,
      textOf: (it) => this.textOfItem(it),
      hasVector: (id) => this.index.hasVector(id),
      readNote: (id) => (id.startsWith('pv:') ? this.project.attached?.index.readNote(id) ?? Promise.resolve(undefined) : this.vault.readNote(id)),
    };
  }

  static async open(opts: EngineOptions): Promise<MemoryEngine> {
    const logger = opts.logger ?? nullLogger;
    const clock = opts.clock ?? systemClock;
    const store = await Store.open({ ...opts.storePolicy, dir: opts.storeDir, logger, clock, wasmPath: opts.wasmPath });
    const engine = new MemoryEngine(store, opts, logger, clock, opts.embedder ?? new HashEmbedder());
    try {
      mkdirSync(engine.vaultDir, { recursive: true });
      engine.vault.loadFromStore();
      engine.keeper.load();
      const sync = opts.syncVault ?? 'await';
      if (sync !== false) {
        const run = engine.vault.syncAll({ rebuild: store.openReport.needsReindex }).then(
          () => undefined,
          (e) => logger.error('vault.sync_failed', { error: errorCode(e) }),
        );
        engine.vaultSynced = run;
        if (sync !== 'background') await run;
      }
      const s = engine.settingsValue;
      if (s.l0CaptureToolResults) logger.warn('l0.capture_tool_results_on', {});
      if (s.l0CaptureThinking) logger.warn('l0.capture_thinking_on', {});
      engine.keeper.scheduleVectors();
    } catch (e) {
      await store.close().catch(() => undefined);
      throw e;
    }
    return engine;
  }

  get settings(): Readonly<EngineSettings> { return this.settingsValue; }

  /** Read-only queries (see EngineQuery). */
  readonly query: EngineQuery;

  // ------------------------------------------------------------------ items, for surfaces

  /** One item by id; undefined: no such memory. */
  get(id: string): Item | undefined {
    this.ensureOpen();
    return this.store.items.get(id);
  }

  /** An item's text (a raw message's comes from the compressed record). */
  textOf(item: Item): string { return this.textOfItem(item); }

  /** Every personal vault note's row (the vault tree, the language server's note list); project notes: `project.notes()`. */
  notes(): Item[] {
    this.ensureOpen();
    const out: Item[] = [];
    this.store.items.forEach({ kind: 'note' }, (it) => { if (it.id.startsWith('vt:')) out.push(it); });
    return out;
  }

  /** The notes that link to the note `id` by wikilink. */
  backlinks(id: string): Item[] {
    this.ensureOpen();
    return this.store.items.getMany(this.vault.links.backlinks(id));
  }

  /** How many items the store holds (every kind). */
  itemCount(): number { return this.store.items.count(); }

  /** The id of the embedder in use. */
  get embedderId(): string { return this.index.embedderId; }

  /** Re-reads one vault file (added, changed or deleted) into the store; its note id, or null when it is no note. */
  syncVaultFile(relPath: string): Promise<string | null> {
    this.ensureOpen();
    return this.vault.syncFile(relPath);
  }

  /** Reconciles the whole vault folder with the store (files changed while nobody watched). */
  syncVault(): Promise<VaultSyncReport> {
    this.ensureOpen();
    return this.vault.syncAll();
  }

  /**
   * Pins or unpins a vault note: only its frontmatter's `pinned` key is rewritten (a note whose
   * frontmatter does not parse is refused, E_BAD_INPUT), then the note is re-indexed. Returns the new value.
   */
  async setPinned(id: string, on: boolean): Promise<boolean> {
    this.ensureOpen();
    const item = this.store.items.get(id);
    if (!item) throw new MemoryError('E_NOT_FOUND', 'no such memory');
    if (item.kind !== 'note' || !item.path) throw new MemoryError('E_BAD_INPUT', 'only a vault note is pinned from its file');
    refuseProjectNote(id);
    const pinned = await setNoteFilePinned(this.vaultDir, item.path, on);
    await this.vault.syncFile(item.path);
    return pinned;
  }

  /**
   * Turn capture (R-WRITE-6): a background model proposes up to two durable notes from the turn, through
   * the poison gate and the note-repeat rule; one ledger row per turn. Rejects only for bad arguments or an
   * unwritable ledger.
   */
  async capture(input: CaptureInput, opts: { model?: BackgroundModel; signal?: AbortSignal; budget?: CaptureBudget } = {}): Promise<LedgerOutcome> {
    this.ensureOpen();
    return captureTurn(input, captureDepsOf(this, opts.model, { signal: opts.signal, budget: opts.budget, ...this.proposedTarget(input.project) }));
  }

  /** Counts a chat turn for the health check (every N turns); the notice to show once per worsening, or null. */
  countTurn(): string | null {
    this.healthMonitor.onTurn();
    return this.healthMonitor.notice();
  }

  /**
   * The recall index, with every store change so far applied (writes index after their
   * acknowledgement, so a read through here — or search / recall — never misses one).
   */
  private get index(): RecallIndex { return this.keeper.index; }

  /** How the recall index came up at open: loaded from its file (+ catch-up) or rebuilt from the store. */
  get indexOpen(): IndexOpenReport { return this.keeper.openReport; }

  /** Saves the recall index image and vectors now if they changed (also done when idle and at close). */
  persistIndex(why: 'close' | 'idle' | 'switch' | 'forget' = 'idle'): void { this.keeper.persist(why); }

  /** Resolves once background vector work started so far (fill after open or a switch) has finished. */
  whenVectorsReady(): Promise<void> { return this.keeper.whenVectorsReady(); }

  /**
   * Switches the embedder: the old vectors are saved and dropped at once (never mixed with the new ones),
   * the new embedder's saved vectors adopted, the rest embedded in the background.
   */
  async useEmbedder(embedder: Embedder, info: { model?: string | null; reason?: string } = {}): Promise<void> {
    this.ensureOpen();
    await this.keeper.useEmbedder(embedder, info);
  }

  /** e5 when its weights are there (or download is allowed), else the hash embedder; never throws for a model problem. */
  async loadEmbedder(opts: { modelsDir: string; allowDownload?: boolean; modelId?: string; tryModel?: boolean }): Promise<{ id: string; reason: LoadedEmbedder['reason'] }> {
    this.ensureOpen();
    return this.keeper.loadEmbedder(opts);
  }

  /**
   * Short-term history for a resumed conversation (R-WRITE-7): the conversation's last turns from the daily
   * logs that the caller's own history does not hold (`have`: its messages' texts), oldest first. Empty for a
   * conversation the logs do not know. Reads at most the last `maxDays` log files (default 7).
   */
  async recentHistory(conversation: string, opts: { limit?: number; have?: readonly string[]; maxDays?: number } = {}): Promise<RecentTurn[]> {
    this.ensureOpen();
    if (typeof conversation !== 'string' || !conversation) return [];
    await this.whenLogsWritten();
    const limit = Math.max(0, Math.min(50, Math.floor(opts.limit ?? RECENT_HISTORY_MESSAGES)));
    const norm = (x: string) => x.replace(/\s+/g, ' ').trim();
    const have = new Set((opts.have ?? []).map(norm));
    const turns = await recentTurns(this.vaultDir, { limit: limit + have.size, conversation, maxDays: opts.maxDays ?? 7 });
    return turns.filter((t) => t.text.trim() && !have.has(norm(t.text))).slice(-limit);
  }

  /**
   * One sentence for the user when the store was repaired at open (R-STORE-3: a corrupt snapshot moved aside and
   * rebuilt from the journal and the vault, a bad journal moved aside, a torn tail cut, records skipped) — once:
   * the store remembers that it was told (every window shares it), so the next call and the next open say nothing.
   */
  async takeRecoveryNotice(): Promise<string | null> {
    this.ensureOpen();
    return takeRecoveryNotice(this.store, this.logger);
  }

  /** Resolves once every daily-log append and working-block update started so far is on disk. */
  async whenLogsWritten(): Promise<void> { await Promise.all([...this.pendingLogs]); }

  /** Resolves once the vault reconciliation started at open has finished. */
  whenVaultSynced(): Promise<void> { return this.vaultSynced; }

  updateSettings(partial: Partial<EngineSettings>): void {
    this.settingsValue = withDefaults({ ...this.settingsValue, ...partial });
    const s = this.settingsValue;
    this.healthMonitor.update({ everyNTurns: s.healthEveryNTurns, warnBytes: s.healthWarnBytes, critBytes: s.healthCritBytes });
  }

  // ------------------------------------------------------------------ write

  async recordTurn(t: TurnInput): Promise<TurnResult> {
    this.ensureOpen();
    if (!this.settingsValue.enabled) return { ids: [], skipped: [] };
    const res = await this.writer.recordTurn(t);
    // The daily log is the transcript: every turn, detached from the acknowledgement.
    // The log gets the turn as saved: the reply without the recall block and its fragments (no echo).
    const log = appendTurn(this.vaultDir, {
      at: t.at ?? this.clock.now(), timeZone: this.clock.timeZone(), user: res.saved?.user ?? t.user, assistant: res.saved?.assistant ?? t.assistant, conversation: t.conversation,
    }).then(
      () => undefined,
      (e) => this.logger.warn('daily_log.append_failed', { error: errorCode(e) }),
    );
    this.pendingLogs.add(log);
    void log.finally(() => this.pendingLogs.delete(log));
    // The working block, also detached: the turn is acknowledged once its own rows are on disk.
    const work = updateWorkingBlock({ store: this.store, clock: this.clock, logger: this.logger, settings: this.settingsValue }, t, res).catch((e) => this.logger.warn('working.update_failed', { error: errorCode(e) }));
    this.pendingLogs.add(work);
    void work.finally(() => this.pendingLogs.delete(work));
    return res;
  }

  /** Verbatim import of transcript messages (no save filter); derivation runs on the next flush. */
  async importMessages(msgs: readonly ImportMessage[]): Promise<string[]> {
    this.ensureOpen();
    return this.writer.importMessages(msgs, () => this.keeper.keepUp());
  }

  /**
   * Loads a structured Markdown document as pinned `dc:` items, idempotently (R-WRITE-8): new
   * sections are added, changed ones updated, unchanged ones cost nothing, removed ones deleted.
   */
  async loadDocument(input: LoadDocumentInput): Promise<LoadDocumentResult> {
    this.ensureOpen();
    const res = await loadDocument({ store: this.store, clock: this.clock, logger: this.logger }, input);
    await this.index.embedPending();
    return res;
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
    const r = await rememberNote(this.noteDeps(), input);
    await this.index.embedPending();
    return r;
  }

  /**
   * An agent's durable note (memory_save over the VS Code tools or MCP): poison gate, masking, secrets tag,
   * reinforcement of the same fact already noted in scope; trust `derived`. Refusals are MemoryErrors whose
   * `details.gate` names the gate (disabled, input, scope, poison, mask).
   */
  async save(input: AgentSaveInput): Promise<AgentSaveResult> {
    this.ensureOpen();
    await this.vaultSynced;
    const res = await saveAgentNote({
      store: this.store, vault: this.vault, vaultDir: this.vaultDir, clock: this.clock, logger: this.logger, enabled: this.settingsValue.enabled,
      ...this.proposedTarget(input.project),
    }, input);
    await this.index.embedPending();
    return res;
  }

  /**
   * What forgetting `id` would remove, everywhere memory keeps it (R-MAINT-4; shown in the confirmation):
   * the item and the rows derived only from it, its note file, its raw-record slot, its daily-log blocks.
   */
  async forgetPreview(id: string): Promise<ForgetPlan> {
    this.ensureOpen();
    refuseProjectNote(id);
    return this.forgetter.preview(id);
  }

  /** Deletes one item everywhere memory keeps it (see forgetPreview); the audit row records ids and counts only. */
  async forget(id: string, actor = 'user'): Promise<{ id: string; removed: string[]; plan: ForgetPlan }> {
    this.ensureOpen();
    refuseProjectNote(id);
    return this.forgetter.forget(id, actor);
  }

  // ------------------------------------------------------------------ read

  async search(query: string, ctx: ReadContext = {}, k?: number): Promise<SearchHit[]> {
    this.ensureOpen();
    this.syncIndex();
    const hits = await this.recaller.search(query, ctx, k);
    this.access.note(hits.map((h) => h.id));
    return hits;
  }

  /** Fail-soft: never throws for a recall problem; an empty block carries the reason. */
  async recall(req: RecallRequest): Promise<RecallResult> {
    this.ensureOpen();
    try {
      this.syncIndex();
      const res = await this.recaller.recall(req);
      this.access.note([...res.hits.map((h) => h.id), ...res.items.filter((i) => i.startsWith('wk:'))]);
      return res;
    } catch (e) {
      const reason = e instanceof MemoryError ? e.code : 'error';
      this.logger.warn('recall.failed', { reason });
      return { block: '', items: [], hits: [], reason };
    }
  }

  async expand(id: string, ctx: ReadContext = {}): Promise<ExpandResult> {
    this.ensureOpen();
    this.syncIndex();
    const res = await this.recaller.expand(id, ctx);
    this.access.note([res.id]);
    return res;
  }

  /** Writes the queued access counts now (one transaction; recall, search and expand queue them). */
  flushAccess(): Promise<void> { return this.access.flush(); }

  // ------------------------------------------------------------------ consolidation (R-MAINT-1, R-MAINT-2)

  private consolidating: Promise<ConsolidationReport> | undefined;

  /**
   * Re-scores salience, archives low-salience episodic items and expired working blocks, and promotes
   * recurring valuable facts / summaries to vault notes through `model` and the poison gate (without a
   * model: `skippedNoModel`). A run already in progress is joined, not doubled.
   */
  consolidate(opts: ConsolidateOptions = {}): Promise<ConsolidationReport> {
    this.ensureOpen();
    if (this.consolidating) return this.consolidating;
    const run = (async () => {
      await this.vaultSynced;
      await this.flushAccess();
      const report = await consolidate({
        store: this.store, vault: this.vault, vaultDir: this.vaultDir, clock: this.clock, logger: this.logger,
        afterWrite: () => this.index.embedPending().then(() => undefined),
      }, opts);
      this.syncIndex();
      return report;
    })();
    this.consolidating = run.finally(() => { this.consolidating = undefined; });
    return this.consolidating;
  }

  /** The review queue (R-MAINT-2): near-threshold items, superseded facts, untrusted notes. */
  reviewQueue(opts: ReviewOptions = {}): ReviewEntry[] {
    this.ensureOpen();
    return reviewQueue(this.store, this.clock.now(), { includeSecrets: this.settingsValue.recallIncludeSecrets, ...opts });
  }

  /**
   * Review queue "keep" (R-MAINT-2): pins the item (a note's file gets `pinned: true` from the caller, which
   * owns the vault file) and resets its decay (last use = now); the entry leaves the queue.
   */
  async reviewKeep(id: string): Promise<void> {
    this.ensureOpen();
    const it = this.store.items.get(id);
    if (!it) throw new MemoryError('E_NOT_FOUND', 'no such memory');
    const now = this.clock.now();
    await this.store.transaction((tx) => tx.items.patch(id, {
      pinned: true, lastAccessed: now, salience: null, meta: { ...it.meta, reviewKept: now },
    }));
  }

  /**
   * Review queue "promote now": the item becomes a vault note at once, without a model (through the poison
   * gate; a reject writes nothing: E_REFUSED) and is archived with `promotedTo`, as consolidation does.
   */
  async promoteNow(id: string): Promise<{ id: string; path: string }> {
    this.ensureOpen();
    const r = await promoteToNote(this.noteDeps(), id);
    await this.index.embedPending();
    return r;
  }

  /** Where capture and memory_save write for `project`: the project vault when it proposes notes for it. */
  private proposedTarget(project: string | undefined): { vault: VaultIndex; vaultDir: string } | object {
    const p = this.project.attached;
    return p?.proposeNotes && project === p.projectId ? { vault: p.index, vaultDir: p.dir } : {};
  }

  private noteDeps(): DirectNoteDeps {
    return { store: this.store, vault: this.vault, vaultDir: this.vaultDir, clock: this.clock, logger: this.logger, textOf: (it) => this.textOfItem(it) };
  }

  /**
   * The morning briefing (R-MAINT-5): `reflections/<today>.md` about yesterday — the deterministic part always,
   * a model-written part with `model` (masked for a remote one, poison-gated). See maintain/reflection.ts.
   */
  async reflect(opts: { model?: BackgroundModel; signal?: AbortSignal } = {}): Promise<ReflectionResult> {
    this.ensureOpen();
    await this.vaultSynced;
    await this.whenLogsWritten();
    const r = await reflect({ store: this.store, vault: this.vault, vaultDir: this.vaultDir, clock: this.clock, logger: this.logger }, opts);
    await this.index.embedPending();
    return r;
  }

  /** The local day (`YYYY-MM-DD`) of the last briefing, shared by every window and the CLI; null: never. */
  lastReflectionDay(): string | null {
    return this.store.meta.get(REFLECTION_LAST_DAY) ?? null;
  }

  /** When the last consolidation ran (ms), shared by every window through the store; null: never. */
  lastConsolidation(): number | null {
    const v = Number(this.store.meta.get('consolidation.lastRun'));
    return Number.isFinite(v) && v > 0 ? v : null;
  }

  // ------------------------------------------------------------------ maintenance

  async rebuild(): Promise<VaultSyncReport> {
    this.ensureOpen();
    const report = await this.vault.rebuild();
    // The attached project vault's rows come from its files too (same pv: ids), counted in the report (issue #15).
    const p = await this.project.attached?.index.rebuild();
    if (p) for (const k of ['scanned', 'added', 'updated', 'removed', 'problems', 'skipped', 'read'] as const) report[k] += p[k];
    await this.index.embedPending();
    return report;
  }

  // ------------------------------------------------------------------ provider quarantine (R-QUAR-1..3)

  private quarantineValue: ProviderQuarantine | undefined;
  private get quarantine(): ProviderQuarantine {
    this.quarantineValue ??= new ProviderQuarantine({
      store: this.store, vault: this.vault, vaultDir: this.vaultDir, clock: this.clock, logger: this.logger,
      resummarize: (c) => this.writer.resummarize(c),
    });
    return this.quarantineValue;
  }

  /** What quarantining `providers` (optionally whole local days from..to) would hide; changes nothing. */
  quarantinePreview(sel: QuarantineSelection): QuarantinePreview {
    this.ensureOpen();
    return this.quarantine.preview(sel);
  }

  /** Hides a provider's rows, what was derived from them and the affected conversations' capture notes. */
  async quarantineApply(sel: QuarantineSelection): Promise<QuarantineApplyResult> {
    this.ensureOpen();
    const r = await this.quarantine.apply(sel);
    this.syncIndex();
    return r;
  }

  /** Restores a quarantine's rows and notes exactly as they were (E_NOT_FOUND, E_REFUSED when already released). */
  async quarantineRelease(id: string): Promise<QuarantineReleaseResult> {
    this.ensureOpen();
    const r = await this.quarantine.release(id);
    this.syncIndex();
    await this.index.embedPending();
    return r;
  }

  /** Providers that wrote memory, with their still-recallable row counts. */
  quarantineProviders(): ProviderCount[] {
    this.ensureOpen();
    return this.quarantine.providers();
  }

  /** Every quarantine, newest first. */
  quarantineHistory(): QuarantineEntry[] {
    this.ensureOpen();
    return this.quarantine.history();
  }

  /** The cheap part of the status card (no scans) for surfaces that refresh after every write burst (the status bar). */
  headline(): EngineHeadline { return this.statusReader.headline(); }

  /** The engine's own footprint (see EngineFootprint); recomputed only when the store or the index changed. */
  footprint(): EngineFootprint { return this.statusReader.footprint(); }

  /** The status card: embedder, counts, vectors, switches, store, health (ids and counts only). */
  status(): EngineStatus { return this.statusReader.status(); }

  /** Flushes buffers, saves, and closes the store (compacting it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.access.stop();
    this.project.detach(true);
    const vectorsStopped = this.keeper.stop();
    this.writer.dispose();
    await this.vaultSynced;
    await Promise.all([...this.pendingLogs]);
    await this.consolidating?.catch(() => undefined);
    await this.flushAccess();
    try {
      await this.writer.flush();
    } catch (e) {
      this.logger.warn('close.flush_failed', { error: errorCode(e) });
    }
    await vectorsStopped;
    this.keeper.closeIndex(); // saved; the vectors' memory goes to the next index this process opens
    await this.store.close();
    this.dispose();
  }

  // ------------------------------------------------------------------ internals

  /** Applies store changes the recall index has not seen yet. */
  private syncIndex(): void { this.keeper.syncNow(); }

  private ensureOpen(): void {
    if (this.closed) throw new MemoryError('E_CLOSED', 'the memory engine is closed');
  }

  private textOfItem(it: Pick<Item, 'kind' | 'text' | 'blobHash'>): string {
    return it.kind === 'raw' ? this.writer.textOf(it) : (it.text ?? '');
  }

  private onStoreChange(ids: string[], reloaded: boolean, indexNeutral?: string[]): void {
    this.recaller.noteStoreChange(ids, reloaded);
    this.keeper.noteStoreChange(ids, reloaded, indexNeutral);
  }
}

/** A project note is a file of the repository: it is edited, deleted or made personal there, not here. */
function refuseProjectNote(id: string): void {
  if (id.startsWith('pv:')) throw new MemoryError('E_REFUSED', 'a project note is a file in the repository: edit or delete it there, or use Make Personal', { reason: 'project_note' });
}

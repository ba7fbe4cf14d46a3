// Watches the vault folder and re-indexes what changed, so hand edits reach recall without a rebuild.
// Invariants: one quiet period per path (editors save in bursts) before the index sees it; changes are
// indexed one batch at a time, in order; logs/, hidden folders (.quarantine/, .obsidian/) and
// noteWriter's temp files (`.<name>.<hex>.tmp`) never trigger work; logs carry codes and counts, never paths.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryError, errorCode } from '../errors';
import { Disposable, Emitter, nullLogger, type Event, type Logger } from '../host';
import { isNotePath, type VaultIndex } from './vaultIndex';
import { LONGTERM_FILE, VAULT_DIRS } from './vaultLayout';

export type VaultWatchMode = 'recursive' | 'perDirectory';

export interface VaultWatcherOptions {
  /** Quiet time per path before it is indexed (ms). 75 ms: an editor's save burst (truncate, write,
   *  rename) takes a few ms; a person typing and saving again takes seconds. */
  debounceMs?: number;
  logger?: Logger;
  /** 'auto' (default): node's recursive fs.watch where the platform has it (Node ≥ 19.1 on Linux,
   *  always on macOS/Windows), else one watcher per folder. */
  mode?: 'auto' | VaultWatchMode;
  /** Wait before re-arming after the watcher failed (ms); 1 s: a vault folder being replaced settles quickly. */
  restartMs?: number;
  /** A batch of more paths than this (a pull, a branch switch) is one full re-sync pass instead (default: never). */
  fullSyncAbove?: number;
  /** Runs before each batch is indexed (the project vault re-reads its git facts here). */
  beforeSync?: () => Promise<void>;
}

export interface VaultChangeEvent {
  /** Note ids whose rows were added, updated or removed. */
  ids: string[];
  /** The watcher lost track (an event without a name, a restart): the whole vault was re-synced. */
  all?: boolean;
}

/** Marks a full re-sync in the pending set (not a valid vault path, so it cannot collide). */
const ALL = '\0all';

export class VaultWatcher extends Disposable {
  private readonly changeEmitter = this._register(new Emitter<VaultChangeEvent>());
  readonly onDidChange: Event<VaultChangeEvent> = this.changeEmitter.event;

  readonly vaultDir: string;
  private modeUsed: VaultWatchMode = 'recursive';
  private readonly debounceMs: number;
  private readonly restartMs: number;
  private readonly logger: Logger;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly ready = new Set<string>();
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private running = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private idleWaiters: (() => void)[] = [];

  /** Starts watching at once. Errors: E_NOT_FOUND when the vault folder does not exist. */
  constructor(private readonly index: VaultIndex, private readonly opts: VaultWatcherOptions = {}) {
    super();
    this.vaultDir = path.resolve(index.vaultDir);
    this.debounceMs = opts.debounceMs ?? 75;
    this.restartMs = opts.restartMs ?? 1000;
    this.logger = opts.logger ?? nullLogger;
    let st: fs.Stats;
    try {
      st = fs.statSync(this.vaultDir);
    } catch {
      throw new MemoryError('E_NOT_FOUND', 'the vault folder does not exist');
    }
    if (!st.isDirectory()) throw new MemoryError('E_NOT_FOUND', 'the vault path is not a folder');
    this.arm();
    this._register({ dispose: () => this.stop() });
  }

  /** Which watching strategy is in use. */
  get mode(): VaultWatchMode {
    return this.modeUsed;
  }

  /** Resolves once every change seen so far has been indexed (and its event fired). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  // ---------------------------------------------------------------------------------------------
  // watching

  private arm(): void {
    const want = this.opts.mode ?? 'auto';
    if (want !== 'perDirectory') {
      try {
        const w = fs.watch(this.vaultDir, { recursive: true }, (_ev, name) => this.onRaw('', name));
        w.on('error', (e) => this.onWatchError(e));
        this.watchers.set('', w);
        this.modeUsed = 'recursive';
        this.logger.info('vault.watch.start', { mode: 'recursive' });
        return;
      } catch (e) {
        if (want === 'recursive' || (e as NodeJS.ErrnoException).code !== 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM') throw e;
      }
    }
    this.modeUsed = 'perDirectory';
    this.watchTree('');
    this.logger.info('vault.watch.start', { mode: 'perDirectory', folders: this.watchers.size });
  }

  /** perDirectory mode: a watcher on `relDir` and every visible folder under it. */
  private watchTree(relDir: string): void {
    if (this.isDisposed || this.watchers.has(relDir) || (relDir && isIgnored(relDir))) return;
    const abs = relDir ? path.join(this.vaultDir, ...relDir.split('/')) : this.vaultDir;
    let w: fs.FSWatcher;
    try {
      w = fs.watch(abs, (_ev, name) => this.onRaw(relDir, name));
    } catch (e) {
      if (!relDir) throw e;
      return; // removed again before we got to it; its parent's event covers that
    }
    w.on('error', (e) => (relDir ? this.unwatchTree(relDir) : this.onWatchError(e)));
    this.watchers.set(relDir, w);
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      /* gone meanwhile */
    }
    for (const ent of entries) if (ent.isDirectory()) this.watchTree(relDir ? `${relDir}/${ent.name}` : ent.name);
  }

  private unwatchTree(relDir: string): void {
    for (const [rel, w] of this.watchers) {
      if (rel && (rel === relDir || rel.startsWith(`${relDir}/`))) {
        w.close();
        this.watchers.delete(rel);
      }
    }
  }

  private stop(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.ready.clear();
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.settleIdle();
  }

  /** The root watcher failed (vault folder removed or replaced, inotify limits): re-arm later, then re-sync. */
  private onWatchError(e: unknown): void {
    this.logger.warn('vault.watch.error', { code: errorCode(e), mode: this.modeUsed });
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    if (this.isDisposed || this.restartTimer) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.isDisposed) return;
      try {
        if (!fs.statSync(this.vaultDir).isDirectory()) throw new Error('not a folder');
        this.arm();
        this.schedule(ALL);
      } catch (err) {
        this.onWatchError(err);
      }
    }, this.restartMs);
  }

  private onRaw(relDir: string, name: string | Buffer | null): void {
    if (this.isDisposed) return;
    if (name === null || name === undefined) {
      this.schedule(ALL); // the platform dropped the name: only a full sync is safe
      return;
    }
    const sub = (typeof name === 'string' ? name : name.toString('utf8')).split(path.sep).join('/');
    const rel = relDir ? `${relDir}/${sub}` : sub;
    if (!rel || isIgnored(rel)) return;
    if (this.modeUsed === 'perDirectory') {
      // Watch a new folder at once, so files written into it right now are seen (syncDir rescans it anyway).
      let isDir = false;
      try { isDir = fs.statSync(path.join(this.vaultDir, ...rel.split('/'))).isDirectory(); } catch { /* removed */ }
      if (isDir) this.watchTree(rel);
      else this.unwatchTree(rel);
    }
    this.schedule(rel);
  }

  // ---------------------------------------------------------------------------------------------
  // debounce and indexing

  private schedule(rel: string): void {
    const t = this.timers.get(rel);
    if (t) clearTimeout(t);
    this.timers.set(rel, setTimeout(() => {
      this.timers.delete(rel);
      this.ready.add(rel);
      void this.pump();
    }, this.debounceMs));
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.ready.size && !this.isDisposed) {
        const batch = [...this.ready];
        this.ready.clear();
        const ids = new Set<string>();
        let all = false;
        await this.guard(async () => { await this.opts.beforeSync?.(); });
        if (batch.includes(ALL) || (this.opts.fullSyncAbove !== undefined && batch.length > this.opts.fullSyncAbove)) {
          all = true;
          await this.guard(() => this.index.syncAll());
        } else {
          for (const rel of batch) await this.guard(() => this.syncPath(rel, ids));
        }
        if ((ids.size || all) && !this.isDisposed) {
          this.logger.trace('vault.watch.changed', { notes: ids.size, all });
          this.changeEmitter.fire(all ? { ids: [...ids], all } : { ids: [...ids] });
        }
      }
    } finally {
      this.running = false;
      this.settleIdle();
    }
  }

  private async syncPath(rel: string, ids: Set<string>): Promise<void> {
    let st: fs.Stats | undefined;
    try {
      st = await fs.promises.stat(path.join(this.vaultDir, ...rel.split('/')));
    } catch {
      st = undefined;
    }
    if (st?.isDirectory() || (!st && !isNotePath(rel))) {
      // A folder appeared, was renamed or removed (or a non-note file vanished: it may have been a folder).
      for (const r of await this.index.syncDir(rel)) if (r.id) ids.add(r.id);
      return;
    }
    if (!isNotePath(rel)) return;
    const r = await this.index.syncFileChange(rel);
    if (r.id && (r.change === 'added' || r.change === 'updated' || r.change === 'removed')) ids.add(r.id);
  }

  /** A failure to index one path is logged and does not stop the watcher. */
  private async guard(fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      if (!this.isDisposed) this.logger.warn('vault.watch.sync_failed', { code: errorCode(e) });
    }
  }

  private isIdle(): boolean {
    return this.isDisposed || (!this.running && this.timers.size === 0 && this.ready.size === 0);
  }

  private settleIdle(): void {
    if (!this.isIdle()) return;
    for (const r of this.idleWaiters.splice(0)) r();
  }
}

/** Paths the watcher never indexes: hidden segments (temp files, .quarantine/), logs/, longterm.md. */
function isIgnored(rel: string): boolean {
  const segs = rel.split('/');
  if (segs[0] === VAULT_DIRS.logs || rel === LONGTERM_FILE) return true;
  return segs.some((s) => s.startsWith('.') || s === '');
}

// The project vault (issue #15): a folder inside the repository (default `.memory/`) holding notes in the
// personal vault's format, shared through git. Indexed beside the personal vault by its own VaultIndex with
// ids `pv:<project id>/<path>` (never a personal `vt:` id), every row scoped to the project. At index time each
// note gets its trust from git (the user's own or uncommitted → as the frontmatter says; a teammate's or an
// unknown author's → at most `peer`) and passes the poison gate (a flagged note, or one with merge-conflict
// markers, is kept as `quarantined`: never recalled, listed as flagged by `notes()`). The rows are only
// recalled while the vault is attached in this engine (Restricted Mode, `--no-project-vault`: not attached).
// The agent files (AGENTS.md, CLAUDE.md, .github/copilot-instructions.md) load as project documents.
import { createHash } from 'node:crypto';
import { existsSync, promises as fsp, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { MemoryError, errorCode } from '../errors';
import { Disposable, Emitter, type Clock, type Event, type Logger } from '../host';
import type { ItemInput } from '../store/repositories';
import type { Store } from '../store/store';
import { lowerTrust, PROJECT_NOTE_PREFIX, type Trust } from '../types';
import type { ParsedNote } from '../vault/noteParser';
import { replaceNoteFile } from '../vault/noteWriter';
import { VaultIndex, type VaultSyncReport } from '../vault/vaultIndex';
import { checkRelPath, resolveInVault } from '../vault/vaultLayout';
import { VaultWatcher } from '../vault/vaultWatcher';
import { maskOrWithhold } from '../write/mask';
import { gate, type GateDetector } from '../write/poisonGate';
import { AGENT_FILES, loadAgentFiles } from './agentFiles';
import { GitUnavailableError, readGitFacts, sameBlob, type GitFacts } from './git';
import { gatedText } from './gatedText';
import { watchNames, type NameWatch } from './repoWatch';
import { refreshGitTrust } from './trustRefresh';

export const DEFAULT_PROJECT_FOLDER = '.memory';
const PROJECT_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** A watcher batch of more paths than this (a pull, a branch switch) is one full re-sync pass. */
export const BURST_PATHS = 20;
/** Quiet time after a change of .git/HEAD, .git/index or an agent file before acting (a commit writes both). */
const GIT_SETTLE_MS = 300;

export interface ProjectAttachOptions {
  /** The workspace folder (absolute) the vault belongs to. */
  workspaceRoot: string;
  /** The project id (`memory.projectId` grammar: [a-z0-9._-], ≤ 64 chars). */
  projectId: string;
  /** The vault folder relative to the root (default `.memory`); must stay inside the root. */
  folder?: string;
  /** Capture and memory_save for this project write into the project vault (uncommitted), not the personal one. */
  proposeNotes?: boolean;
  /** Watch the folder (default true; the CLI and hooks pass false). */
  watch?: boolean;
  /** Re-sync at attach (default true). */
  sync?: boolean;
}

export interface ProjectVaultReport extends VaultSyncReport {
  dir: string;
  projectId: string;
  /** Agent files loaded (workspace-relative paths). */
  agentFiles: string[];
  /** False when the folder is no git work tree (or git is missing): every note counts as a teammate's. */
  git: boolean;
}

export interface ProjectVaultInfo {
  dir: string;
  projectId: string;
  workspaceRoot: string;
  notes: number;
  flagged: number;
  peer: number;
  owner: number;
  /** Last completed sync (ms), null: none yet. */
  lastSync: number | null;
  agentFiles: string[];
  proposeNotes: boolean;
  git: boolean;
  /** Git could not answer at the last read (not on PATH, timed out): rows keep the authors read before. */
  gitUnavailable: boolean;
  /** The id prefix of this vault's notes (`pv:<8 hex>/`). */
  idPrefix: string;
}

export interface ProjectNoteInfo {
  id: string;
  relPath: string;
  title: string;
  trust: 'owner' | 'peer';
  /** Last author's email (git), undefined when uncommitted or unknown. */
  author?: string;
  uncommitted: boolean;
  flagged?: { verdict: 'reject' | 'untrusted' | 'conflict'; detector: GateDetector | 'merge_conflict' };
}

export interface ProjectChangeEvent {
  ids: string[];
  all?: boolean;
  /** attached / detached / synced. */
  reason?: 'attach' | 'detach' | 'sync' | 'watch';
}

export interface ProjectVaultDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** The personal vault (share / make personal). */
  personal: VaultIndex;
  personalDir: string;
  /** Embeds what was written (the engine's index). */
  afterWrite: () => Promise<void>;
}

interface Attached {
  opts: Required<Omit<ProjectAttachOptions, 'watch' | 'sync'>>;
  dir: string;
  index: VaultIndex;
  watcher?: VaultWatcher;
  /** `.git` (HEAD, index: a commit, checkout or stage changes trust, not files) and the agent files' folders. */
  repoWatches: NameWatch[];
  /** attach({watch}) asked for watching: the vault folder is watched as soon as it exists. */
  watching?: boolean;
  facts?: GitFacts;
  /** The last git read failed (git missing or timed out): `facts` are the last good ones, or none. */
  gitUnavailable?: boolean;
  lastSync: number | null;
  agentFiles: string[];
}

const CONFLICT = /^<{7}(?: |$)[\s\S]*^>{7}(?: |$)/m;

/** The `engine.project` sub-facade. */
export class ProjectVault extends Disposable {
  private readonly changeEmitter = this._register(new Emitter<ProjectChangeEvent>());
  /** Fires after project rows changed (attach, detach, sync, watcher). */
  readonly onDidChange: Event<ProjectChangeEvent> = this.changeEmitter.event;
  private cur: Attached | undefined;

  constructor(private readonly deps: ProjectVaultDeps) { super(); }

  /** The attached vault's index (engine internals: save/capture when proposing notes). */
  get attached(): { index: VaultIndex; dir: string; projectId: string; proposeNotes: boolean } | undefined {
    const c = this.cur;
    return c && { index: c.index, dir: c.dir, projectId: c.opts.projectId, proposeNotes: c.opts.proposeNotes };
  }

  /** May recall show this row? Project-vault rows and agent-file sections only of the attached project. */
  visible(id: string, meta?: Record<string, unknown>): boolean {
    if (id.startsWith(PROJECT_NOTE_PREFIX)) return !!this.cur && id.startsWith(this.cur.index.idPrefix);
    const owner = meta?.projectVault;
    return typeof owner !== 'string' || owner === this.cur?.opts.projectId;
  }

  /**
   * Attaches the project vault (a previous one is detached) and syncs it once. Errors: E_BAD_INPUT for a
   * relative root, a bad project id, or a folder that leaves the root (`..`, absolute, a symlink out).
   */
  async attach(o: ProjectAttachOptions): Promise<ProjectVaultReport> {
    if (typeof o?.workspaceRoot !== 'string' || !path.isAbsolute(o.workspaceRoot)) throw new MemoryError('E_BAD_INPUT', 'workspaceRoot must be an absolute folder');
    if (typeof o.projectId !== 'string' || !PROJECT_ID.test(o.projectId)) throw new MemoryError('E_BAD_INPUT', 'projectId must be [a-z0-9._-], at most 64 characters');
    let root: string;
    try {
      root = realpathSync(o.workspaceRoot);
      if (!statSync(root).isDirectory()) throw new Error('not a folder');
    } catch {
      throw new MemoryError('E_NOT_FOUND', 'the workspace folder does not exist');
    }
    const folder = (o.folder ?? DEFAULT_PROJECT_FOLDER).replace(/\\/g, '/').replace(/\/+$/, '');
    try { checkRelPath(folder, { allowHidden: true }); } catch { throw new MemoryError('E_BAD_INPUT', 'the project vault folder must be a relative path inside the workspace'); }
    const dir = path.join(root, ...folder.split('/'));
    if (existsSync(dir) && !isInside(root, realpathSync(dir))) throw new MemoryError('E_BAD_INPUT', 'the project vault folder leaves the workspace (symlink)');
    this.detach(true);
    const opts = { workspaceRoot: root, projectId: o.projectId, folder, proposeNotes: o.proposeNotes === true };
    const cur: Attached = { opts, dir, lastSync: null, agentFiles: [], repoWatches: [], index: undefined as unknown as VaultIndex };
    cur.index = new VaultIndex(dir, this.deps.store, this.deps.clock, this.deps.logger, {
      idPrefix: projectIdPrefix(o.projectId, dir),
      decorate: (input, parsed) => this.decorate(cur, input, parsed),
    });
    cur.index.loadFromStore();
    this.cur = cur;
    // Watch first, then sync: a change between the scan and a later watch start (a checkout while attaching)
    // would otherwise go unnoticed until the next change. The git facts first: they say where .git is.
    if (o.watch !== false) {
      cur.watching = true;
      cur.facts = await this.readFacts(cur);
      this.watchRepo(cur);
      this.watchVault(cur);
    }
    const report = o.sync === false ? emptyReport() : await this.syncNow(cur);
    this.deps.logger.info('project.attach', { notes: report.scanned, git: !!cur.facts });
    this.changeEmitter.fire({ ids: [], all: true, reason: 'attach' });
    return { ...report, dir, projectId: o.projectId, agentFiles: cur.agentFiles, git: !!cur.facts };
  }

  /** Resolves once the watcher (if any) has indexed every change seen so far and fired its event. */
  async whenIdle(): Promise<void> {
    await this.cur?.watcher?.whenIdle();
    await this.deps.afterWrite();
  }

  /** Stops watching; the rows stay in the store but are not recalled until the vault is attached again. */
  detach(quiet = false): void {
    const c = this.cur;
    if (!c) return;
    c.watcher?.dispose();
    for (const w of c.repoWatches.splice(0)) w.close();
    this.cur = undefined;
    if (!quiet) this.changeEmitter.fire({ ids: [], all: true, reason: 'detach' });
  }

  info(): ProjectVaultInfo | undefined {
    const c = this.cur;
    if (!c) return undefined;
    const notes = this.notes();
    return {
      dir: c.dir, projectId: c.opts.projectId, workspaceRoot: c.opts.workspaceRoot, notes: notes.length,
      flagged: notes.filter((n) => n.flagged).length, peer: notes.filter((n) => !n.flagged && n.trust === 'peer').length,
      owner: notes.filter((n) => !n.flagged && n.trust === 'owner').length, lastSync: c.lastSync, agentFiles: [...c.agentFiles],
      proposeNotes: c.opts.proposeNotes, git: !!c.facts, gitUnavailable: c.gitUnavailable === true, idPrefix: c.index.idPrefix,
    };
  }

  /** The attached vault's notes (path order); [] when none is attached. */
  notes(): ProjectNoteInfo[] {
    const c = this.cur;
    if (!c) return [];
    const out: ProjectNoteInfo[] = [];
    this.deps.store.items.forEach({ kind: 'note' }, (it) => {
      if (!it.id.startsWith(c.index.idPrefix) || !it.path) return;
      const m = it.meta as Record<string, unknown>;
      const flagged = m.flagged as ProjectNoteInfo['flagged'] | undefined;
      const base = m.gitTrust === 'owner' ? 'owner' : 'peer';
      out.push({
        id: it.id, relPath: it.path, title: it.title ?? it.path, trust: flagged ? base : (it.trust === 'owner' || it.trust === 'derived' ? 'owner' : 'peer'),
        author: typeof m.author === 'string' ? m.author : undefined, uncommitted: m.uncommitted === true, ...(flagged ? { flagged } : {}),
      });
    });
    return out.sort((a, b) => a.relPath.localeCompare(b.relPath));
  }

  /** One re-sync pass (after a pull or a branch switch): git facts, notes, agent files. */
  async sync(): Promise<VaultSyncReport> {
    const c = this.need();
    const r = await this.syncNow(c);
    this.changeEmitter.fire({ ids: [], all: true, reason: 'sync' });
    return r;
  }

  /**
   * Re-reads one file by absolute path: a note in the vault folder, or an agent file at the root.
   * Returns the id (null: not a note, or removed) and whether it was a project file at all.
   */
  async syncFile(absPath: string): Promise<{ id: string | null; handled: boolean }> {
    const c = this.need();
    const abs = path.resolve(absPath);
    const relRoot = path.relative(c.opts.workspaceRoot, abs).split(path.sep).join('/');
    if (AGENT_FILES.includes(relRoot)) {
      await this.loadAgents(c);
      this.changeEmitter.fire({ ids: [], all: true, reason: 'sync' });
      return { id: null, handled: true };
    }
    const rel = path.relative(c.dir, abs).split(path.sep).join('/');
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return { id: null, handled: false };
    c.facts = await this.readFacts(c);
    const id = await c.index.syncFile(rel);
    await this.deps.afterWrite();
    this.changeEmitter.fire({ ids: [id ?? c.index.noteId(rel)], reason: 'sync' });
    return { id, handled: true };
  }

  /**
   * "Share with Project": moves a personal note into the project vault (same relative path), masked.
   * Refused (E_REFUSED, details.reason): `secret` (tagged contains-secrets), `exists` (a project note is there),
   * `no_project_vault`, `not_personal_note`.
   */
  async shareNote(personalNoteId: string): Promise<{ path: string; id: string }> {
    const c = this.need();
    const item = this.deps.store.items.get(personalNoteId);
    if (!item || item.kind !== 'note' || !item.path || !item.id.startsWith(this.deps.personal.idPrefix)) {
      throw new MemoryError('E_REFUSED', 'only a personal vault note can be shared', { reason: 'not_personal_note' });
    }
    if (item.secret || item.tags.includes('contains-secrets')) {
      throw new MemoryError('E_REFUSED', 'this note is tagged contains-secrets and is not shared; remove the secret and the tag first', { reason: 'secret' });
    }
    const from = resolveInVault(this.deps.personalDir, item.path);
    const masked = maskOrWithhold(await fsp.readFile(from, 'utf8'));
    if (!masked.ok) throw new MemoryError('E_REFUSED', 'the note could not be checked for secrets; not shared', { reason: 'mask' });
    const target = await this.writeNew(c.dir, item.path, masked.text);
    await fsp.unlink(from);
    await this.deps.personal.syncFile(item.path);
    c.facts = await this.readFacts(c);
    this.watchVault(c);
    const id = await c.index.syncFile(item.path);
    await this.deps.afterWrite();
    this.deps.logger.info('project.share', { masked: masked.count });
    this.changeEmitter.fire({ ids: [id ?? c.index.noteId(item.path)], reason: 'sync' });
    return { path: target, id: id ?? c.index.noteId(item.path) };
  }

  /** "Make Personal": moves a project note back into the personal vault (same relative path). E_REFUSED `exists`. */
  async makePersonal(projectNoteId: string): Promise<{ path: string; id: string }> {
    const c = this.need();
    const item = this.deps.store.items.get(projectNoteId);
    if (!item || !item.path || !item.id.startsWith(c.index.idPrefix)) {
      throw new MemoryError('E_REFUSED', 'not a note of the attached project vault', { reason: 'not_project_note' });
    }
    const from = resolveInVault(c.dir, item.path);
    const masked = maskOrWithhold(await fsp.readFile(from, 'utf8'));
    if (!masked.ok) throw new MemoryError('E_REFUSED', 'the note could not be checked for secrets', { reason: 'mask' });
    const target = await this.writeNew(this.deps.personalDir, item.path, masked.text);
    await fsp.unlink(from);
    await c.index.syncFile(item.path);
    const id = (await this.deps.personal.syncFile(item.path)) ?? this.deps.personal.noteId(item.path);
    await this.deps.afterWrite();
    this.changeEmitter.fire({ ids: [projectNoteId], reason: 'sync' });
    return { path: target, id };
  }

  override dispose(): void {
    this.detach(true);
    super.dispose();
  }

  // ---------------------------------------------------------------------------------------------

  private need(): Attached {
    if (!this.cur) throw new MemoryError('E_REFUSED', 'no project vault is attached', { reason: 'no_project_vault' });
    return this.cur;
  }

  private async writeNew(dir: string, rel: string, text: string): Promise<string> {
    const abs = resolveInVault(dir, rel);
    if (existsSync(abs)) throw new MemoryError('E_REFUSED', 'a note with this path already exists there', { reason: 'exists' });
    await fsp.mkdir(path.dirname(abs), { recursive: true });
    await replaceNoteFile(abs, text);
    return abs;
  }

  /** Watches the vault folder once it exists (attach may come before the first note is shared or pulled). */
  private watchVault(c: Attached): void {
    if (!c.watching || c.watcher || this.cur !== c || !existsSync(c.dir)) return;
    try {
      c.watcher = new VaultWatcher(c.index, { logger: this.deps.logger, fullSyncAbove: BURST_PATHS, beforeSync: async () => { c.facts = await this.readFacts(c); } });
      c.watcher.onDidChange((e) => {
        void this.deps.afterWrite().then(() => this.changeEmitter.fire({ ids: e.ids, all: e.all, reason: 'watch' }));
      });
    } catch (e) {
      this.deps.logger.warn('project.watch_failed', { code: errorCode(e) });
    }
  }

  /**
   * Watches `.git` (HEAD, index: a commit, checkout or pull re-syncs — trust changes without file changes; a linked
   * worktree's `.git` is a file, not watched) and the agent files (re-loaded when edited).
   */
  private watchRepo(c: Attached): void {
    const root = c.opts.workspaceRoot;
    const whenCurrent = (fn: () => Promise<unknown>, event: string) => () => {
      if (this.cur === c) void fn().catch((e) => this.deps.logger.warn(event, { code: errorCode(e) }));
    };
    const reloadAgents = whenCurrent(async () => { await this.loadAgents(c); this.changeEmitter.fire({ ids: [], all: true, reason: 'sync' }); }, 'project.agent_reload_failed');
    const watches = [
      c.facts && isDir(path.join(c.facts.top, '.git'))
        ? watchNames(path.join(c.facts.top, '.git'), new Set(['HEAD', 'index']), GIT_SETTLE_MS, whenCurrent(() => this.sync(), 'project.git_sync_failed'))
        : undefined,
      watchNames(root, new Set(AGENT_FILES.filter((f) => !f.includes('/'))), GIT_SETTLE_MS, reloadAgents),
      isDir(path.join(root, '.github')) ? watchNames(path.join(root, '.github'), new Set(['copilot-instructions.md']), GIT_SETTLE_MS, reloadAgents) : undefined,
    ];
    for (const w of watches) if (w) c.repoWatches.push(w);
  }

  private async syncNow(c: Attached): Promise<VaultSyncReport> {
    c.facts = await this.readFacts(c);
    let report: VaultSyncReport;
    if (!existsSync(c.dir) || isEmptyDir(c.dir)) report = await this.purge(c);
    else report = await c.index.syncAll();
    if (!c.gitUnavailable) await refreshGitTrust(this.deps.store, c.index.idPrefix, c.dir, (abs, bytes) => this.gitTrust(c, abs, bytes));
    await this.loadAgents(c);
    await this.deps.afterWrite();
    c.lastSync = this.deps.clock.now();
    this.watchVault(c); // the folder may have arrived with this pull or checkout
    return report;
  }

  /** The folder is gone (a branch without it) while the workspace is there: its rows go too. */
  private async purge(c: Attached): Promise<VaultSyncReport> {
    c.watcher?.dispose(); // watched again when the folder comes back (watchVault after a sync)
    c.watcher = undefined;
    const ids = c.index.stamps().map((s) => s.id);
    if (ids.length) {
      await this.deps.store.transaction((tx) => { for (const id of ids) { tx.items.delete(id); tx.links.set(id, []); } });
      c.index.loadFromStore();
    }
    return { ...emptyReport(), removed: ids.length };
  }

  private async loadAgents(c: Attached): Promise<void> {
    c.agentFiles = await loadAgentFiles({
      store: this.deps.store, clock: this.deps.clock, logger: this.deps.logger, root: c.opts.workspaceRoot, projectId: c.opts.projectId,
      trustOf: (abs, bytes) => this.gitTrust(c, abs, bytes).base,
    });
  }

  /** Owner (the user's last commit, or uncommitted) or peer (a teammate's, or unknown author) for a file. */
  private gitTrust(c: Attached, abs: string, bytes: Uint8Array | undefined): { base: 'owner' | 'peer'; author?: string; uncommitted: boolean } {
    const f = c.facts;
    if (!f) return { base: 'peer', uncommitted: false };
    const key = path.relative(f.top, abs).split(path.sep).join('/');
    const indexed = f.indexed.get(key);
    const uncommitted = indexed === undefined || (bytes !== undefined && !sameBlob(indexed, bytes));
    const author = f.authors.get(key);
    const mine = uncommitted || (author !== undefined && author === f.userEmail);
    return { base: mine ? 'owner' : 'peer', author, uncommitted };
  }

  /**
   * The current git facts. When git cannot answer (another process — a hook started without git on its PATH — or a
   * timeout), the last facts stay and `c.gitUnavailable` says so: rows keep the authors a process that could read
   * git found (the trust refresh is skipped), and a note indexed meanwhile without facts counts as a teammate's.
   */
  private async readFacts(c: Attached): Promise<GitFacts | undefined> {
    const paths = [c.dir, ...AGENT_FILES.map((f) => path.join(c.opts.workspaceRoot, ...f.split('/')))];
    try {
      const facts = await readGitFacts(c.opts.workspaceRoot, paths, c.facts);
      c.gitUnavailable = false;
      return facts;
    } catch (e) {
      if (!c.gitUnavailable) this.deps.logger.warn('project.git_unavailable', { step: e instanceof GitUnavailableError ? e.step : 'unknown', failure: e instanceof GitUnavailableError ? e.failure : errorCode(e) });
      c.gitUnavailable = true;
      return c.facts;
    }
  }

  /** The gate's verdict, cached by content hash (a re-read of an unchanged note, a restamp, costs no gate run). */
  private readonly verdicts = new Map<string, ReturnType<typeof gate>>();
  private gateOf(hash: string, text: string): ReturnType<typeof gate> {
    const known = hash ? this.verdicts.get(hash) : undefined;
    if (known) return known;
    const v = gate(text);
    if (this.verdicts.size >= 50_000) this.verdicts.clear();
    if (hash) this.verdicts.set(hash, v);
    return v;
  }

  private decorate(c: Attached, input: ItemInput, parsed: ParsedNote): ItemInput {
    let bytes: Uint8Array | undefined;
    const abs = resolveInVault(c.dir, parsed.relPath, { allowHidden: true });
    try { bytes = readFileSync(abs); } catch { bytes = undefined; }
    const g = this.gitTrust(c, abs, bytes);
    const trust: Trust = lowerTrust(input.trust ?? 'owner', g.base);
    const text = gatedText(parsed);
    let flagged: ProjectNoteInfo['flagged'];
    if (bytes && CONFLICT.test(Buffer.from(bytes).toString('utf8'))) flagged = { verdict: 'conflict', detector: 'merge_conflict' };
    else {
      const v = this.gateOf(input.contentHash ?? '', text);
      if (v.verdict !== 'pass') flagged = { verdict: v.verdict, detector: v.detector ?? 'classifier' };
    }
    if (flagged) this.deps.logger.warn('project.flagged', { verdict: flagged.verdict, detector: flagged.detector });
    return {
      ...input,
      project: c.opts.projectId, projectType: null,
      trust: flagged ? 'quarantined' : trust, prevTrust: flagged ? trust : null,
      meta: { ...(input.meta ?? {}), projectVault: c.opts.projectId, fmTrust: input.trust ?? 'owner', gitTrust: g.base, author: g.author, uncommitted: g.uncommitted, flagged },
    };
  }
}

/**
 * `pv:<8 hex>/`: the hash covers the project id and the vault folder, so two clones or worktrees of one repository
 * open at once (same project id, one store) never share — and fight over — rows. Stable across rebuilds.
 */
export function projectIdPrefix(projectId: string, dir: string): string {
  let real = dir;
  try { real = realpathSync(dir); } catch { /* not created yet: the path as given (attach resolved the root) */ }
  return `${PROJECT_NOTE_PREFIX}${createHash('sha256').update(`${projectId}\0${real}`).digest('hex').slice(0, 8)}/`;
}

function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function isDir(p: string): boolean {
  try { return statSync(p).isDirectory(); } catch { return false; }
}

function isEmptyDir(dir: string): boolean {
  try { return statSync(dir).isDirectory() && readdirSync(dir).length === 0; } catch { return false; }
}

function emptyReport(): VaultSyncReport {
  return { scanned: 0, added: 0, updated: 0, removed: 0, problems: 0, skipped: 0, read: 0 };
}


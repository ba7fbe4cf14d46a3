// Typed getters for the `memory.*` settings (SPEC §10). The only place that reads getConfiguration:
// the engine receives plain EngineSettings. A value of the wrong type falls back to its default and is
// reported, so a typo in settings.json never breaks activation.
// Invariant (issue #12): a workspace never steers memory. Every setting is read with inspect() and only the
// user's own value (globalValue) or the default is taken — whatever scope package.json declares, so an old
// VS Code or a mis-declared setting cannot let `.vscode/settings.json` choose a model server, the vault or
// secret recall. The one exception is the project identity (projectId / projectType): a workspace may name
// it, but a value this workspace was never associated with waits for the person's confirmation (ProjectScope),
// and in Restricted Mode nothing is taken from the workspace at all.
import * as vscode from 'vscode';
import { DEFAULT_SETTINGS, type EmbedderDownload, type EngineSettings, type LocalModelSetting } from '../engine/settings';
import type { Logger } from '../engine/host';
import { MemoryError } from '../engine/errors';
import { cleanProjectId, projectIdOf } from '../hooks/projectId';

export const SECTION = 'memory';

/** EngineSettings field → setting key under `memory.` (package.json contributes the same keys). */
export const SETTING_KEYS: Readonly<Record<keyof EngineSettings, string>> = Object.freeze({
  enabled: 'enabled',
  embedderModel: 'embedder.model',
  embedderDownload: 'embedder.download',
  projectId: 'projectId',
  projectType: 'projectType',
  backgroundModel: 'backgroundModel',
  localModels: 'localModels',
  recallTopK: 'recall.topK',
  recallMinScore: 'recall.minScore',
  recallIncludeSecrets: 'recall.includeSecrets',
  indexBudgetChars: 'index.budgetChars',
  saveMinChars: 'save.minChars',
  saveFootnoteRatio: 'save.footnoteRatio',
  saveCodeRatio: 'save.codeRatio',
  saveDedupLookback: 'save.dedupLookback',
  saveDedupThreshold: 'save.dedupThreshold',
  captureEnabled: 'capture.enabled',
  captureMinUserChars: 'capture.minUserChars',
  captureMaxPerConversation: 'capture.maxPerConversation',
  captureMaxInputChars: 'capture.maxInputChars',
  l0Enabled: 'l0.enabled',
  l0CaptureToolResults: 'l0.captureToolResults',
  l0CaptureThinking: 'l0.captureThinking',
  l0ToolResultMaxBytes: 'l0.toolResultMaxBytes',
  healthEveryNTurns: 'health.everyNTurns',
  healthWarnBytes: 'health.warnBytes',
  healthCritBytes: 'health.critBytes',
  workingTtlHours: 'working.ttlHours',
  reflectionEnabled: 'reflection.enabled',
  reflectionHour: 'reflection.hour',
  consolidationNightly: 'consolidation.nightly',
  toolsMaxCallsPerTurn: 'tools.maxCallsPerTurn',
});

const DOWNLOAD_MODES: readonly EmbedderDownload[] = ['ask', 'always', 'never'];

function isLocalModel(v: unknown): v is LocalModelSetting {
  if (typeof v !== 'object' || v === null) return false;
  const m = v as Record<string, unknown>;
  return typeof m.name === 'string' && typeof m.baseUrl === 'string' && typeof m.model === 'string'
    && (m.contextWindow === undefined || (typeof m.contextWindow === 'number' && m.contextWindow > 0));
}

function valid(field: keyof EngineSettings, value: unknown): boolean {
  const def = DEFAULT_SETTINGS[field];
  if (field === 'embedderDownload') return DOWNLOAD_MODES.includes(value as EmbedderDownload);
  if (field === 'localModels') return Array.isArray(value) && value.every(isLocalModel);
  if (typeof def === 'number') return typeof value === 'number' && Number.isFinite(value) && value >= 0;
  return typeof value === typeof def;
}

/** The user's own value of `memory.<key>`: user settings or the default, never a workspace's value. */
export function userValue<T>(cfg: vscode.WorkspaceConfiguration, key: string): T | undefined {
  const i = cfg.inspect<T>(key);
  if (!i) return undefined;
  return i.globalValue !== undefined ? i.globalValue : i.defaultValue;
}

/** A workspace's value of `memory.<key>` (folder before workspace), or undefined. */
function workspaceValue<T>(cfg: vscode.WorkspaceConfiguration, key: string): T | undefined {
  const i = cfg.inspect<T>(key);
  return i?.workspaceFolderValue !== undefined ? i.workspaceFolderValue : i?.workspaceValue;
}

/** Reads every engine setting from the user's settings only; invalid values fall back to the default and are logged by key only. */
export function readEngineSettings(logger?: Logger): EngineSettings {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const out = { ...DEFAULT_SETTINGS } as Record<keyof EngineSettings, unknown>;
  for (const field of Object.keys(SETTING_KEYS) as (keyof EngineSettings)[]) {
    const key = SETTING_KEYS[field];
    const value = userValue<unknown>(cfg, key);
    if (value === undefined) continue;
    if (valid(field, value)) out[field] = value;
    else logger?.warn('settings.invalid', { key: `${SECTION}.${key}`, fallback: 'default' });
  }
  return out as unknown as EngineSettings;
}

/** `memory.vaultPath` from the user's settings; empty means `<global storage>/vault` (SPEC §10). */
export function readVaultPath(globalStorage: vscode.Uri): string {
  const v = userValue<unknown>(vscode.workspace.getConfiguration(SECTION), 'vaultPath');
  const configured = typeof v === 'string' ? v.trim() : '';
  return configured || vscode.Uri.joinPath(globalStorage, 'vault').fsPath;
}

/** The user's own `memory.localModels` entries (what Add/Remove Local Model Server edit). */
export function readUserLocalModels(): LocalModelSetting[] {
  const v = userValue<unknown>(vscode.workspace.getConfiguration(SECTION), 'localModels');
  return Array.isArray(v) ? v.filter(isLocalModel) : [];
}

/** Fires when any `memory.*` setting changes, so settings apply without a reload (R-UI-8). */
export function onDidChangeSettings(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) listener();
  });
}

/** The project a chat turn belongs to. */
export interface ProjectContext {
  project?: string;
  projectType?: string;
}

/** What the status shows about the project identity (no memory text). */
export interface ProjectStatus extends ProjectContext {
  /** Where the project id came from. */
  source: 'workspace' | 'user' | 'derived' | 'none';
  /** Workspace-provided values not in use until the person confirms them. */
  pending?: { projectId?: string; projectType?: string };
  /** Restricted Mode: nothing is taken from the workspace. */
  restricted: boolean;
}

export { cleanProjectId };

const ASSOCIATIONS_KEY = 'memory.projectAssociations';
/** 2 s: reading `.git/config` on a slow remote file system must not hold memory's start-up for long. */
const ORIGIN_READ_TIMEOUT_MS = 2_000;

type Associations = Record<string, { ids?: string[]; types?: string[] }>;

/**
 * The project identity of this window (SPEC §10, issue #12). Empty `memory.projectId` = derived from the first
 * workspace folder: its name plus a short hash of what identifies the repository (the git `origin` URL, read
 * through `vscode.workspace.fs` so it works for remote and virtual folders; else the folder's URI) — every clone
 * of one repository shares its memory, two folders that merely share a name do not.
 * A workspace-provided `memory.projectId` / `memory.projectType` is used only when it is the derived id or the
 * person confirmed it for this workspace once (stored in global state); until then it is pending and shown in
 * status. In Restricted Mode the workspace provides nothing: no settings, and no `.git/config` (a repository
 * could name another repository's origin to read that project's memory).
 */
export class ProjectScope implements vscode.Disposable {
  private readonly derivedIds = new Map<string, string>();
  private readonly prompted = new Set<string>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly memento: vscode.Memento, private readonly logger: Logger, private readonly trusted: () => boolean = () => vscode.workspace.isTrusted) {}

  /** Resolves the derived id of the first folder (reads its git origin); call at start and when folders or trust change. */
  async refresh(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) return;
    const key = this.derivedKey(folder.uri);
    if (this.derivedIds.has(key)) return;
    const origin = this.trusted() ? await withTimeout(gitOriginOf(folder.uri), ORIGIN_READ_TIMEOUT_MS) : undefined;
    this.derivedIds.set(key, derivedProjectId(folder.name, origin ?? folder.uri.toString()));
    this.logger.info('project.derived', { origin: !!origin, restricted: !this.trusted() });
    this.changed.fire();
  }

  /** The project now (ids only). */
  current(): ProjectContext {
    const { project, projectType } = this.status();
    return { project, projectType };
  }

  status(): ProjectStatus {
    const restricted = !this.trusted();
    const folder = vscode.workspace.workspaceFolders?.[0];
    const cfg = vscode.workspace.getConfiguration(SECTION);
    const derived = folder ? this.derivedId(folder) : undefined;
    const userId = cleanProjectId(stringOr(userValue(cfg, 'projectId')));
    const userType = cleanProjectId(stringOr(userValue(cfg, 'projectType')));
    const wsId = restricted || !folder ? '' : cleanProjectId(stringOr(workspaceValue(cfg, 'projectId')));
    const wsType = restricted || !folder ? '' : cleanProjectId(stringOr(workspaceValue(cfg, 'projectType')));
    const assoc = this.associations()[this.workspaceKey() ?? ''] ?? {};
    const pending: NonNullable<ProjectStatus['pending']> = {};
    let project: string | undefined;
    let source: ProjectStatus['source'] = 'none';
    // The derived id, the user's own id or one confirmed here: nothing to ask.
    if (wsId && (wsId === derived || wsId === userId || assoc.ids?.includes(wsId))) { project = wsId; source = 'workspace'; } else if (wsId) pending.projectId = wsId;
    if (!project && userId) { project = userId; source = 'user'; }
    if (!project && derived) { project = derived; source = 'derived'; }
    let projectType: string | undefined;
    if (wsType && (wsType === userType || assoc.types?.includes(wsType))) projectType = wsType;
    else if (wsType) pending.projectType = wsType;
    if (!projectType && userType) projectType = userType;
    const out: ProjectStatus = { project, projectType, source, restricted };
    if (pending.projectId || pending.projectType) {
      out.pending = pending;
      this.ask(pending);
    }
    return out;
  }

  /** Records the pending workspace-provided id/type as associated with this workspace (the person confirmed). */
  async confirm(): Promise<ProjectStatus> {
    const s = this.status();
    const key = this.workspaceKey();
    if (!s.pending || !key) return s;
    if (s.restricted) throw new MemoryError('E_REFUSED', 'Restricted Mode: trust this workspace before using its project settings');
    const all = this.associations();
    const entry = all[key] ?? {};
    if (s.pending.projectId) entry.ids = [...new Set([...(entry.ids ?? []), s.pending.projectId])];
    if (s.pending.projectType) entry.types = [...new Set([...(entry.types ?? []), s.pending.projectType])];
    await this.memento.update(ASSOCIATIONS_KEY, { ...all, [key]: entry });
    this.logger.info('project.confirmed', { id: !!s.pending.projectId, type: !!s.pending.projectType });
    this.changed.fire();
    return this.status();
  }

  /** Forgets every workspace-provided id/type confirmed for this workspace (it is pending again). */
  async revoke(): Promise<ProjectStatus> {
    const key = this.workspaceKey();
    if (key) {
      const all = { ...this.associations() };
      delete all[key];
      await this.memento.update(ASSOCIATIONS_KEY, all);
      this.logger.info('project.revoked', {});
      this.changed.fire();
    }
    return this.status();
  }

  /** Trust or folders changed: derive again (the origin may now be readable, or no longer). */
  reset(): void {
    this.derivedIds.clear();
    void this.refresh();
    this.changed.fire();
  }

  dispose(): void { this.changed.dispose(); }

  private derivedKey(uri: vscode.Uri): string { return `${this.trusted() ? 't' : 'r'}:${uri.toString()}`; }

  /** Resolved by refresh(); before that (or if it failed) the folder's URI identifies the project. */
  private derivedId(folder: vscode.WorkspaceFolder): string {
    return this.derivedIds.get(this.derivedKey(folder.uri)) ?? derivedProjectId(folder.name, folder.uri.toString());
  }

  private workspaceKey(): string | undefined {
    return vscode.workspace.workspaceFile?.toString() ?? vscode.workspace.workspaceFolders?.[0]?.uri.toString();
  }

  private associations(): Associations {
    const v = this.memento.get<unknown>(ASSOCIATIONS_KEY);
    return v && typeof v === 'object' ? v as Associations : {};
  }

  /** Asks once per window and value; the answer is not awaited (status shows the pending value meanwhile). */
  private ask(pending: NonNullable<ProjectStatus['pending']>): void {
    const what = [pending.projectId && `project "${pending.projectId}"`, pending.projectType && `project type "${pending.projectType}"`].filter(Boolean).join(' and ');
    if (this.prompted.has(what)) return;
    this.prompted.add(what);
    this.logger.warn('project.workspace_unconfirmed', { id: !!pending.projectId, type: !!pending.projectType });
    void vscode.window.showWarningMessage(
      `This workspace's settings ask Memory to use ${what}, which this workspace has never used. Memory of that project would be recalled here. Until you confirm, Memory keeps this workspace's own project.`,
      'Use It', 'Not Now',
    ).then((pick) => { if (pick === 'Use It') void this.confirm().catch(() => undefined); });
  }
}

function stringOr(v: unknown): string { return typeof v === 'string' ? v : ''; }

/**
 * `<folder name>-<6 hex>`; the hash covers what identifies the folder (its origin URL, else its URI) —
 * hooks/projectId.ts, shared with the agent hooks, which derive the same id from their cwd.
 */
export const derivedProjectId = projectIdOf;

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<undefined>((r) => { timer = setTimeout(() => r(undefined), ms); })]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** 64 KB: a git config larger than this is not a repository's ordinary config. */
const MAX_GIT_CONFIG_BYTES = 64 * 1024;

async function readSmall(uri: vscode.Uri): Promise<string | undefined> {
  try {
    const st = await vscode.workspace.fs.stat(uri);
    if (st.size > MAX_GIT_CONFIG_BYTES) return undefined;
    return new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

/**
 * The normalised `origin` URL of the git repository at `folder` (host/path, no scheme, user or `.git`), read
 * through vscode.workspace.fs: `.git/config`, or for a worktree / submodule (`.git` is a file `gitdir: …`) the
 * config of the repository it points to. Undefined when the folder is not a repository or has no origin.
 */
export async function gitOriginOf(folder: vscode.Uri): Promise<string | undefined> {
  const dotGit = vscode.Uri.joinPath(folder, '.git');
  let configs = [vscode.Uri.joinPath(dotGit, 'config')];
  try {
    const st = await vscode.workspace.fs.stat(dotGit);
    if (st.type & vscode.FileType.File) {
      const pointer = /^gitdir:\s*(.+)$/m.exec(await readSmall(dotGit) ?? '')?.[1]?.trim();
      if (!pointer) return undefined;
      const gitDir = pointer.startsWith('/') ? folder.with({ path: pointer }) : vscode.Uri.joinPath(folder, pointer);
      const common = (await readSmall(vscode.Uri.joinPath(gitDir, 'commondir')))?.trim();
      const commonDir = common ? (common.startsWith('/') ? folder.with({ path: common }) : vscode.Uri.joinPath(gitDir, common)) : gitDir;
      configs = [vscode.Uri.joinPath(commonDir, 'config'), vscode.Uri.joinPath(gitDir, 'config')];
    }
  } catch {
    return undefined;
  }
  for (const uri of configs) {
    const text = await readSmall(uri);
    const origin = text ? /\[remote "origin"\][^[]*?url\s*=\s*(\S+)/.exec(text)?.[1] : undefined;
    if (origin) return origin.replace(/\.git$/, '').replace(/^[a-z]+:\/\/([^@/]+@)?/i, '').replace(/^[^@]+@([^:]+):/, '$1/');
  }
  return undefined;
}

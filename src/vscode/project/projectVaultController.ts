// The project vault in VS Code (issue #15): attaches the repository's `.memory/` folder to the engine for the
// window's project, keeps it attached across engine reopens and project changes, and says why when it is not
// (Restricted Mode, no folder, a remote folder, switched off). The engine watches what the project vault depends on
// itself — the vault folder (a pull or branch switch = one re-sync pass), `.git` (HEAD, index: commits and checkouts
// change trust) and the agent files — so this controller only (re)attaches and reports. Flagged notes (poison gate, merge conflict) get a warning diagnostic on their file.
// Invariants: nothing from the workspace is read in Restricted Mode; every failure is logged by code and shown in
// status, never thrown at the caller; logs carry counts and codes, never note text or paths.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MemoryEngine, ProjectNoteInfo, ProjectVaultInfo } from '../../engine/engine';
import { errorCode } from '../../engine/errors';
import type { Logger } from '../../engine/host';
import { DEFAULT_PROJECT_FOLDER } from '../../engine/project/projectVault';
import type { ProjectContext } from '../config';
import { userValue } from '../config';
import type { EngineHost } from '../engineHost';

export const PROJECT_VAULT_CONTEXT_KEY = 'memory.projectVaultAttached';

/** Why the project vault is (not) attached — status, dashboard and tree show it. */
export type ProjectVaultState =
  | { state: 'attached'; info: ProjectVaultInfo }
  | { state: 'off'; reason: 'restricted' | 'disabled' | 'no-folder' | 'no-project' | 'remote' | 'engine' }
  | { state: 'failed'; code: string };

/** The user's project-vault settings (user settings only: a workspace cannot set them). */
export interface ProjectVaultSettings { enabled: boolean; folder: string; proposeFor: string[] }

export function readProjectVaultSettings(): ProjectVaultSettings {
  const cfg = vscode.workspace.getConfiguration('memory');
  const enabled = userValue<unknown>(cfg, 'projectVault.enabled');
  const folder = userValue<unknown>(cfg, 'projectVault.folder');
  const propose = userValue<unknown>(cfg, 'projectVault.proposeNotes');
  return {
    enabled: enabled !== false,
    folder: typeof folder === 'string' && folder.trim() ? folder.trim() : DEFAULT_PROJECT_FOLDER,
    proposeFor: Array.isArray(propose) ? propose.filter((p): p is string => typeof p === 'string') : [],
  };
}

/** One sentence for status lines (counts only). */
export function describeProjectVault(s: ProjectVaultState): string {
  if (s.state === 'failed') return `project vault unavailable (${s.code})`;
  if (s.state === 'off') {
    switch (s.reason) {
      case 'restricted': return 'project vault not loaded (Restricted Mode: trust this workspace to use the team\'s notes)';
      case 'disabled': return 'project vault off (memory.projectVault.enabled)';
      case 'remote': return 'project vault not available for a remote or virtual workspace folder';
      case 'no-project': return 'no project vault (no project for this window)';
      case 'engine': return 'project vault waiting for the store';
      default: return 'no project vault (open a folder)';
    }
  }
  const i = s.info;
  const folder = path.basename(i.dir);
  const parts = [`${i.notes} notes`];
  if (i.peer) parts.push(`${i.peer} from teammates`);
  if (i.flagged) parts.push(`${i.flagged} flagged`);
  if (i.agentFiles.length) parts.push(`agent files ${i.agentFiles.join(', ')}`);
  if (i.proposeNotes) parts.push('proposing notes');
  if (i.gitUnavailable) parts.push('git unavailable: authors not read, new notes count as teammates\'');
  else if (!i.git) parts.push('not a git repository: every note counts as a teammate\'s');
  return `project vault ${folder}/: ${parts.join(', ')}`;
}

export interface ProjectVaultDeps {
  host: EngineHost;
  logger: Logger;
  project: () => ProjectContext;
  trusted?: () => boolean;
}

export class ProjectVaultController implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ProjectVaultState>();
  /** Fires after every (re)attach, detach, sync or watcher change of the project vault. */
  readonly onDidChange = this.changed.event;
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('memory-project-vault');
  private stateValue: ProjectVaultState = { state: 'off', reason: 'engine' };
  private engineSub: { dispose(): void } | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  /** What the engine is attached with (engine, root, project, folder, propose): an unchanged refresh does not re-attach. */
  private attachedWith: { engine: MemoryEngine; key: string } | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly deps: ProjectVaultDeps) {
    this.subs.push(deps.host.onDidOpen(() => void this.refresh()));
  }

  private get trusted(): boolean { return (this.deps.trusted ?? (() => vscode.workspace.isTrusted))(); }

  /** The state as of the last attach, sync or engine change event (kept current by those events, not recomputed). */
  state(): ProjectVaultState {
    return this.stateValue;
  }

  /** Project notes of the attached vault ([] when none). */
  notes(): ProjectNoteInfo[] {
    return this.stateValue.state === 'attached' ? this.deps.host.current?.project.notes() ?? [] : [];
  }

  /** Attaches, re-attaches or detaches as trust, folders, project and settings say; one at a time. */
  refresh(): Promise<ProjectVaultState> {
    const go = () => this.refreshNow();
    const run = this.chain.then(go, go);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async refreshNow(): Promise<ProjectVaultState> {
    const engine = this.deps.host.current;
    const settings = readProjectVaultSettings();
    const folder = vscode.workspace.workspaceFolders?.[0];
    const projectId = this.deps.project().project;
    let next: ProjectVaultState | undefined;
    if (!engine) next = { state: 'off', reason: 'engine' };
    else if (!this.trusted) next = { state: 'off', reason: 'restricted' };
    else if (!settings.enabled) next = { state: 'off', reason: 'disabled' };
    else if (!folder) next = { state: 'off', reason: 'no-folder' };
    else if (folder.uri.scheme !== 'file') next = { state: 'off', reason: 'remote' };
    else if (!projectId) next = { state: 'off', reason: 'no-project' };
    if (next || !engine || !folder || !projectId) {
      if (engine?.project.attached) engine.project.detach();
      this.attachedWith = undefined;
      return this.set(next ?? { state: 'off', reason: 'engine' });
    }
    const proposeNotes = settings.proposeFor.includes(projectId);
    const key = JSON.stringify([folder.uri.fsPath, projectId, settings.folder, proposeNotes]);
    // Re-attaching restarts the engine's watcher: only when something it depends on changed (an unrelated
    // setting or a project event must not open a window in which a pull goes unnoticed).
    const current = engine.project.attached && engine.project.info();
    if (current && this.attachedWith?.engine === engine && this.attachedWith.key === key) return this.set({ state: 'attached', info: current });
    try {
      const report = await engine.project.attach({ workspaceRoot: folder.uri.fsPath, projectId, folder: settings.folder, proposeNotes });
      this.attachedWith = { engine, key };
      this.bindEngine(engine);
      this.deps.logger.info('project_vault.attached', { notes: report.scanned, added: report.added, removed: report.removed, git: report.git, agentFiles: report.agentFiles.length });
      const info = engine.project.info();
      return this.set(info ? { state: 'attached', info } : { state: 'off', reason: 'engine' });
    } catch (e) {
      const code = errorCode(e, 'E_INTERNAL');
      this.attachedWith = undefined;
      this.deps.logger.warn('project_vault.attach_failed', { code });
      return this.set({ state: 'failed', code });
    }
  }

  /** One re-sync pass (the command; a pull the watcher missed). */
  async sync(): Promise<ProjectVaultState> {
    const engine = this.deps.host.current;
    if (this.stateValue.state !== 'attached' || !engine) return this.refresh();
    await engine.project.sync();
    return this.set({ state: 'attached', info: engine.project.info()! });
  }

  private bindEngine(engine: MemoryEngine): void {
    this.engineSub?.dispose();
    this.engineSub = engine.project.onDidChange((e) => {
      if (e.reason === 'attach' || e.reason === 'detach') return; // refreshNow reports those itself
      const info = engine.project.info();
      if (info) this.set({ state: 'attached', info });
    });
  }

  private set(s: ProjectVaultState): ProjectVaultState {
    this.stateValue = s;
    void vscode.commands.executeCommand('setContext', PROJECT_VAULT_CONTEXT_KEY, s.state === 'attached');
    this.updateDiagnostics(s.state === 'attached' ? s.info : undefined);
    this.changed.fire(s);
    return s;
  }

  /** A warning on each flagged note's file: why it is never recalled. */
  private updateDiagnostics(info: ProjectVaultInfo | undefined): void {
    this.diagnostics.clear();
    if (!info) return;
    for (const n of this.notes()) {
      if (!n.flagged) continue;
      const uri = vscode.Uri.file(path.join(info.dir, ...n.relPath.split('/')));
      const d = new vscode.Diagnostic(new vscode.Range(0, 0, 0, 0), flaggedMessage(n.flagged), vscode.DiagnosticSeverity.Warning);
      d.source = 'Memory';
      d.code = n.flagged.detector;
      this.diagnostics.set(uri, [d]);
    }
  }

  dispose(): void {
    this.engineSub?.dispose();
    for (const s of this.subs) s.dispose();
    this.diagnostics.dispose();
    this.changed.dispose();
  }
}

/** Why a project note is never recalled (tree tooltip, diagnostic). */
export function flaggedMessage(f: NonNullable<ProjectNoteInfo['flagged']>): string {
  if (f.verdict === 'conflict') return 'Memory: this project note has merge-conflict markers; it is not recalled until the conflict is resolved.';
  return `Memory: the poison gate flagged this project note (${f.verdict}, detector ${f.detector}); it is never recalled. Review it before it is committed or shared.`;
}

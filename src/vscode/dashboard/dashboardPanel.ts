// The dashboard webview panel (R-UI-5): one per window; the webview posts `ready`, then asks for what
// it shows (typed requests from src/protocol/dashboard.ts), and the host answers from DashboardData.
// Invariants: strict CSP with a fresh nonce per page, resources only from dist/webview, quarantined
// items only as counts, secret items only with memory.recall.includeSecrets, no memory text in logs.
// The review queue's actions (keep, edit, forget, promote) are typed requests too; a forget always asks
// in a modal first (the webview cannot skip it).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeForgetPlan, type MemoryEngine } from '../../engine/engine';
import { errorCode, MemoryError } from '../../engine/errors';
import { Disposable, type Logger } from '../../engine/host';
import { DashboardData } from './dashboardData';
import type { EngineSettings } from '../../engine/settings';
import { kindOfId } from '../../engine/types';
import {
  isDashboardToHost, REVIEW_ACTIONS, type DashboardApi, type DashboardMethod, type DashboardRequest, type DashboardToWebview,
  type AgentRowView, type ProjectVaultView, type ReviewAction, type ReviewActionResult,
} from '../../protocol/dashboard';
import type { EngineHost } from '../engineHost';
import { dashboardHtml, makeNonce } from './dashboardHtml';
import { referenceUri } from '../commands/memoryDocuments';
import { describeProjectVault, type ProjectVaultState } from '../project/projectVaultController';

export const OPEN_DASHBOARD_COMMAND = 'memory.openDashboard';
/** 500 ms: a burst of writes (a flush) refreshes the dashboard once. */
const CHANGE_DEBOUNCE_MS = 500;

export interface DashboardDeps {
  host: EngineHost;
  settings: () => EngineSettings;
  logger: Logger;
  extensionUri: vscode.Uri;
  /** Connected agents and their last recorded turns (Memory: Connect Agents). */
  agents?: () => AgentRowView[];
  /** The repository's project vault: attached with its counts, or why not (issue #15). */
  projectVault?: () => ProjectVaultState;
}

export class DashboardPanel extends Disposable implements vscode.Disposable {
  static readonly viewType = 'memory.dashboard';
  private static instance: DashboardPanel | undefined;

  /** Test hook: the last message posted to the webview, and how many were posted. */
  lastMessage: DashboardToWebview | undefined;
  posted = 0;
  /** Test hook: true once the webview said `ready`. */
  ready = false;
  /** Test hook: the last response per method, and the tabs the webview has finished drawing. */
  readonly responses = new Map<DashboardMethod, DashboardToWebview>();
  readonly rendered = new Set<string>();
  private readonly renderEmitter = this._register(new vscode.EventEmitter<string>());
  /** Fires when the webview reports a tab drawn (screenshots wait on this). */
  readonly onDidRender = this.renderEmitter.event;
  private readonly postEmitter = this._register(new vscode.EventEmitter<DashboardToWebview>());
  /** Fires after each message the host posts (tests wait on this instead of sleeping). */
  readonly onDidPost = this.postEmitter.event;
  private changeTimer: NodeJS.Timeout | undefined;

  static get current(): DashboardPanel | undefined { return DashboardPanel.instance; }

  /** Reveals the open dashboard, or opens one. */
  static show(deps: DashboardDeps): DashboardPanel {
    if (DashboardPanel.instance) {
      DashboardPanel.instance.panel.reveal();
      return DashboardPanel.instance;
    }
    const panel = vscode.window.createWebviewPanel(DashboardPanel.viewType, 'Memory Dashboard', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(deps.extensionUri, 'dist', 'webview')],
    });
    DashboardPanel.instance = new DashboardPanel(panel, deps);
    return DashboardPanel.instance;
  }

  private constructor(readonly panel: vscode.WebviewPanel, private readonly deps: DashboardDeps) {
    super();
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'memory.svg');
    const dist = vscode.Uri.joinPath(deps.extensionUri, 'dist', 'webview');
    panel.webview.html = dashboardHtml({
      cspSource: panel.webview.cspSource, nonce: makeNonce(),
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'main.js')).toString(),
      styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'main.css')).toString(),
    });
    this._register(panel.onDidDispose(() => this.dispose()));
    this._register(panel.webview.onDidReceiveMessage((m: unknown) => { void this.onMessage(m); }));
    this._register(deps.host.onDidChangeItems(() => {
      if (this.changeTimer || !this.ready) return;
      this.changeTimer = setTimeout(() => { this.changeTimer = undefined; void this.post({ type: 'changed' }); }, CHANGE_DEBOUNCE_MS);
    }));
  }

  private async onMessage(m: unknown): Promise<void> {
    if (!isDashboardToHost(m)) {
      this.deps.logger.warn('dashboard.bad_message', {});
      return;
    }
    if (m.type === 'rendered') {
      this.rendered.add(m.tab);
      this.renderEmitter.fire(m.tab);
      return;
    }
    if (m.type === 'ready') {
      this.ready = true;
      await this.post({ type: 'init', version: 1 });
      return;
    }
    await this.answer(m);
  }

  private async answer(req: DashboardRequest): Promise<void> {
    const started = Date.now();
    try {
      const engine = await this.deps.host.get();
      const result = await this.run(engine, req.method, (req.params ?? {}) as Record<string, unknown>);
      await this.post({ type: 'response', id: req.id, method: req.method, ok: true, result } as DashboardToWebview);
      this.deps.logger.info('dashboard.request', { method: req.method, ms: Date.now() - started });
    } catch (e) {
      const code = errorCode(e);
      this.deps.logger.warn('dashboard.request_failed', { method: req.method, code });
      const message = code === 'E_NOT_FOUND' ? 'No such memory (or it is hidden).' : code === 'E_REFUSED'
        ? 'Hidden: tagged contains-secrets (see memory.recall.includeSecrets).' : `The request failed (${code}).`;
      await this.post({ type: 'response', id: req.id, method: req.method, ok: false, error: { code, message } });
    }
  }

  private run(engine: MemoryEngine, method: DashboardMethod, p: Record<string, unknown>): Promise<DashboardApi[DashboardMethod][1]> | DashboardApi[DashboardMethod][1] {
    const data = new DashboardData(engine, () => ({ includeSecrets: this.deps.settings().recallIncludeSecrets }));
    const pageReq = { offset: typeof p.offset === 'number' ? p.offset : undefined, limit: typeof p.limit === 'number' ? p.limit : undefined };
    switch (method) {
      case 'getOverview': return data.overview();
      case 'getEngine': return data.engineCard();
      case 'getAgents': return this.deps.agents?.() ?? [];
      case 'getProjectVault': return projectVaultView(this.deps.projectVault?.(), engine);
      case 'getWorking': return data.working(pageReq);
      case 'getEpisodic': return data.episodic(pageReq);
      case 'getItem': return data.item(String(p.id ?? ''));
      case 'getNotes': return data.notes(pageReq);
      case 'getNote': return data.note(String(p.id ?? ''));
      case 'getArchive': return data.archive(pageReq);
      case 'getGraph': return data.graph(typeof p.limit === 'number' ? p.limit : undefined);
      case 'getTags': return data.tags();
      case 'getReview': return data.review();
      case 'getQuarantines': return data.quarantines();
      case 'reviewAction': return this.reviewAction(engine, p);
    }
  }

  /** Review queue actions (R-MAINT-2), typed requests from the webview; the engine does the work. */
  private async reviewAction(engine: MemoryEngine, p: Record<string, unknown>): Promise<ReviewActionResult> {
    const id = typeof p.id === 'string' ? p.id : '';
    const action = p.action as ReviewAction;
    if (!id || !kindOfId(id)) throw new MemoryError('E_BAD_ID', 'unknown memory id');
    if (!REVIEW_ACTIONS.includes(action)) throw new MemoryError('E_BAD_INPUT', 'unknown review action');
    const item = engine.get(id);
    if (!item) throw new MemoryError('E_NOT_FOUND', 'no such memory');
    this.deps.logger.info('dashboard.review_action', { action, id });
    switch (action) {
      case 'keep': {
        if (item.kind === 'note' && item.path) {
          await engine.setPinned(id, true);
        }
        await engine.reviewKeep(id);
        return { id, action, done: true, message: `Kept ${id}: pinned, its decay reset; it left the queue.` };
      }
      case 'promote': {
        const note = await engine.promoteNow(id);
        return { id, action, done: true, message: `Promoted ${id} to the vault note ${note.id}.`, noteId: note.id };
      }
      case 'edit': {
        // A note opens as itself; any other memory becomes a vault note first (promote), then opens for editing.
        // (a project note opens in the repository's project vault, issue #15).
        const file = item.kind === 'note' && item.path ? referenceUri(engine, id) : undefined;
        if (file && file.scheme !== 'file') throw new MemoryError('E_NOT_FOUND', 'this project note\'s vault is not open in this window');
        const note = file ? { id, path: file.fsPath } : await engine.promoteNow(id);
        await vscode.window.showTextDocument(vscode.Uri.file(note.path), { preview: false });
        return { id, action, done: true, message: note.id === id ? `Opened ${id} for editing.` : `${id} is now the vault note ${note.id}, opened for editing.`, noteId: note.id };
      }
      case 'forget': {
        // The confirmation lists every place the forget reaches; nothing changes without it.
        const plan = await engine.forgetPreview(id);
        const pick = await vscode.window.showWarningMessage(`Forget ${id}?`, {
          modal: true, detail: `Removes:\n${describeForgetPlan(plan).map((l) => `• ${l}`).join('\n')}\n\nThis cannot be undone.`,
        }, 'Forget');
        if (pick !== 'Forget') return { id, action, done: false, message: `Nothing was forgotten (${id} is kept).` };
        const r = await engine.forget(id, 'dashboard');
        return { id, action, done: true, message: `Forgot ${id}${r.removed.length > 1 ? ` and ${r.removed.length - 1} derived item(s)` : ''}.` };
      }
    }
  }

  /** Handles one message exactly as if the webview had posted it (typed requests; tests drive actions through here). */
  receive(m: unknown): Promise<void> {
    return this.onMessage(m);
  }

  private async post(m: DashboardToWebview): Promise<void> {
    if (this.isDisposed) return;
    this.lastMessage = m;
    this.posted++;
    if (m.type === 'response') this.responses.set(m.method, m);
    await this.panel.webview.postMessage(m);
    this.postEmitter.fire(m);
  }

  override dispose(): void {
    if (this.isDisposed) return;
    if (DashboardPanel.instance === this) DashboardPanel.instance = undefined;
    if (this.changeTimer) clearTimeout(this.changeTimer);
    super.dispose(); // the subscriptions, then the emitters (reverse order of registration)
    this.panel.dispose();
  }
}

export function registerDashboard(context: vscode.ExtensionContext, deps: Omit<DashboardDeps, 'extensionUri'>): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(OPEN_DASHBOARD_COMMAND, () => DashboardPanel.show({ ...deps, extensionUri: context.extensionUri })),
    { dispose: () => DashboardPanel.current?.dispose() },
  );
}

/** The project vault card's data: counts and flagged paths from the engine, the sentence from the controller. */
export function projectVaultView(s: ProjectVaultState | undefined, engine: MemoryEngine): ProjectVaultView {
  if (!s) return { state: 'off', sentence: 'no project vault' };
  if (s.state !== 'attached') return { state: s.state, sentence: describeProjectVault(s) };
  const i = s.info;
  return {
    state: 'attached', sentence: describeProjectVault(s), folder: path.basename(i.dir), notes: i.notes, owner: i.owner, peer: i.peer, flagged: i.flagged,
    agentFiles: i.agentFiles, proposeNotes: i.proposeNotes,
    flaggedNotes: engine.project.notes().filter((n) => n.flagged).map((n) => ({ relPath: n.relPath, verdict: n.flagged!.verdict, detector: n.flagged!.detector })),
  };
}

// Starts the vault language server (dist/server.js, node IPC) for Markdown files inside the vault
// folder and answers its custom requests (src/protocol/language.ts) from the engine (R-UI-6).
// Two disposal lists, as rust-analyzer keeps them: one for this object's lifetime (settings and
// editor listeners, the output channel), one per client (the client and its engine subscriptions),
// emptied on every restart — a `memory.vaultPath` change restarts with the new folder's selector.
// The server starts with the first vault note opened, not at activation. Logs carry counts only.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { Disposable, type Logger } from '../../engine/host';
import {
  DESCRIBE_REQUEST, NOTES_CHANGED_NOTIFICATION, NOTES_REQUEST,
  type DescribeParams, type DescribeResponse, type MemoryServerInitOptions, type NotesResponse,
} from '../../protocol/language';
import type { EngineHost } from '../engineHost';
import { describeItem, noteInfosOf } from './languageFacts';
import { errorCode } from '../../engine/errors';

export interface LanguageClientDeps {
  host: EngineHost;
  logger: Logger;
  vaultPath: () => string;
  /** Absolute path of the bundled server (dist/server.js). */
  serverModule: string;
}

/** 200 ms: a vault sync or rebuild changes many notes in one burst; the server reloads once. */
const NOTIFY_DEBOUNCE_MS = 200;

export class MemoryLanguageClient extends Disposable implements vscode.Disposable {
  private clientDisposables: vscode.Disposable[] = [];
  private client: LanguageClient | undefined;
  private clientVault: string | undefined;
  private readonly channel: vscode.LogOutputChannel;
  private notifyTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: LanguageClientDeps) {
    super();
    this.channel = this._register(vscode.window.createOutputChannel('Memory Language Server', { log: true }));
    this._register(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('memory.vaultPath')) void this.restart();
    }));
    this._register(vscode.workspace.onDidOpenTextDocument((d) => { if (this.inVault(d)) void this.ensureStarted(); }));
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => { void this.restart(); }));
    if (vscode.workspace.textDocuments.some((d) => this.inVault(d))) void this.ensureStarted();
  }

  /** The running client (tests), undefined before the first vault note is opened. */
  get current(): LanguageClient | undefined { return this.client; }

  private vaultDir(): string { return path.resolve(this.deps.vaultPath()); }

  private inVault(d: vscode.TextDocument): boolean {
    if (d.uri.scheme !== 'file' || d.languageId !== 'markdown') return false;
    // Restricted Mode (issue #12): no language server on the workspace's files, even where a vault lies inside it.
    if (!vscode.workspace.isTrusted && vscode.workspace.getWorkspaceFolder(d.uri)) return false;
    const rel = path.relative(this.vaultDir(), d.uri.fsPath);
    return !!rel && !rel.startsWith('..') && !path.isAbsolute(rel);
  }

  /** Starts a client for the current vault unless one runs for it already. */
  async ensureStarted(): Promise<void> {
    const vaultDir = this.vaultDir();
    if (this.isDisposed || (this.client && this.clientVault === vaultDir)) return;
    if (!vscode.workspace.isTrusted && overlapsWorkspace(vaultDir)) {
      this.deps.logger.info('language.restricted', {});
      return;
    }
    if (this.client) await this.stopClient();
    const serverOptions: ServerOptions = {
      run: { module: this.deps.serverModule, transport: TransportKind.ipc },
      debug: { module: this.deps.serverModule, transport: TransportKind.ipc },
    };
    const init: MemoryServerInitOptions = { vaultDir };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file', language: 'markdown', pattern: { baseUri: vscode.Uri.file(vaultDir).toString(), pattern: '**/*.md' } }],
      initializationOptions: init,
      outputChannel: this.channel,
    };
    const client = new LanguageClient('memoryVault', 'Memory Vault', serverOptions, clientOptions);
    this.client = client;
    this.clientVault = vaultDir;
    const list = this.clientDisposables;
    list.push(client.onRequest(NOTES_REQUEST, async (): Promise<NotesResponse> => {
      const engine = await this.deps.host.get();
      const notes = noteInfosOf(engine.notes());
      this.deps.logger.info('language.notes', { count: notes.length });
      return notes;
    }));
    list.push(client.onRequest(DESCRIBE_REQUEST, async (params: DescribeParams): Promise<DescribeResponse> => {
      const id = typeof params?.id === 'string' ? params.id : '';
      if (!id) return null;
      const engine = await this.deps.host.get();
      const item = engine.get(id);
      return item ? describeItem(item, (i) => engine.textOf(i)) : null;
    }));
    // Index changes reach the server as one debounced notification; a reopened engine counts as one.
    list.push(this.deps.host.onDidChangeItems((e) => { if (e.ids.some((id) => id.startsWith('vt:'))) this.notifyChanged(); }));
    const current = this.deps.host.current;
    if (current) void current.whenVaultSynced().then(() => this.notifyChanged());
    list.push(this.deps.host.onDidOpen((engine) => { void engine.whenVaultSynced().then(() => this.notifyChanged()); this.notifyChanged(); }));
    try {
      await client.start();
      this.deps.logger.info('language.started', {});
    } catch (e) {
      this.deps.logger.error('language.start_failed', { error: errorCode(e) });
    }
  }

  private notifyChanged(): void {
    if (this.notifyTimer) clearTimeout(this.notifyTimer);
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      const c = this.client;
      if (c?.isRunning()) void c.sendNotification(NOTES_CHANGED_NOTIFICATION).catch(() => undefined);
    }, NOTIFY_DEBOUNCE_MS);
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.clientVault = undefined;
    const list = this.clientDisposables;
    this.clientDisposables = [];
    for (const d of list) d.dispose();
    if (client) await client.stop().catch(() => undefined);
  }

  /** Stops the client and starts one for the current vault when one of its notes is open. */
  async restart(): Promise<void> {
    await this.stopClient();
    if (vscode.workspace.textDocuments.some((d) => this.inVault(d))) await this.ensureStarted();
  }

  override dispose(): void {
    if (this.notifyTimer) clearTimeout(this.notifyTimer);
    void this.stopClient(); // first, as before: its synchronous part detaches the client's subscriptions
    super.dispose();
  }
}

/** True when the vault and a workspace folder on this machine contain one another (the server would read workspace files). */
function overlapsWorkspace(vaultDir: string): boolean {
  const inside = (a: string, b: string) => { const rel = path.relative(b, a); return !rel.startsWith('..') && !path.isAbsolute(rel); };
  return (vscode.workspace.workspaceFolders ?? []).some((f) => f.uri.scheme === 'file' && (inside(vaultDir, f.uri.fsPath) || inside(f.uri.fsPath, vaultDir)));
}

// The "Memory" activity-bar container with its Vault and Backlinks views (R-UI-3).
// The Vault tree is rebuilt from the store's note rows plus the logs/ folder after every change
// (debounced), so hand edits on disk show within a second; the Backlinks view follows the active
// editor. Both announce each rebuild (onDidRefresh) so integration tests wait on events, not sleeps.
import { existsSync, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MemoryEngine } from '../../engine/engine';
import type { Logger } from '../../engine/host';
import type { Item } from '../../engine/store/repositories';
import { listLogDays } from '../../engine/vault/dailyLog';
import { LONGTERM_FILE, NOTE_ID_PREFIX, isHiddenRelPath, noteId } from '../../engine/vault/vaultLayout';
import type { EngineHost } from '../engineHost';
import { flaggedMessage, type ProjectVaultController } from '../project/projectVaultController';
import { buildVaultTree, type NoteRow, type ProjectSection, type VaultNode } from './vaultModel';
import { errorCode } from '../../engine/errors';

export type { VaultNode } from './vaultModel';

export const VAULT_VIEW_ID = 'memory.vault';
export const BACKLINKS_VIEW_ID = 'memory.backlinks';

/** 100 ms: bursts of file events (an editor's save = write + rename) become one rebuild, well inside R-UI-3's 1 s. */
const REFRESH_DEBOUNCE_MS = 100;
/** 3 s: VS Code's watcher starts asynchronously (~1 s seen in code-server); one reconcile afterwards
 *  picks up files written while it was not yet listening. */
const RECONCILE_MS = 3000;

/** ThemeIcon per note kind (codicons). */
const KIND_ICONS: Readonly<Record<string, string>> = {
  user: 'account', feedback: 'comment-discussion', domain: 'book', project: 'project', reference: 'references',
};

/** contextValue of each node type; package.json `view/item/context` menus match on these. */
export function contextValueOf(node: VaultNode): string {
  if (node.type === 'note' && node.note.project) return node.note.project.flagged ? 'memory.projectNote.flagged' : 'memory.projectNote';
  if (node.type === 'note') return node.note.pinned ? 'memory.note.pinned' : 'memory.note';
  if (node.type === 'project') return 'memory.projectVault';
  if (node.type === 'log') return 'memory.log';
  if (node.type === 'longterm') return 'memory.longterm';
  return 'memory.folder';
}

export function noteRowOf(it: Item): NoteRow | undefined {
  if (!it.path) return undefined;
  return { id: it.id, path: it.path, summary: it.summary ?? '', kind: it.subkind ?? 'reference', trust: it.trust, tags: it.tags, pinned: it.pinned };
}

/** Vault-relative path (with `/`) of a file, or undefined when it lies outside the vault. */
export function vaultRelPath(vaultDir: string, fsPath: string): string | undefined {
  const rel = path.relative(vaultDir, fsPath);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

/** A project vault note: who wrote it (git), its trust, and a warning when the gate flagged it. */
function projectNoteTreeItem(node: Extract<VaultNode, { type: 'note' }>, p: NonNullable<NoteRow['project']>): vscode.TreeItem {
  const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
  const n = node.note;
  item.id = node.id;
  item.iconPath = p.flagged ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground')) : new vscode.ThemeIcon(KIND_ICONS[n.kind] ?? 'note');
  const who = p.uncommitted ? 'uncommitted' : n.trust === 'peer' ? (p.author ?? 'teammate') : 'yours';
  item.description = p.flagged ? `flagged · ${who}` : `${n.trust} · ${who}`;
  item.tooltip = [`id: ${n.id}`, `kind: ${n.kind}`, `trust: ${n.trust}`, `author: ${p.author ?? (p.uncommitted ? 'uncommitted (yours)' : 'unknown')}`,
    ...(p.flagged ? [flaggedMessage(p.flagged as Parameters<typeof flaggedMessage>[0])] : [])].join('\n');
  item.contextValue = contextValueOf(node);
  const uri = vscode.Uri.file(p.file);
  item.resourceUri = uri;
  item.command = { command: 'vscode.open', title: 'Open', arguments: [uri] };
  return item;
}

function noteTreeItem(node: Extract<VaultNode, { type: 'note' }>, vaultDir: string): vscode.TreeItem {
  if (node.note.project) return projectNoteTreeItem(node, node.note.project);
  const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
  const n = node.note;
  item.id = node.id;
  item.iconPath = new vscode.ThemeIcon(KIND_ICONS[n.kind] ?? 'note');
  item.description = n.pinned ? 'pinned' : undefined;
  // Plain text: ids and tags come from files and must not be read as Markdown.
  item.tooltip = [`id: ${n.id}`, `kind: ${n.kind}`, `trust: ${n.trust}`, `tags: ${n.tags.length ? n.tags.join(', ') : '—'}`,
    ...(n.pinned ? ['pinned'] : [])].join('\n');
  item.contextValue = contextValueOf(node);
  const uri = vscode.Uri.file(path.join(vaultDir, ...node.relPath.split('/')));
  item.resourceUri = uri;
  item.command = { command: 'vscode.open', title: 'Open', arguments: [uri] };
  return item;
}

function treeItemOf(node: VaultNode, vaultDir: string): vscode.TreeItem {
  if (node.type === 'note') return noteTreeItem(node, vaultDir);
  const collapsible = 'children' in node;
  const item = new vscode.TreeItem(node.label, collapsible
    ? (node.type === 'month' && !node.newest ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded)
    : vscode.TreeItemCollapsibleState.None);
  item.id = node.id;
  item.contextValue = contextValueOf(node);
  if (node.type === 'project') {
    item.iconPath = new vscode.ThemeIcon('repo');
    item.description = node.description;
    item.tooltip = 'The repository\'s project vault: notes shared with everyone who clones it (teammates\' notes count as peer).';
  } else if (collapsible) {
    item.iconPath = new vscode.ThemeIcon(node.type === 'logs' ? 'calendar' : 'folder');
  } else {
    const uri = vscode.Uri.file(path.join(vaultDir, ...node.relPath.split('/')));
    item.iconPath = new vscode.ThemeIcon(node.type === 'longterm' ? 'star-full' : 'calendar');
    item.tooltip = node.type === 'longterm' ? 'Placed in every recall block (first 1,200 characters)' : `Daily log ${node.relPath}`;
    item.resourceUri = uri;
    item.command = { command: 'vscode.open', title: 'Open', arguments: [uri] };
  }
  return item;
}

/** Serialises async rebuilds: a request during a rebuild runs once more after it. */
abstract class RefreshingTree implements vscode.TreeDataProvider<VaultNode>, vscode.Disposable {
  protected readonly changed = new vscode.EventEmitter<VaultNode | undefined>();
  private readonly refreshed = new vscode.EventEmitter<void>();
  private readonly loaded = new vscode.EventEmitter<number>();
  readonly onDidChangeTreeData = this.changed.event;
  /** Fires after the model was rebuilt from the engine (the tree shows it from then on). */
  readonly onDidRefresh = this.refreshed.event;
  /** Fires with the number of root items each time VS Code asks for the root. */
  readonly onDidLoad = this.loaded.event;
  /** How many times the root was requested (a test can check it was already loaded). */
  rootLoads = 0;
  protected roots: VaultNode[] = [];
  /** The current root nodes (what VS Code shows). */
  get model(): readonly VaultNode[] { return this.roots; }
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(protected readonly host: EngineHost, protected readonly logger: Logger, private readonly name: string) {}

  protected abstract build(engine: MemoryEngine | undefined): Promise<VaultNode[]>;

  getTreeItem(node: VaultNode): vscode.TreeItem {
    return treeItemOf(node, this.host.current?.vaultDir ?? '');
  }

  getChildren(node?: VaultNode): VaultNode[] {
    if (node) return 'children' in node ? node.children : [];
    this.rootLoads++;
    this.loaded.fire(this.roots.length);
    return this.roots;
  }

  /** Rebuild soon (debounced); returns at once. */
  scheduleRefresh(): void {
    // Not re-armed by later requests, so a steady stream of changes still refreshes every 100 ms.
    if (this.timer) return;
    this.timer = setTimeout(() => { this.timer = undefined; void this.refresh(); }, REFRESH_DEBOUNCE_MS);
  }

  /** Rebuilds now; resolves when the new model is in place. */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          this.roots = await this.build(this.host.current);
        } catch (e) {
          this.logger.warn('view.refresh_failed', { view: this.name, error: (e as Error)?.name ?? 'error' });
        }
      } while (this.again);
    })().finally(() => {
      this.running = undefined;
      this.logger.trace('view.refresh', { view: this.name, roots: this.roots.length });
      this.changed.fire(undefined);
      this.refreshed.fire();
    });
    return this.running;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.changed.dispose();
    this.refreshed.dispose();
    this.loaded.dispose();
  }
}

export class VaultTreeProvider extends RefreshingTree {
  constructor(host: EngineHost, logger: Logger, private readonly projectVault?: ProjectVaultController) { super(host, logger, VAULT_VIEW_ID); }

  protected async build(engine: MemoryEngine | undefined): Promise<VaultNode[]> {
    if (!engine) return [];
    const notes: NoteRow[] = [];
    for (const it of engine.notes()) {
      if (!it.id.startsWith(NOTE_ID_PREFIX)) continue; // project notes have their own section
      const row = noteRowOf(it);
      if (row && !isHiddenRelPath(row.path)) notes.push(row);
    }
    const days = await listLogDays(engine.vaultDir);
    return buildVaultTree(notes, days, existsSync(path.join(engine.vaultDir, LONGTERM_FILE)), this.projectSection(engine));
  }

  private projectSection(engine: MemoryEngine): ProjectSection | undefined {
    const state = this.projectVault?.state();
    if (state?.state !== 'attached') return undefined;
    const { info } = state;
    const list = this.projectVault!.notes();
    const rows = new Map(engine.query.items.getMany(list.map((n) => n.id)).map((it) => [it.id, it]));
    const notes = list.map((n): NoteRow => {
      const it = rows.get(n.id);
      return {
        id: n.id, path: n.relPath, summary: it?.summary || n.title, kind: it?.subkind ?? 'reference', trust: n.trust, tags: it?.tags ?? [], pinned: false,
        project: { file: path.join(info.dir, ...n.relPath.split('/')), author: n.author, uncommitted: n.uncommitted, flagged: n.flagged },
      };
    });
    const counts = !info.notes && !existsSync(info.dir) ? ['empty — Share with Project starts it']
      : [`${info.notes} notes`, ...(info.peer ? [`${info.peer} from teammates`] : []), ...(info.flagged ? [`${info.flagged} flagged`] : [])];
    return { label: `Project: ${path.basename(info.dir)}/`, description: counts.join(' · '), notes };
  }
}

/** Notes that link to the active editor's note by wikilink. */
export class BacklinksProvider extends RefreshingTree {
  /** Id of the note whose backlinks are shown (undefined: the active editor is not a vault note). */
  target: string | undefined;
  view: vscode.TreeView<VaultNode> | undefined;

  constructor(host: EngineHost, logger: Logger) { super(host, logger, BACKLINKS_VIEW_ID); }

  protected async build(engine: MemoryEngine | undefined): Promise<VaultNode[]> {
    const doc = vscode.window.activeTextEditor?.document;
    this.target = undefined;
    let message = 'Open a vault note to see the notes that link to it.';
    let nodes: VaultNode[] = [];
    if (engine && doc?.uri.scheme === 'file') {
      const rel = vaultRelPath(engine.vaultDir, doc.uri.fsPath);
      if (rel && rel.toLowerCase().endsWith('.md') && !isHiddenRelPath(rel)) {
        this.target = noteId(rel);
        nodes = engine.backlinks(this.target).map(noteRowOf).filter((r): r is NoteRow => !!r)
          .map((note) => ({ type: 'note' as const, id: `backlink:${note.id}`, relPath: note.path, label: note.summary || note.path, note }));
        nodes.sort((a, b) => a.label.localeCompare(b.label));
        message = nodes.length ? '' : 'No notes link to this note.';
      }
    }
    if (this.view) this.view.message = message || undefined;
    return nodes;
  }
}

export interface VaultViews {
  readonly vault: VaultTreeProvider;
  readonly backlinks: BacklinksProvider;
  readonly vaultView: vscode.TreeView<VaultNode>;
  readonly backlinksView: vscode.TreeView<VaultNode>;
}

export function registerVaultViews(context: vscode.ExtensionContext, host: EngineHost, logger: Logger, projectVault?: ProjectVaultController): VaultViews {
  const vault = new VaultTreeProvider(host, logger, projectVault);
  const backlinks = new BacklinksProvider(host, logger);
  const vaultView = vscode.window.createTreeView(VAULT_VIEW_ID, { treeDataProvider: vault, showCollapseAll: true });
  const backlinksView = vscode.window.createTreeView(BACKLINKS_VIEW_ID, { treeDataProvider: backlinks });
  backlinks.view = backlinksView;
  context.subscriptions.push(vault, backlinks, vaultView, backlinksView);

  // Per-engine wiring (a vault change reopens the engine): store changes and file events refresh both views.
  let engineSubs: vscode.Disposable[] = [];
  const bind = (engine: MemoryEngine) => {
    for (const d of engineSubs) d.dispose();
    const watcher = new VaultFileSync(engine, logger, () => { vault.scheduleRefresh(); backlinks.scheduleRefresh(); });
    engineSubs = [watcher];
    void vault.refresh();
    void backlinks.refresh();
  };
  if (host.current) bind(host.current);
  context.subscriptions.push(
    host.onDidOpen(bind),
    host.onDidChangeItems(() => { vault.scheduleRefresh(); backlinks.scheduleRefresh(); }),
    host.onDidChangeState((s) => { if (s.state !== 'open') { void vault.refresh(); void backlinks.refresh(); } }),
    vscode.window.onDidChangeActiveTextEditor(() => backlinks.scheduleRefresh()),
    ...(projectVault ? [projectVault.onDidChange(() => vault.scheduleRefresh())] : []),
    { dispose: () => { for (const d of engineSubs) d.dispose(); } },
  );
  return { vault, backlinks, vaultView, backlinksView };
}

/**
 * Feeds file changes under the vault to `engine.syncVaultFile` (batched), then calls `onSynced`.
 * Uses VS Code's file watcher with a base folder outside the workspace (works in the extension host;
 * verified by test/integration/vault.test.ts). Two gaps of that watcher are closed here:
 * - files created right inside a new folder (`mkdir -p a/b && write a/b/n.md`) can come without their
 *   own event, so a created folder is walked, and a deleted folder drops the notes indexed under it;
 * - the watcher starts asynchronously, so the vault is reconciled once after it is up (RECONCILE_MS).
 * Hidden paths (`.quarantine/`, `.obsidian/`, noteWriter's temp files) are ignored: the engine
 * indexes its own moves there.
 */
export class VaultFileSync implements vscode.Disposable {
  private readonly watcher: vscode.FileSystemWatcher;
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly reconcileTimer: NodeJS.Timeout;
  private chain: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(private readonly engine: MemoryEngine, private readonly logger: Logger, private readonly onSynced: () => void) {
    this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(engine.vaultDir), '**/*'));
    this.watcher.onDidCreate((uri) => void this.created(uri));
    this.watcher.onDidChange((uri) => this.queue(uri.fsPath));
    this.watcher.onDidDelete((uri) => this.deleted(uri));
    this.reconcileTimer = setTimeout(() => void this.reconcile(), RECONCILE_MS);
  }

  private relOf(fsPath: string): string | undefined {
    const rel = vaultRelPath(this.engine.vaultDir, fsPath);
    return rel && !isHiddenRelPath(rel) ? rel : undefined;
  }

  private queue(fsPath: string): void {
    const rel = this.relOf(fsPath);
    if (!rel || this.disposed || !rel.toLowerCase().endsWith('.md')) return;
    this.pending.add(rel);
    // Not re-armed by later events: a steady stream of saves still syncs every REFRESH_DEBOUNCE_MS.
    this.timer ??= setTimeout(() => { this.timer = undefined; void this.drain(); }, REFRESH_DEBOUNCE_MS);
  }

  private async created(uri: vscode.Uri): Promise<void> {
    if (!this.relOf(uri.fsPath)) return;
    let isDir = false;
    try { isDir = (await fsp.stat(uri.fsPath)).isDirectory(); } catch { /* gone again: nothing to do */ }
    if (!isDir) return this.queue(uri.fsPath);
    try {
      const entries = await fsp.readdir(uri.fsPath, { recursive: true, withFileTypes: true });
      for (const e of entries) if (e.isFile()) this.queue(path.join(e.parentPath ?? uri.fsPath, e.name));
    } catch (e) {
      this.logger.warn('vault.watch_walk_failed', { error: (e as NodeJS.ErrnoException)?.code ?? 'error' });
    }
  }

  private deleted(uri: vscode.Uri): void {
    const rel = this.relOf(uri.fsPath);
    if (!rel) return;
    if (rel.toLowerCase().endsWith('.md')) return this.queue(uri.fsPath);
    // A folder (or a file we do not index): drop every note indexed under it.
    const prefix = `${rel}/`;
    for (const it of this.engine.notes()) {
      if (it.id.startsWith(NOTE_ID_PREFIX) && it.path?.startsWith(prefix)) this.queue(path.join(this.engine.vaultDir, ...it.path.split('/')));
    }
  }

  /** Runs `fn` after every earlier batch: the index sees one batch at a time, in order. */
  private serial(fn: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(fn).catch((e) => {
      // A refused path (E_BAD_ID) or a closed engine: log by code and keep going.
      this.logger.warn('vault.watch_sync_failed', { error: errorCode(e) });
    });
    return this.chain;
  }

  private reconcile(): Promise<void> {
    return this.serial(async () => {
      if (this.disposed) return;
      const r = await this.engine.syncVault();
      if (r.added || r.updated || r.removed) this.onSynced();
    });
  }

  private drain(): Promise<void> {
    return this.serial(async () => {
      const rels = [...this.pending];
      this.pending.clear();
      if (!rels.length || this.disposed) return;
      let synced = 0;
      for (const rel of rels) {
        if (this.disposed) return;
        try {
          await this.engine.syncVaultFile(rel);
          synced++;
        } catch (e) {
          this.logger.warn('vault.sync_file_failed', { error: errorCode(e) });
        }
      }
      this.logger.trace('vault.watch_synced', { files: rels.length, synced });
      this.onSynced();
    });
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    clearTimeout(this.reconcileTimer);
    this.watcher.dispose();
  }
}

// Read-only virtual documents for memories that are not vault files (raw messages, facts, summaries,
// entities) and for the capture log: the `memory:` scheme. `memory:/<id>` shows one item as `memory_expand`
// would (the person's own view: unmasked, in the workspace scope); `memory:/capture-log` lists the ledger.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MemoryEngine } from '../../engine/engine';
import { PROJECT_NOTE_PREFIX } from '../../engine/types';
import { relPathOfId, resolveInVault } from '../../engine/vault/vaultLayout';
import { isMemoryError } from '../../engine/errors';
import type { LedgerRow } from '../../engine/store/repositories';
import type { ProjectContext } from '../config';
import type { EngineHost } from '../engineHost';

export const MEMORY_SCHEME = 'memory';
const CAPTURE_LOG_PATH = '/capture-log';

export function memoryDocumentUri(id: string): vscode.Uri {
  return vscode.Uri.from({ scheme: MEMORY_SCHEME, path: `/${id}` });
}

/**
 * A memory a person can open: a vault note as its file — a personal note in the vault, a project note (`pv:`) in the
 * attached project vault (issue #15) — anything else as a read-only `memory:` document.
 */
export function referenceUri(engine: Pick<MemoryEngine, 'vaultDir' | 'get' | 'project'>, id: string): vscode.Uri {
  if (id.startsWith('vt:')) {
    try {
      return vscode.Uri.file(path.join(engine.vaultDir, ...relPathOfId(id).split('/')));
    } catch { /* an id that is not a valid vault path opens as a virtual document (which explains) */ }
  }
  if (id.startsWith(PROJECT_NOTE_PREFIX)) {
    // `attached`, not `info()`: this runs per recalled id on every chat turn, and info() counts every project note.
    const attached = engine.project.attached;
    const rel = engine.get(id)?.path;
    if (attached && rel && id.startsWith(attached.index.idPrefix)) {
      try {
        return vscode.Uri.file(resolveInVault(attached.dir, rel));
      } catch { /* not a path inside the project vault: the virtual document explains */ }
    }
  }
  return memoryDocumentUri(id);
}

export const CAPTURE_LOG_URI = vscode.Uri.from({ scheme: MEMORY_SCHEME, path: CAPTURE_LOG_PATH });

/** The ledger as plain text, newest first: one line per capture (outcome or kinds, model, entry path). */
export function formatLedger(rows: readonly LedgerRow[], timeZone?: string): string {
  const lines = ['# Memory capture log', '', `${rows.length} captures, newest first. Outcome is a skip reason or the kinds extracted.`, ''];
  for (const r of [...rows].reverse()) {
    const when = new Date(r.at).toLocaleString('sv-SE', { timeZone }).replace(' ', 'T');
    const what = r.outcome === 'extracted' ? `extracted ${r.kinds.length ? r.kinds.join(', ') : '(no notes)'}` : `skipped: ${r.outcome}`;
    const by = r.provider || r.model ? ` · ${r.provider ?? '?'}/${r.model ?? '?'}` : '';
    const items = r.itemIds.length ? ` · ${r.itemIds.join(', ')}` : '';
    lines.push(`- ${when} · ${what}${by} · via ${r.entryPath ?? '?'} · conversation ${r.conversation ?? '?'}${items}`);
  }
  return lines.join('\n') + '\n';
}

export class MemoryDocumentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly host: EngineHost, private readonly project: () => ProjectContext) {}

  refresh(uri: vscode.Uri): void { this.changed.fire(uri); }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const engine = await this.host.get();
    if (uri.path === CAPTURE_LOG_PATH) return formatLedger(engine.query.ledger.list(), engine.clock.timeZone());
    const id = uri.path.replace(/^\//, '');
    try {
      const p = this.project();
      const ex = await engine.expand(id, { project: p.project, projectType: p.projectType });
      const head = [`# ${ex.id}`, '', `kind: ${ex.kind} · trust: ${ex.trust}${ex.sourceType ? ` · source: ${ex.sourceType}` : ''}${ex.truncated ? ' · cut to 8,000 chars' : ''}`, ''];
      const tail: string[] = [];
      if (ex.entity) tail.push('', `Entity ${ex.entity.name} (${ex.entity.type})`, ...ex.entity.facts.map((f) => `- ${f.id}: ${f.text}`));
      if (ex.conversationSummary) tail.push('', `Conversation summary (${ex.conversationSummary.id}): ${ex.conversationSummary.text}`);
      if (ex.sources?.length) tail.push('', `Derived from: ${ex.sources.join(', ')}`);
      return [...head, ex.text, ...tail].join('\n') + '\n';
    } catch (e) {
      return `# ${id}\n\nThis memory cannot be shown (${isMemoryError(e) ? `${e.code}: ${e.message}` : 'unexpected error'}).\n`;
    }
  }

  dispose(): void { this.changed.dispose(); }
}

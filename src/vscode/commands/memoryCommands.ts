// Palette commands (SPEC R-UI-4): Remember…, Forget… (an id, or a pick from search hits; always a modal
// confirmation), Search Memory… (ranked hits; a vault note opens as its file, anything else as a read-only
// `memory:` document), Show Capture Log. Each returns what it did so tests can assert without the UI.
import * as vscode from 'vscode';
import { describeForgetPlan } from '../../engine/engine';
import { MemoryError } from '../../engine/errors';
import type { Logger } from '../../engine/host';
import type { SearchHit } from '../../engine/recall/recaller';
import { MAX_DOCUMENT_BYTES } from '../../engine/write/docIngest';
import type { ProjectContext } from '../config';
import { commandRegistrar, type EngineHost } from '../engineHost';
import { CAPTURE_LOG_URI, referenceUri, type MemoryDocumentProvider } from './memoryDocuments';

export const MEMORY_COMMANDS = {
  remember: 'memory.remember',
  forget: 'memory.forget',
  search: 'memory.search',
  showCaptureLog: 'memory.showCaptureLog',
  loadDocument: 'memory.loadDocument',
} as const;

/** Options tests pass instead of typing into the UI (never used by menus). */
export interface ForgetOptions { confirmed?: boolean }

function hitItem(h: SearchHit): vscode.QuickPickItem & { id: string } {
  const text = h.text.replace(/\s+/g, ' ').trim();
  return { id: h.id, label: text.slice(0, 120) || h.id, description: h.id, detail: `${h.subkind ?? h.kind} · trust ${h.trust} · score ${h.score.toFixed(2)}` };
}

export function registerMemoryCommands(context: vscode.ExtensionContext, deps: {
  host: EngineHost; logger: Logger; project: () => ProjectContext; documents: MemoryDocumentProvider;
}): void {
  const { host, logger } = deps;
  const reg = commandRegistrar(context, logger);

  const searchPick = async (title: string, initial?: string): Promise<string | undefined> => {
    const engine = await host.get();
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { id: string }>();
    qp.title = title;
    qp.placeholder = 'Type words to search memory';
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    qp.value = initial ?? '';
    let seq = 0;
    const run = async (q: string) => {
      const mine = ++seq;
      if (!q.trim()) { qp.items = []; return; }
      qp.busy = true;
      try {
        const p = deps.project();
        const hits = await engine.search(q, { project: p.project, projectType: p.projectType }, 20);
        if (mine === seq) qp.items = hits.map(hitItem);
      } finally {
        if (mine === seq) qp.busy = false;
      }
    };
    return new Promise<string | undefined>((resolve) => {
      qp.onDidChangeValue((v) => { void run(v); });
      qp.onDidAccept(() => { resolve(qp.selectedItems[0]?.id); qp.hide(); });
      qp.onDidHide(() => { resolve(undefined); qp.dispose(); });
      qp.show();
      if (qp.value) void run(qp.value);
    });
  };

  reg(MEMORY_COMMANDS.remember, 'remember', async (arg) => {
    const text = typeof arg === 'string' ? arg : await vscode.window.showInputBox({
      title: 'Memory: Remember', prompt: 'A fact or preference to keep as a pinned note (owner trust, listed in every recall)',
      validateInput: (v) => (v.trim() ? undefined : 'Write something to remember'),
    });
    if (!text?.trim()) return undefined;
    const engine = await host.get();
    const r = await engine.remember({ text, kind: 'user' });
    logger.info('command.remember', { id: r.id });
    void vscode.window.showInformationMessage(`Remembered as ${r.id}.`, 'Open Note').then((pick) => {
      if (pick) void vscode.window.showTextDocument(vscode.Uri.file(r.path));
    });
    return r;
  });

  reg(MEMORY_COMMANDS.forget, 'forget', async (arg, opts) => {
    const id = typeof arg === 'string' && arg.trim() ? arg.trim() : await searchPick('Memory: Forget — pick the memory to delete');
    if (!id) return undefined;
    const engine = await host.get();
    const item = engine.get(id);
    if (!item) throw new MemoryError('E_NOT_FOUND', `no memory has the id ${id}`);
    const plan = await engine.forgetPreview(id);
    const confirmed = (opts as ForgetOptions | undefined)?.confirmed === true || await vscode.window.showWarningMessage(
      `Forget ${id}?`, {
        modal: true,
        detail: `${item.kind}: ${(item.summary ?? item.title ?? item.text ?? '').slice(0, 200)}\n\nRemoves:\n${describeForgetPlan(plan).map((l) => `• ${l}`).join('\n')}\n\nThis cannot be undone.`,
      },
      'Forget',
    ) === 'Forget';
    if (!confirmed) return undefined;
    const r = await engine.forget(id);
    void vscode.window.showInformationMessage(`Forgot ${id}${r.removed.length > 1 ? ` and ${r.removed.length - 1} derived item(s)` : ''}.`);
    return r;
  });

  reg(MEMORY_COMMANDS.search, 'search', async (arg) => {
    const id = await searchPick('Memory: Search', typeof arg === 'string' ? arg : undefined);
    if (!id) return undefined;
    const engine = await host.get();
    const uri = referenceUri(engine, id);
    await vscode.window.showTextDocument(uri, { preview: true });
    return id;
  });

  reg(MEMORY_COMMANDS.showCaptureLog, 'show_capture_log', async () => {
    deps.documents.refresh(CAPTURE_LOG_URI);
    const doc = await vscode.languages.setTextDocumentLanguage(await vscode.workspace.openTextDocument(CAPTURE_LOG_URI), 'markdown');
    await vscode.window.showTextDocument(doc, { preview: false });
    return doc.getText();
  });

  // Load Document… (R-WRITE-8): a Markdown file becomes pinned sections; loading it again only
  // touches what changed. The argument (a Uri or path) is for the Explorer menu and tests. The file is read
  // through vscode.workspace.fs, so a remote or virtual workspace's files load too (issue #12); in Restricted
  // Mode nothing is loaded (a document from an untrusted workspace is not let into memory).
  reg(MEMORY_COMMANDS.loadDocument, 'load_document', async (arg) => {
    if (!vscode.workspace.isTrusted) {
      throw new MemoryError('E_REFUSED', 'Restricted Mode: Memory loads no documents until you trust this workspace');
    }
    let uri = arg instanceof vscode.Uri ? arg : typeof arg === 'string' ? vscode.Uri.file(arg) : undefined;
    if (!uri) {
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: false, openLabel: 'Load into Memory', filters: { Markdown: ['md', 'markdown', 'txt'] },
      });
      uri = picked?.[0];
    }
    if (!uri) return undefined;
    const target = uri;
    const bytes = await readDocumentBytes(target);
    // A file on this machine keeps its absolute path as the document's key (as before); others their URI.
    const name = target.scheme === 'file' ? target.fsPath : target.toString();
    const project = deps.project().project;
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Memory: loading document…', cancellable: false },
      async () => (await host.get()).loadDocument({ file: { name, bytes }, project }),
    );
    logger.info('command.load_document', { added: result.added, updated: result.updated, unchanged: result.unchanged, removed: result.removed, secret: result.secret });
    void vscode.window.showInformationMessage(
      `Memory: document loaded — ${result.added} new, ${result.updated} changed, ${result.unchanged} unchanged, ${result.removed} removed section(s)` +
      (result.secret ? `; ${result.secret} with credentials kept out of recall.` : '.'),
    );
    return result;
  });
}

/** The document's bytes through vscode.workspace.fs; a missing file, a folder or one over 5 MB is refused first. */
export async function readDocumentBytes(uri: vscode.Uri): Promise<Uint8Array> {
  let st: vscode.FileStat;
  try {
    st = await vscode.workspace.fs.stat(uri);
  } catch {
    throw new MemoryError('E_NOT_FOUND', 'the document file cannot be read');
  }
  if (!(st.type & vscode.FileType.File)) throw new MemoryError('E_BAD_INPUT', 'the document path is not a file');
  if (st.size > MAX_DOCUMENT_BYTES) {
    throw new MemoryError('E_TOO_LARGE', `the document is ${(st.size / 1048576).toFixed(1)} MB; documents of at most 5 MB can be loaded`, { bytes: st.size });
  }
  try {
    return await vscode.workspace.fs.readFile(uri);
  } catch {
    throw new MemoryError('E_NOT_FOUND', 'the document file cannot be read');
  }
}

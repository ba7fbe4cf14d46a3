// The vault language server's features over one LSP connection (R-UI-6): `[[` completion of note
// names, go to definition, backlinks as references, broken-link / frontmatter / secret diagnostics,
// hover on memory ids and wikilinks. Index facts (the note list, id descriptions) come from the
// extension through the custom requests in src/protocol/language.ts; link resolution is the engine's
// LinkGraph. Invariant: nothing here logs note or memory text — only counts and codes.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CompletionItemKind, DiagnosticSeverity, MarkupKind, TextDocuments, TextDocumentSyncKind,
  type CompletionItem, type Connection, type Diagnostic, type Hover, type InitializeResult, type Location, type Range,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { LinkGraph } from '../engine/vault/linkGraph';
import { noteId } from '../engine/vault/vaultLayout';
import {
  DESCRIBE_REQUEST, NOTES_CHANGED_NOTIFICATION, NOTES_REQUEST,
  type DescribeResponse, type MemoryServerInitOptions, type NoteInfo, type NotesResponse,
} from '../protocol/language';
import { DIAGNOSTIC_SOURCE, noteDiagnostics } from './noteDiagnostics';
import { findHeading, linkAt, linkPrefixAt, memoryIdAt, scanWikilinks, type ScannedLink } from './wikilinkScan';

/** A note's text with its scanned links, cached per file stamp (references read every note). */
interface Scanned { doc: TextDocument; links: ScannedLink[]; stamp: string }

export interface MemoryLanguageServer {
  /** Resolves once the first note list arrived (tests wait on it). */
  readonly ready: Promise<void>;
}

/** Registers every handler on `connection`, then starts listening. */
export function serveMemoryLanguage(connection: Connection): MemoryLanguageServer {
  const documents = new TextDocuments(TextDocument);
  let vaultDir = '';
  let notes: NoteInfo[] = [];
  let byId = new Map<string, NoteInfo>();
  let graph = new LinkGraph();
  const scanCache = new Map<string, Scanned>();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((r) => { markReady = r; });
  let loading: Promise<void> | undefined;
  let reloadAgain = false;
  /** True once a note list arrived: broken-link diagnostics need it (an unanswered request is no empty vault). */
  let notesKnown = false;

  const log = (event: string, fields: Record<string, string | number> = {}) =>
    connection.console.info(`${event} ${Object.entries(fields).map(([k, v]) => `${k}=${v}`).join(' ')}`.trim());

  // ---------------------------------------------------------------- paths

  const relPathOf = (uri: string): string | undefined => {
    if (!vaultDir || !uri.startsWith('file:')) return undefined;
    let abs: string;
    try { abs = fileURLToPath(uri); } catch { return undefined; }
    const rel = path.relative(vaultDir, abs);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    return rel.split(path.sep).join('/');
  };
  const uriOf = (relPath: string) => pathToFileURL(path.join(vaultDir, ...relPath.split('/'))).href;
  const openDocOf = (relPath: string) => documents.all().find((d) => relPathOf(d.uri) === relPath);

  // ---------------------------------------------------------------- the note list

  async function loadNotes(): Promise<void> {
    if (loading) { reloadAgain = true; return loading; }
    loading = (async () => {
      do {
        reloadAgain = false;
        try {
          const list = await connection.sendRequest<NotesResponse>(NOTES_REQUEST);
          notes = Array.isArray(list) ? list.filter((n) => typeof n?.id === 'string' && typeof n.relPath === 'string') : [];
          notesKnown = true;
        } catch (e) {
          log('notes.failed', { code: (e as { code?: number })?.code ?? 'error' });
        }
        byId = new Map(notes.map((n) => [n.id, n]));
        graph = new LinkGraph();
        for (const n of notes) graph.setNote(n.id, []);
        log('notes.loaded', { count: notes.length });
      } while (reloadAgain);
    })().finally(() => { loading = undefined; });
    await loading;
    markReady();
    for (const d of documents.all()) validate(d);
  }

  /** The text and links of a note: the open editor's version, else the file (cached by mtime and size). */
  async function scanned(relPath: string): Promise<Scanned | undefined> {
    const open = openDocOf(relPath);
    if (open) return { doc: open, links: scanWikilinks(open.getText()), stamp: `v${open.version}` };
    const abs = path.join(vaultDir, ...relPath.split('/'));
    try {
      const st = await fsp.stat(abs);
      const stamp = `${st.mtimeMs}:${st.size}`;
      const hit = scanCache.get(relPath);
      if (hit && hit.stamp === stamp) return hit;
      const text = await fsp.readFile(abs, 'utf8');
      const s = { doc: TextDocument.create(uriOf(relPath), 'markdown', 0, text), links: scanWikilinks(text), stamp };
      scanCache.set(relPath, s);
      return s;
    } catch {
      scanCache.delete(relPath);
      return undefined;
    }
  }

  const rangeOf = (doc: TextDocument, start: number, end: number): Range => ({ start: doc.positionAt(start), end: doc.positionAt(end) });

  // ---------------------------------------------------------------- diagnostics

  function validate(doc: TextDocument): void {
    const relPath = relPathOf(doc.uri);
    if (!relPath) return;
    const text = doc.getText();
    const diagnostics: Diagnostic[] = noteDiagnostics(relPath, text).map((d) => ({
      range: { start: { line: d.line, character: d.startChar }, end: { line: d.line, character: d.endChar } },
      severity: d.severity as DiagnosticSeverity, code: d.code, source: DIAGNOSTIC_SOURCE, message: d.message,
    }));
    // Broken links only once the note list is known: before that every link would look broken.
    if (notesKnown) {
      const from = noteId(relPath);
      for (const l of scanWikilinks(text)) {
        if (!l.target) continue;
        if (graph.resolve(l.target, from).id) continue;
        diagnostics.push({
          range: rangeOf(doc, l.start, l.end), severity: DiagnosticSeverity.Warning, code: 'broken_link', source: DIAGNOSTIC_SOURCE,
          message: `No note named "${l.target}" in the vault.`,
        });
      }
    }
    void connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics });
  }

  // ---------------------------------------------------------------- link helpers

  /** The note a link points at (its own note for `[[#Heading]]`). */
  function targetOf(link: ScannedLink, fromRel: string): NoteInfo | undefined {
    if (!link.target) return byId.get(noteId(fromRel)) ?? { id: noteId(fromRel), relPath: fromRel, title: '', summary: '' };
    const id = graph.resolve(link.target, noteId(fromRel)).id;
    return id ? byId.get(id) : undefined;
  }

  function linkUnder(doc: TextDocument, position: { line: number; character: number }): ScannedLink | undefined {
    return linkAt(scanWikilinks(doc.getText()), doc.offsetAt(position));
  }

  /** The shortest text that links to `n` from `fromId`: its name when that resolves to it, else its path. */
  function linkTextOf(n: NoteInfo, fromId: string | undefined): string {
    const name = n.relPath.slice(n.relPath.lastIndexOf('/') + 1).replace(/\.md$/i, '');
    const r = graph.resolve(name, fromId);
    return r.id === n.id && r.candidates.length === 1 ? name : n.relPath.replace(/\.md$/i, '');
  }

  // ---------------------------------------------------------------- handlers

  connection.onInitialize((params): InitializeResult => {
    const opts = params.initializationOptions as Partial<MemoryServerInitOptions> | undefined;
    vaultDir = typeof opts?.vaultDir === 'string' && opts.vaultDir ? path.resolve(opts.vaultDir) : '';
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        completionProvider: { triggerCharacters: ['['] },
        definitionProvider: true,
        referencesProvider: true,
        hoverProvider: true,
      },
      serverInfo: { name: 'memory-vault' },
    };
  });

  connection.onInitialized(() => { void loadNotes(); });
  connection.onNotification(NOTES_CHANGED_NOTIFICATION, () => { void loadNotes(); });

  documents.onDidChangeContent((e) => validate(e.document));
  documents.onDidClose((e) => { void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] }); });

  connection.onCompletion(async (params): Promise<CompletionItem[]> => {
    const doc = documents.get(params.textDocument.uri);
    const relPath = doc && relPathOf(doc.uri);
    if (!doc || !relPath) return [];
    const { line, character } = params.position;
    const lineText = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).replace(/\r?\n$/, '');
    const ctx = linkPrefixAt(lineText, character);
    if (!ctx) return [];
    await ready;
    const self = noteId(relPath);
    const range: Range = { start: { line, character: ctx.start }, end: { line, character } };
    return notes.filter((n) => n.id !== self).map((n): CompletionItem => {
      const text = linkTextOf(n, self);
      return {
        label: text, kind: CompletionItemKind.File, detail: n.relPath,
        documentation: n.summary ? { kind: MarkupKind.PlainText, value: n.summary } : undefined,
        filterText: text, sortText: n.relPath,
        textEdit: { range, newText: ctx.closed ? text : `${text}]]` },
      };
    });
  });

  connection.onDefinition(async (params): Promise<Location | null> => {
    const doc = documents.get(params.textDocument.uri);
    const relPath = doc && relPathOf(doc.uri);
    if (!doc || !relPath) return null;
    const link = linkUnder(doc, params.position);
    if (!link) return null;
    await ready;
    const target = targetOf(link, relPath);
    if (!target) return null;
    let range: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    if (link.heading) {
      const s = await scanned(target.relPath);
      const at = s ? findHeading(s.doc.getText(), link.heading) : undefined;
      if (s && at !== undefined) range = rangeOf(s.doc, at, at);
    }
    return { uri: link.target ? uriOf(target.relPath) : doc.uri, range };
  });

  connection.onReferences(async (params): Promise<Location[]> => {
    const doc = documents.get(params.textDocument.uri);
    const relPath = doc && relPathOf(doc.uri);
    if (!doc || !relPath) return [];
    await ready;
    // On a link: the linked note's backlinks; elsewhere: this note's.
    const link = linkUnder(doc, params.position);
    const target = link?.target ? targetOf(link, relPath) : { id: noteId(relPath), relPath };
    if (!target) return [];
    const out: Location[] = [];
    for (const n of notes) {
      const s = await scanned(n.relPath);
      if (!s) continue;
      for (const l of s.links) {
        if (!l.target) continue;
        if (graph.resolve(l.target, n.id).id === target.id) out.push({ uri: uriOf(n.relPath), range: rangeOf(s.doc, l.start, l.end) });
      }
    }
    log('references', { count: out.length });
    return out;
  });

  connection.onHover(async (params): Promise<Hover | null> => {
    const doc = documents.get(params.textDocument.uri);
    const relPath = doc && relPathOf(doc.uri);
    if (!doc || !relPath) return null;
    const { line, character } = params.position;
    const lineText = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).replace(/\r?\n$/, '');
    const mem = memoryIdAt(lineText, character);
    if (mem) {
      const d = await connection.sendRequest<DescribeResponse>(DESCRIBE_REQUEST, { id: mem.id }).catch(() => null);
      return { contents: { kind: MarkupKind.Markdown, value: describeMarkdown(mem.id, d) }, range: { start: { line, character: mem.start }, end: { line, character: mem.end } } };
    }
    const link = linkUnder(doc, params.position);
    if (!link || !link.target) return null;
    await ready;
    const target = targetOf(link, relPath);
    const value = target
      ? `**${escapeMd(target.relPath)}**${target.summary ? `\n\n${escapeMd(target.summary)}` : ''}`
      : `No note named **${escapeMd(link.target)}** in the vault.`;
    return { contents: { kind: MarkupKind.Markdown, value }, range: rangeOf(doc, link.start, link.end) };
  });

  documents.listen(connection);
  connection.listen();
  return { ready };
}

/** Escapes Markdown so note text renders as text (no links, images or HTML from a summary). */
export function escapeMd(s: string): string {
  return s.replace(/[\\`*_{}[\]()#!|<>~]/g, (c) => `\\${c}`)
    // A list or quote marker only means something at the start: `- x`, `+ x`, `1. x`.
    .replace(/^(\s*)([-+])(?=\s)/, '$1\\$2').replace(/^(\s*\d+)([.)])(?=\s)/, '$1\\$2');
}

export function describeMarkdown(id: string, d: DescribeResponse): string {
  if (!d) return `\`${id.replace(/`/g, '')}\` — no memory has this id.`;
  const kind = d.subkind ? `${d.kind} (${d.subkind})` : d.kind;
  const head = `\`${d.id.replace(/`/g, '')}\` — ${escapeMd(kind)} · trust ${escapeMd(d.trust)} · created ${escapeMd(d.created.slice(0, 10))}`;
  if (d.withheld) return `${head}\n\n*Text withheld: ${d.withheld === 'secret' ? 'contains secrets' : 'quarantined'}.*`;
  return d.summary ? `${head}\n\n${escapeMd(d.summary)}` : head;
}

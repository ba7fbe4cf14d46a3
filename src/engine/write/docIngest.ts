// Document ingestion (SPEC R-WRITE-8; `Memory: Load document…`, `memory_load_doc`): a Markdown document
// becomes pinned doc items (`dc:`), one per heading section, titled by its section path. Idempotent:
// a section's id comes from (document, section path, occurrence) and its content hash decides whether
// it changed, so re-loading writes only added/changed sections and deletes removed ones — an unchanged
// section is not written, hence not re-indexed and not re-embedded. Bad input is refused before any write.
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { MemoryError } from '../errors';
import type { Clock, Logger } from '../host';
import type { Item, ItemInput } from '../store/repositories';
import type { Store } from '../store/store';
import type { Trust } from '../types';
import { contentHash } from './rawCodec';
import { detectSecrets } from './mask';
import { gate, GateResult } from './poisonGate';

export interface DocIngestDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
}

export interface LoadDocumentInput {
  /** A Markdown file to read; or give `text`, or `file`. */
  path?: string;
  text?: string;
  /**
   * A file the caller read itself (VS Code reads workspace files through vscode.workspace.fs, so remote and
   * virtual folders work): `name` is its key (an absolute path, or a URI for a file not on this machine).
   */
  file?: { name: string; bytes: Uint8Array };
  /** Names the document (required with `text` when it has no heading); defaults to the file name. */
  title?: string;
  project?: string;
  /** Default 'ingested': a loaded document is third-party text unless the caller says the owner wrote it. */
  trust?: Extract<Trust, 'owner' | 'ingested' | 'peer'>;
}

export interface LoadDocumentResult {
  /** The document key (absolute path, or `text:<title>`); re-loading the same key updates in place. */
  document: string;
  ids: string[];
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  /** Sections tagged contains-secrets (kept, never embedded or recalled). */
  secret: number;
}

/** 5 MB (R-WRITE-8 bad-input rule): larger documents are refused rather than half-loaded. */
export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;
// Heading depth that starts a section: all ATX levels (# … ######).
const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/;
const FENCE = /^(\s{0,3})(`{3,}|~{3,})/;
const SECRET_CLASSES = new Set(['api_key', 'private_key', 'password']);
export const DOC_SECRETS_TAG = 'contains-secrets';
// Control characters other than tab/newline/CR/form feed in more than 1 % of the text = not a text document.
const CONTROL_SHARE_MAX = 0.01;

export interface DocSection {
  /** Headings from the top, e.g. ['Guide', 'Install', 'Linux']; [] for the preamble. */
  headings: string[];
  /** The section's Markdown, its heading line included. */
  text: string;
}

/** Loads (or re-loads) a Markdown document as pinned doc items. All changes are one transaction. */
export async function loadDocument(deps: DocIngestDeps, input: LoadDocumentInput): Promise<LoadDocumentResult> {
  const { text, document, docTitle, source } = await readInput(input);
  const trust: Trust = input.trust ?? 'ingested';
  if (!['owner', 'ingested', 'peer'].includes(trust)) throw new MemoryError('E_BAD_INPUT', 'trust must be owner, ingested or peer');
  if (input.project !== undefined && (typeof input.project !== 'string' || input.project.length > 200)) {
    throw new MemoryError('E_BAD_INPUT', 'project must be text of at most 200 characters');
  }
  const sections = splitSections(text).filter((s) => s.text.trim().length > 0);
  if (sections.length === 0) throw new MemoryError('E_BAD_INPUT', 'the document has no text');

  const now = deps.clock.now();
  const docHash = createHash('sha256').update(document).digest('hex').slice(0, 16);
  const existing = new Map<string, Item>();
  deps.store.items.forEach({ kind: 'doc' }, (it) => { if (it.meta.doc === document) existing.set(it.id, it); });

  const occurrences = new Map<string, number>();
  const writes: ItemInput[] = [];
  const res: LoadDocumentResult = { document, ids: [], added: 0, updated: 0, unchanged: 0, removed: 0, secret: 0 };
  sections.forEach((sec, order) => {
    const titlePath = [docTitle, ...sec.headings].join(' › ');
    const n = occurrences.get(titlePath) ?? 0;
    occurrences.set(titlePath, n + 1);
    const id = `dc:${docHash}-${createHash('sha256').update(`${titlePath}\u0000${n}`).digest('hex').slice(0, 16)}`;
    const hash = contentHash(sec.text);
    const secret = detectSecrets(sec.text).classes.some((c) => SECRET_CLASSES.has(c));
    const verdict = sectionVerdict(sec.text);
    const itemTrust: Trust = verdict.verdict === 'reject' ? 'quarantined' : trust;
    if (secret) res.secret++;
    res.ids.push(id);
    const prev = existing.get(id);
    const same = prev && prev.contentHash === hash && prev.title === titlePath && prev.trust === itemTrust
      && prev.project === (input.project ?? null) && prev.meta.order === order;
    if (same) { res.unchanged++; return; }
    if (prev) res.updated++;
    else res.added++;
    writes.push({
      id, kind: 'doc', subkind: 'section', text: sec.text, title: titlePath, trust: itemTrust,
      prevTrust: verdict.verdict === 'reject' ? trust : null, untrusted: verdict.verdict === 'untrusted', secret, pinned: true,
      tags: secret ? [DOC_SECRETS_TAG] : [], project: input.project ?? null, created: prev?.created ?? now, updated: now,
      validFrom: prev?.validFrom ?? now, contentHash: hash, sourceType: 'document', entryPath: 'import', importance: 0.6,
      meta: {
        doc: document, order, headings: sec.headings, ...(source ? { source } : {}),
        ...(verdict.verdict === 'pass' ? {} : { gate: verdict.detector, verdict: verdict.verdict }),
      },
    });
  });
  const keep = new Set(res.ids);
  const removedIds = [...existing.keys()].filter((id) => !keep.has(id));
  res.removed = removedIds.length;

  if (writes.length || removedIds.length) {
    await deps.store.transaction((tx) => {
      for (const w of writes) tx.items.put(w);
      for (const id of removedIds) { tx.items.delete(id); tx.itemSources.remove(id); }
      tx.audit.add({ at: now, action: 'load_document', itemId: null, detail: { added: res.added, updated: res.updated, removed: res.removed, unchanged: res.unchanged } });
    });
  }
  deps.logger.info('doc.loaded', { doc: docHash, sections: sections.length, added: res.added, updated: res.updated, unchanged: res.unchanged, removed: res.removed, secret: res.secret });
  return res;
}

const RANK: Record<GateResult['verdict'], number> = { pass: 0, untrusted: 1, reject: 2 };

/**
 * A section's verdict: the stricter of the gate's on the section and on its body without the heading line (gate10: a
 * neutral heading such as "## Notes" lowered a classifier-only reject to `untrusted`; the heading is a label, it must
 * not dilute what follows it).
 */
function sectionVerdict(text: string): GateResult {
  const whole = gate(text);
  const m = /^#{1,6}[ \t][^\n]*\n/.exec(text);
  if (!m || whole.verdict === 'reject') return whole;
  const body = gate(text.slice(m[0].length));
  return RANK[body.verdict] > RANK[whole.verdict] ? body : whole;
}

/**
 * Splits Markdown into heading sections (ATX headings outside fenced code; YAML front matter dropped).
 * Text before the first heading is a section with no headings.
 */
export function splitSections(markdown: string): DocSection[] {
  const lines = stripFrontMatter(markdown).split(/\r?\n/);
  const out: DocSection[] = [];
  const stack: { level: number; text: string }[] = [];
  let cur: DocSection = { headings: [], text: '' };
  let buf: string[] = [];
  let fence: string | null = null;
  const close = () => {
    cur.text = buf.join('\n').replace(/\s+$/, '');
    out.push(cur);
  };
  for (const line of lines) {
    const f = FENCE.exec(line);
    if (f) {
      const marker = f[2]!;
      if (fence === null) fence = marker[0]!.repeat(marker.length);
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      buf.push(line);
      continue;
    }
    const h = fence === null ? HEADING.exec(line) : null;
    if (!h) { buf.push(line); continue; }
    close();
    const level = h[1]!.length;
    while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, text: h[2]!.trim() });
    cur = { headings: stack.map((s) => s.text), text: '' };
    buf = [line];
  }
  close();
  return out;
}

function stripFrontMatter(s: string): string {
  if (!/^---\r?\n/.test(s)) return s;
  const end = s.slice(4).search(/\r?\n---[ \t]*(\r?\n|$)/);
  if (end === -1) return s;
  const rest = s.slice(4 + end).replace(/^\r?\n---[ \t]*/, '');
  return rest.replace(/^\r?\n/, '');
}

async function readInput(input: LoadDocumentInput): Promise<{ text: string; document: string; docTitle: string; source: string | null }> {
  if (!input || typeof input !== 'object') throw new MemoryError('E_BAD_INPUT', 'give a document path or its text');
  if ([input.path, input.text, input.file].filter((v) => v !== undefined).length !== 1) throw new MemoryError('E_BAD_INPUT', 'give exactly one of: a document path, its text, or a file read by the caller');
  if (input.title !== undefined && (typeof input.title !== 'string' || !input.title.trim() || input.title.length > 300)) {
    throw new MemoryError('E_BAD_INPUT', 'the document title must be text of 1–300 characters');
  }
  let text: string;
  let document: string;
  let fallbackTitle: string | null;
  let source: string | null = null;
  if (input.file !== undefined) {
    const f = input.file;
    if (!f || typeof f.name !== 'string' || !f.name || f.name.length > 2000 || !(f.bytes instanceof Uint8Array)) {
      throw new MemoryError('E_BAD_INPUT', 'a document file needs its name and its bytes');
    }
    if (f.bytes.length > MAX_DOCUMENT_BYTES) throw tooLarge(f.bytes.length);
    text = decodeDocument(Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength));
    document = f.name;
    source = f.name;
    const last = f.name.replace(/[?#].*$/, '').split(/[\\/]/).pop() ?? '';
    let base = last;
    try { base = decodeURIComponent(last); } catch { /* a name with a bare % is kept as written */ }
    fallbackTitle = base.replace(/\.(md|markdown|mdx|txt)$/i, '') || null;
  } else if (input.path !== undefined) {
    if (typeof input.path !== 'string' || !input.path) throw new MemoryError('E_BAD_INPUT', 'the document path must be text');
    const abs = path.resolve(input.path);
    let size: number;
    try {
      const st = await fsp.stat(abs);
      if (!st.isFile()) throw new MemoryError('E_BAD_INPUT', 'the document path is not a file');
      size = st.size;
    } catch (e) {
      if (e instanceof MemoryError) throw e;
      throw new MemoryError('E_NOT_FOUND', 'the document file cannot be read');
    }
    if (size > MAX_DOCUMENT_BYTES) throw tooLarge(size);
    const bytes = await fsp.readFile(abs);
    if (bytes.length > MAX_DOCUMENT_BYTES) throw tooLarge(bytes.length);
    text = decodeDocument(bytes);
    document = abs;
    source = abs;
    fallbackTitle = path.basename(abs).replace(/\.(md|markdown|mdx|txt)$/i, '');
  } else {
    if (typeof input.text !== 'string') throw new MemoryError('E_BAD_INPUT', 'the document text must be a string');
    if (input.text.length > MAX_DOCUMENT_BYTES || Buffer.byteLength(input.text, 'utf8') > MAX_DOCUMENT_BYTES) throw tooLarge(Buffer.byteLength(input.text, 'utf8'));
    if (/\p{Cs}/u.test(input.text)) throw new MemoryError('E_BAD_INPUT', 'the document text is not valid Unicode (lone surrogate)');
    text = input.text;
    checkTextual(text);
    fallbackTitle = splitSections(text).find((s) => s.headings.length)?.headings[0] ?? null;
    const t = input.title?.trim() ?? fallbackTitle;
    if (!t) throw new MemoryError('E_BAD_INPUT', 'a document given as text needs a title (or a heading)');
    document = `text:${t}`;
  }
  if (!text.trim()) throw new MemoryError('E_BAD_INPUT', 'the document is empty');
  const docTitle = input.title?.trim() || fallbackTitle || 'Document';
  return { text, document, docTitle, source };
}

function tooLarge(bytes: number): MemoryError {
  return new MemoryError('E_TOO_LARGE', `the document is ${(bytes / 1048576).toFixed(1)} MB; documents of at most 5 MB can be loaded`, { bytes });
}

/** Strict UTF-8 (a BOM is dropped); binary files are refused. */
function decodeDocument(bytes: Buffer): string {
  if (bytes.includes(0)) throw new MemoryError('E_BAD_INPUT', 'the document looks binary (NUL bytes), not Markdown text');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new MemoryError('E_BAD_INPUT', 'the document is not valid UTF-8 text');
  }
  checkTextual(text);
  return text;
}

function checkTextual(text: string): void {
  if (text.includes('\u0000')) throw new MemoryError('E_BAD_INPUT', 'the document looks binary (NUL characters), not Markdown text');
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) control++;
  }
  if (control > Math.max(4, text.length * CONTROL_SHARE_MAX)) throw new MemoryError('E_BAD_INPUT', 'the document looks binary (control characters), not Markdown text');
}

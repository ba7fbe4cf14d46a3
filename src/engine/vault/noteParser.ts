// Parses one vault note (Markdown + YAML frontmatter) into a plain record; never throws on content.
// Invariants: bad input (malformed YAML, binary, >1 MB, invalid UTF-8) becomes a `problems` entry and
// loses nothing; frontmatter `trust` can only lower the level; a note is never `user` by default.
// Frontmatter is split here (line-anchored `---`) and only YAML is parsed — gray-matter's `---js`
// engine would eval note text, so it is never reached.
import matter from 'gray-matter';
import { MemoryError } from '../errors';
import { NOTE_KINDS, TRUST_LEVELS, lowerTrust, trustRank, type NoteKind, type Trust } from '../types';
import { VAULT_DIRS, noteId, scopeOfPath } from './vaultLayout';

/** 1 MiB: notes are hand-sized; anything larger is an attachment or a mistake (SPEC R-SEC-1). */
export const MAX_NOTE_BYTES = 1024 * 1024;
/** 280 chars: a summary line must fit one recall-block row. */
export const MAX_SUMMARY_CHARS = 280;
export const SECRETS_TAG = 'contains-secrets';

export type NoteProblemCode =
  | 'malformed_frontmatter'
  | 'unknown_kind'
  | 'unknown_trust'
  | 'trust_raise_ignored'
  | 'bad_field'
  | 'invalid_utf8'
  | 'binary'
  | 'too_large';

export interface NoteProblem { code: NoteProblemCode; message: string }

export interface NoteOrigin { by?: string; provider?: string; model?: string; conversation?: string }

export interface WikiLink {
  /** Link target as written, without heading or alias (`folder/Note`). */
  target: string;
  heading?: string;
  alias?: string;
  embed: boolean;
  /** 0-based line in the body. */
  line: number;
}

export interface ParsedNote {
  id: string;
  relPath: string;
  /** True for binary or oversized files: nothing else is meaningful. */
  skipped: boolean;
  hasFrontmatter: boolean;
  /** Frontmatter as parsed ({} when missing or malformed). */
  frontmatter: Record<string, unknown>;
  body: string;
  kind: NoteKind;
  summary: string;
  tags: string[];
  project?: string;
  projectType?: string;
  trust: Trust;
  origin?: NoteOrigin;
  pinned: boolean;
  containsSecrets: boolean;
  links: WikiLink[];
  problems: NoteProblem[];
}

export interface ParseNoteOptions {
  /** The caller's index knows this note was captured (R-MEM-4: stays derived without `origin`). */
  knownDerived?: boolean;
  maxBytes?: number;
}

/** `origin.by` values that mark a model-written note. */
const DERIVED_ORIGINS = new Set(['capture', 'consolidation', 'team', 'agent']);
const DERIVED_TAG = 'auto-consolidated';

// ---------- decoding ----------

/** NUL bytes or >10% control characters in the first 8 KiB: not a text note. */
export function looksBinary(buf: Uint8Array): boolean {
  const n = Math.min(buf.length, 8192);
  let ctrl = 0;
  for (let i = 0; i < n; i++) {
    const b = buf[i];
    if (b === 0) return true;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12) ctrl++;
  }
  return n > 0 && ctrl / n > 0.1;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const lenientDecoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

// gray-matter's YAML engine (js-yaml safeLoad: no custom types, no code). Not in its typings.
const yamlParse = (matter as unknown as { engines: { yaml: { parse(s: string): unknown } } }).engines.yaml.parse;

// ---------- frontmatter split ----------

interface Split { fm: string | null; body: string; fmEnd: number }

const FM_RE = /^---[ \t]*\r?\n([\s\S]*?)^---[ \t]*(?:\r?\n|$)/my;

/** Splits a leading `---` … `---` block. An unclosed block is not frontmatter (the body keeps it). */
export function splitFrontmatter(text: string): Split {
  FM_RE.lastIndex = 0;
  const m = FM_RE.exec(text);
  if (!m) return { fm: null, body: text, fmEnd: 0 };
  return { fm: m[1], body: text.slice(m[0].length), fmEnd: m[0].length };
}

// ---------- code masking (links and tags never come from code) ----------

/** Replaces fenced blocks, inline code and HTML comments by spaces, keeping offsets and newlines. */
export function blankCode(text: string): string {
  const lines = text.split('\n');
  let fence: { ch: string; len: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*\r?$/.exec(line);
      if (close && close[1][0] === fence.ch && close[1].length >= fence.len) fence = null;
      lines[i] = blank(line);
      continue;
    }
    if (m) { fence = { ch: m[1][0], len: m[1].length }; lines[i] = blank(line); }
  }
  let out = lines.join('\n');
  out = out.replace(/<!--[\s\S]*?(?:-->|$)/g, blank);
  out = out.replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)|(`+)(?!`)\2/g, blank);
  return out;
}

function blank(s: string): string {
  return s.replace(/[^\n\r]/g, ' ');
}

// ---------- wikilinks ----------

const WIKILINK_RE = /(!?)\[\[([^[\]\n]+?)\]\]/g;

export function extractWikilinks(body: string): WikiLink[] {
  const clean = blankCode(body);
  const out: WikiLink[] = [];
  let lineStarts: number[] | null = null;
  WIKILINK_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = WIKILINK_RE.exec(clean))) {
    let inner = m[2];
    let alias: string | undefined;
    const bar = inner.search(/\\?\|/);
    if (bar >= 0) {
      alias = inner.slice(inner.indexOf('|', bar) + 1).trim() || undefined;
      inner = inner.slice(0, bar);
    }
    let heading: string | undefined;
    const hash = inner.indexOf('#');
    if (hash >= 0) {
      heading = inner.slice(hash + 1).trim() || undefined;
      inner = inner.slice(0, hash);
    }
    const target = inner.trim();
    if (!target) continue; // `[[#Heading]]` points inside the same note
    lineStarts ??= computeLineStarts(clean);
    out.push({ target, heading, alias, embed: m[1] === '!', line: lineOf(lineStarts, m.index) });
  }
  return out;
}

function computeLineStarts(s: string): number[] {
  const starts = [0];
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}
function lineOf(starts: number[], offset: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// ---------- tags ----------

// A tag starts after whitespace or line start (so URLs' `#frag` and `[x](y#z)` are not tags),
// has no space after `#` (so `# Title` is a heading) and at least one non-digit (Obsidian rule).
const BODY_TAG_RE = /(?<=^|[\s(,;])#([\p{L}\p{N}_\-/]*[\p{L}_\-/][\p{L}\p{N}_\-/]*)/gmu;

export function normalizeTag(t: string): string {
  return t.trim().replace(/^#+/, '').toLowerCase();
}

export function extractBodyTags(body: string): string[] {
  const clean = blankCode(body);
  const out: string[] = [];
  BODY_TAG_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = BODY_TAG_RE.exec(clean))) {
    const t = normalizeTag(m[1].replace(/\/+$/, ''));
    if (t) out.push(t);
  }
  return out;
}

function frontmatterTags(v: unknown, problems: NoteProblem[]): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.filter((x) => typeof x === 'string' || typeof x === 'number').map((x) => normalizeTag(String(x))).filter(Boolean);
  if (typeof v === 'string') return v.split(/[,\s]+/).map(normalizeTag).filter(Boolean);
  problems.push({ code: 'bad_field', message: 'tags must be a list or a comma-separated string' });
  return [];
}

// ---------- summary ----------

const HR_RE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

/** First real line of the body: not blank, not a rule, not code or a comment; heading text counts. */
export function firstRealLine(body: string): string | undefined {
  const clean = blankCode(body);
  const lines = clean.split('\n');
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    if (!line.trim() || HR_RE.test(line)) continue;
    const text = line
      .replace(/^\s{0,3}#{1,6}\s+/, '')
      .replace(/\s+#+\s*$/, '')
      .replace(/^\s*>\s?/, '')
      .replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, '')
      .trim();
    if (text) return text;
  }
  return undefined;
}

export function capSummary(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  if (one.length <= MAX_SUMMARY_CHARS) return one;
  const cut = one.slice(0, MAX_SUMMARY_CHARS - 1);
  const sp = cut.lastIndexOf(' ');
  return (sp > MAX_SUMMARY_CHARS / 2 ? cut.slice(0, sp) : cut) + '…';
}

// ---------- parse ----------

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() || undefined;
  if (typeof v === 'number') return String(v);
  return undefined;
}

function skippedNote(relPath: string, problem: NoteProblem): ParsedNote {
  return {
    id: noteId(relPath), relPath, skipped: true, hasFrontmatter: false, frontmatter: {}, body: '',
    kind: defaultKind(relPath), summary: '', tags: [], trust: 'owner', pinned: false, containsSecrets: false,
    links: [], problems: [problem],
  };
}

export function defaultKind(relPath: string): NoteKind {
  return relPath.split('/')[0] === VAULT_DIRS.procedural ? 'feedback' : 'reference';
}

function baseName(relPath: string): string {
  const b = relPath.slice(relPath.lastIndexOf('/') + 1);
  return b.replace(/\.md$/i, '');
}

export function parseNote(relPath: string, content: string | Uint8Array, opts: ParseNoteOptions = {}): ParsedNote {
  const problems: NoteProblem[] = [];
  const maxBytes = opts.maxBytes ?? MAX_NOTE_BYTES;
  let text: string;
  if (typeof content === 'string') {
    if (Buffer.byteLength(content, 'utf8') > maxBytes) return skippedNote(relPath, { code: 'too_large', message: `note larger than ${maxBytes} bytes` });
    if (content.includes('\0')) return skippedNote(relPath, { code: 'binary', message: 'note contains NUL characters' });
    text = content;
  } else {
    if (content.length > maxBytes) return skippedNote(relPath, { code: 'too_large', message: `note larger than ${maxBytes} bytes` });
    if (looksBinary(content)) return skippedNote(relPath, { code: 'binary', message: 'note looks like a binary file' });
    try {
      text = strictDecoder.decode(content);
    } catch {
      text = lenientDecoder.decode(content);
      problems.push({ code: 'invalid_utf8', message: 'invalid UTF-8 replaced by U+FFFD' });
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);

  const split = splitFrontmatter(text);
  let fm: Record<string, unknown> = {};
  if (split.fm !== null) {
    try {
      const data: unknown = split.fm.trim() === '' ? {} : yamlParse(split.fm);
      if (data === null || data === undefined) fm = {};
      else if (typeof data === 'object' && !Array.isArray(data)) fm = data as Record<string, unknown>;
      else problems.push({ code: 'malformed_frontmatter', message: 'frontmatter is not a key/value map' });
    } catch (e) {
      const mark = (e as { mark?: { line?: number } }).mark;
      problems.push({ code: 'malformed_frontmatter', message: `frontmatter YAML does not parse${mark?.line !== undefined ? ` (line ${mark.line + 2})` : ''}` });
    }
  }
  const body = split.body;

  // kind
  let kind = defaultKind(relPath);
  if (fm.kind !== undefined) {
    const k = typeof fm.kind === 'string' ? fm.kind.trim().toLowerCase() : '';
    if ((NOTE_KINDS as readonly string[]).includes(k)) kind = k as NoteKind;
    else problems.push({ code: 'unknown_kind', message: `unknown kind; using ${kind}` });
  }

  // origin
  let origin: NoteOrigin | undefined;
  if (fm.origin !== undefined && fm.origin !== null) {
    if (typeof fm.origin === 'object' && !Array.isArray(fm.origin)) {
      const o = fm.origin as Record<string, unknown>;
      origin = { by: str(o.by)?.toLowerCase(), provider: str(o.provider), model: str(o.model), conversation: str(o.conversation) };
    } else if (typeof fm.origin === 'string') {
      origin = { by: fm.origin.trim().toLowerCase() };
    } else problems.push({ code: 'bad_field', message: 'origin must be a map' });
  }

  // tags
  const tags: string[] = [];
  for (const t of [...frontmatterTags(fm.tags, problems), ...extractBodyTags(body)]) if (!tags.includes(t)) tags.push(t);

  // trust: the base comes from who wrote the note; frontmatter may only lower it.
  const derived = opts.knownDerived === true || (origin?.by !== undefined && DERIVED_ORIGINS.has(origin.by)) || tags.includes(DERIVED_TAG);
  let trust: Trust = derived ? 'derived' : 'owner';
  if (fm.trust !== undefined) {
    const t = typeof fm.trust === 'string' ? fm.trust.trim().toLowerCase() : '';
    if ((TRUST_LEVELS as readonly string[]).includes(t)) {
      if (trustRank(t as Trust) < trustRank(trust)) problems.push({ code: 'trust_raise_ignored', message: `trust can only be lowered; stays ${trust}` });
      trust = lowerTrust(trust, t as Trust);
    } else problems.push({ code: 'unknown_trust', message: `unknown trust; stays ${trust}` });
  }

  // scope: frontmatter decides; the folder is the fallback (R-MEM-5)
  let project = str(fm.project);
  let projectType = str(fm.projectType) ?? str(fm['project-type']) ?? str(fm.project_type);
  if (!project && !projectType) ({ project, projectType } = scopeOfPath(relPath));
  if (project) projectType = undefined;

  const summary = capSummary(str(fm.summary) ?? firstRealLine(body) ?? baseName(relPath));
  const pinned = fm.pinned === true || fm.pinned === 'true' || fm.pinned === 'yes';

  return {
    id: noteId(relPath), relPath, skipped: false, hasFrontmatter: split.fm !== null, frontmatter: fm, body,
    kind, summary, tags, project, projectType, trust, origin, pinned,
    containsSecrets: tags.includes(SECRETS_TAG), links: extractWikilinks(body), problems,
  };
}

// ---------- writing helpers ----------

/** Stable key order: the fields people read first, then the rest alphabetically. */
const KEY_ORDER = ['kind', 'summary', 'tags', 'project', 'projectType', 'trust', 'pinned', 'origin'];

function ordered(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keys = Object.keys(data).filter((k) => data[k] !== undefined);
  for (const k of KEY_ORDER) if (keys.includes(k)) out[k] = clean(data[k]);
  for (const k of keys.filter((k) => !KEY_ORDER.includes(k)).sort()) out[k] = clean(data[k]);
  return out;
}
function clean(v: unknown): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== undefined) o[k] = clean(x);
    return o;
  }
  return v;
}

export function serializeNote(note: { frontmatter?: Record<string, unknown>; body: string }): string {
  const data = ordered(note.frontmatter ?? {});
  const body = note.body ?? '';
  if (Object.keys(data).length === 0) {
    // A body starting with `---` would read back as frontmatter; an empty block keeps it body.
    return /^---[ \t]*\r?\n/.test(body) ? `---\n---\n${body}` : body;
  }
  return matter.stringify(body, data);
}

// ---------- ## History ----------

const HISTORY_RE = /^##[ \t]+History[ \t]*\r?$/i;
const SECTION_END_RE = /^#{1,2}[ \t]+\S/;

/**
 * Adds `- YYYY-MM-DD: text` to the note's `## History` section (created at the end when missing).
 * Everything else, including frontmatter and line endings, stays byte-identical.
 */
export function appendHistory(content: string, dateISO: string, text: string): string {
  const day = typeof dateISO === 'string' ? dateISO.slice(0, 10) : '';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new MemoryError('E_BAD_INPUT', 'history date must be YYYY-MM-DD');
  const entry = typeof text === 'string' ? text.replace(/\s+/g, ' ').trim() : '';
  if (!entry) throw new MemoryError('E_BAD_INPUT', 'history text is empty');
  const eol = content.includes('\r\n') ? '\r' : '';
  const bullet = `- ${day}: ${entry}${eol}`;

  const { fmEnd } = splitFrontmatter(content);
  const head = content.slice(0, fmEnd);
  const lines = content.slice(fmEnd).split('\n');
  const code = blankCode(lines.join('\n')).split('\n');
  const h = code.findIndex((l) => HISTORY_RE.test(l));
  if (h < 0) {
    let body = lines.join('\n');
    const nl = eol + '\n';
    if (body.length > 0 && !body.endsWith('\n')) body += nl;
    const sep = body.trim().length === 0 ? '' : nl;
    return head + body + sep + `## History${eol}\n${eol}\n${bullet}\n`;
  }
  let end = lines.length;
  for (let i = h + 1; i < lines.length; i++) if (SECTION_END_RE.test(code[i])) { end = i; break; }
  let last = h;
  for (let i = h + 1; i < end; i++) if (lines[i].trim() !== '') last = i;
  if (last === h) {
    // Empty section: after the heading and its blank line, if there is one.
    const at = h + 1 < lines.length && lines[h + 1].trim() === '' && h + 1 < end ? h + 2 : h + 1;
    lines.splice(at, 0, bullet);
  } else {
    lines.splice(last + 1, 0, bullet);
  }
  // An inserted last line of a file without a final newline keeps it that way.
  return head + lines.join('\n');
}

// Where things sit in a note's text, as offsets: wikilinks (with their target, heading and alias),
// headings, memory ids and the `[[` completion context. Parsing of a link's inside is the engine's
// (noteParser.extractWikilinks), so the server and the index agree on what a link points at.
// Invariants: links inside code, inline code, HTML comments and the frontmatter are never reported.
import { blankCode, extractWikilinks, splitFrontmatter } from '../engine/vault/noteParser';

export interface ScannedLink {
  /** Offsets of the whole `[[…]]` (with a leading `!` for embeds) in the text. */
  start: number;
  end: number;
  /** Target as written (no heading, no alias); '' for `[[#Heading]]` inside the same note. */
  target: string;
  heading?: string;
  alias?: string;
  embed: boolean;
}

/** Same shape as noteParser's link pattern: `[[…]]` on one line, optionally `!`-prefixed. */
const LINK_RE = /(!?)\[\[([^[\]\n]+?)\]\]/g;

/** Offset where the body starts (after a BOM and the frontmatter block). */
export function bodyStart(text: string): number {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  return bom + splitFrontmatter(bom ? text.slice(1) : text).fmEnd;
}

export function scanWikilinks(text: string): ScannedLink[] {
  const from = bodyStart(text);
  const clean = blankCode(text.slice(from));
  const out: ScannedLink[] = [];
  LINK_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = LINK_RE.exec(clean))) {
    const start = from + m.index;
    const end = start + m[0].length;
    const parsed = extractWikilinks(m[0])[0];
    if (parsed) {
      out.push({ start, end, target: parsed.target, heading: parsed.heading, alias: parsed.alias, embed: parsed.embed });
      continue;
    }
    // `[[#Heading]]` / `[[#Heading|alias]]`: extractWikilinks skips it (no target), the editor still navigates it.
    const inner = m[2].trim();
    if (!inner.startsWith('#')) continue;
    const [h, alias] = inner.slice(1).split('|');
    const heading = h.trim();
    if (heading) out.push({ start, end, target: '', heading, alias: alias?.trim() || undefined, embed: m[1] === '!' });
  }
  return out;
}

export function linkAt(links: readonly ScannedLink[], offset: number): ScannedLink | undefined {
  return links.find((l) => offset >= l.start && offset <= l.end);
}

function normHeading(s: string): string {
  return s.replace(/\s+#+\s*$/, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Offset of the start of the heading line named `heading` (case-insensitive), or undefined. */
export function findHeading(text: string, heading: string): number | undefined {
  const from = bodyStart(text);
  const want = normHeading(heading);
  const clean = blankCode(text.slice(from));
  const re = /^ {0,3}#{1,6}[ \t]+(.*?)\r?$/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(clean))) {
    if (normHeading(m[1]) === want) return from + m.index;
  }
  return undefined;
}

/** Memory id prefixes a hover explains (SPEC R-MEM-2). */
const ID_RE = /(?<![\w:/])(?:vt|gs|rw|en|fa|dc|wk):[^\s`'"<>()[\]{}|,;]+/g;

/** The memory id under `character` of one line, with its span; trailing sentence punctuation is not part of it. */
export function memoryIdAt(line: string, character: number): { id: string; start: number; end: number } | undefined {
  ID_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = ID_RE.exec(line))) {
    const id = m[0].replace(/[.:!?]+$/, '');
    const start = m.index;
    const end = start + id.length;
    if (id.length > 3 && character >= start && character <= end) return { id, start, end };
  }
  return undefined;
}

/**
 * The note-name part being typed after `[[` on one line before `character`: its start and text, and
 * whether `]]` already follows the cursor. Undefined outside a link, or once `#` or `|` is typed (a
 * heading or an alias is no note name).
 */
export function linkPrefixAt(line: string, character: number): { start: number; prefix: string; closed: boolean } | undefined {
  const before = line.slice(0, character);
  const open = before.lastIndexOf('[[');
  if (open < 0) return undefined;
  const prefix = before.slice(open + 2);
  if (/[\]#|]/.test(prefix)) return undefined;
  const after = line.slice(character);
  const close = after.indexOf(']]');
  const reopen = after.indexOf('[[');
  return { start: open + 2, prefix, closed: close >= 0 && (reopen < 0 || close < reopen) };
}

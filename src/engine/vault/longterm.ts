// The long-term file (`<vault>/longterm.md`): one short curated note placed in every recall block.
// Invariant: what goes to the recall block is capped at whole lines (a single over-long first line is
// cut at a word and marked `…`); HTML comments (the template's hints) and frontmatter never go out, nor
// the template's title or headings with nothing under them — a file with only those is empty (no block).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LONGTERM_FILE } from './vaultLayout';
import { splitFrontmatter } from './noteParser';

/** 1,200 chars: the long-term file shares the recall block with the durable index and the hits. */
export const LONGTERM_MAX_CHARS = 1200;
/** 64 KiB: more than any curated file needs; a bigger one is read only this far. */
const READ_LIMIT_BYTES = 64 * 1024;

export const LONGTERM_TEMPLATE = [
  '# Long-term memory',
  '',
  '<!-- Short, curated facts placed in every memory recall block: who you are, how you like to work.',
  `     Keep it brief: only the first ${LONGTERM_MAX_CHARS.toLocaleString('en-US')} characters are used. -->`,
  '',
].join('\n');

export interface LongtermRead {
  path: string;
  /** What goes into the recall block (capped). */
  text: string;
  truncated: boolean;
  created: boolean;
}

const HEADING = /^(#{1,6})\s/;
/** The template's own title: the block already labels the section "Long-term", so it is never sent. */
const TEMPLATE_TITLE = /^#\s+long-term memory\s*$/i;

/**
 * Drops headings with no text under them (before the next heading of the same or a higher level) and the
 * template's title line, so an untouched template — or a skeleton of empty sections — says nothing.
 */
export function dropEmptySections(body: string): string {
  const lines = body.split('\n');
  // Heading level per line; 0 for text and for anything inside a ``` / ~~~ fence (a "# comment" there is code).
  let fence = false;
  const levels = lines.map((l) => {
    if (/^\s*(```|~~~)/.test(l)) { fence = !fence; return 0; }
    return fence ? 0 : HEADING.exec(l)?.[1]!.length ?? 0;
  });
  const level = (_l: string, i: number) => levels[i]!;
  const keep = lines.map((line, i) => {
    const lv = level(line, i);
    if (!lv) return true;
    if (i === lines.findIndex((l) => l.trim() !== '') && TEMPLATE_TITLE.test(line)) return false;
    for (let j = i + 1; j < lines.length; j++) {
      const lj = level(lines[j]!, j);
      if (lj && lj <= lv) return false;
      if (!lj && lines[j]!.trim()) return true;
    }
    return false;
  });
  return lines.filter((_, i) => keep[i]).join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

/** Text for the recall block: no frontmatter, no comments, no empty sections, collapsed blank runs, capped at whole lines. */
export function capLongterm(content: string, maxChars = LONGTERM_MAX_CHARS): { text: string; truncated: boolean } {
  const body = dropEmptySections(splitFrontmatter(content.replace(/^\uFEFF/, '')).body
    .replace(/<!--[\s\S]*?(?:-->|$)/g, '')
    .replace(/\r\n/g, '\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim());
  if (body.length <= maxChars) return { text: body, truncated: false };
  const lines = body.split('\n');
  let out = '';
  for (const line of lines) {
    const next = out ? `${out}\n${line}` : line;
    if (next.length > maxChars) break;
    out = next;
  }
  if (!out.trim()) {
    const cut = lines[0].slice(0, maxChars - 1);
    const sp = cut.lastIndexOf(' ');
    out = (sp > maxChars / 2 ? cut.slice(0, sp) : cut) + '…';
  }
  return { text: out.trimEnd(), truncated: true };
}

/** Reads the long-term file, creating it from the template when missing. */
export async function readLongterm(vaultDir: string, opts: { maxChars?: number; create?: boolean } = {}): Promise<LongtermRead> {
  const file = path.join(vaultDir, LONGTERM_FILE);
  let created = false;
  if (opts.create !== false) {
    await fs.promises.mkdir(vaultDir, { recursive: true });
    try {
      await fs.promises.writeFile(file, LONGTERM_TEMPLATE, { flag: 'wx' });
      created = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  let content = '';
  try {
    const fh = await fs.promises.open(file, 'r');
    try {
      const buf = Buffer.alloc(READ_LIMIT_BYTES);
      const { bytesRead } = await fh.read(buf, 0, READ_LIMIT_BYTES, 0);
      // A partial last UTF-8 sequence at the read limit decodes to U+FFFD and is cut off by the cap.
      content = new TextDecoder('utf-8').decode(buf.subarray(0, bytesRead));
    } finally {
      await fh.close();
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (content.includes('\0')) return { path: file, text: '', truncated: false, created };
  const { text, truncated } = capLongterm(content, opts.maxChars ?? LONGTERM_MAX_CHARS);
  return { path: file, text, truncated, created };
}

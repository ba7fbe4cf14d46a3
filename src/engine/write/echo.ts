// No echo (issue #13 point 8): a reply that repeats the recall block — whole, or in fragments — must not be
// saved as new memory, or recalled text comes back next time as a *new* item. Before a reply is saved:
//   1. every `<memory-context>` … `</memory-context>` span (an unclosed one runs to the end) is removed;
//   2. with the block as sent, every reply line that is a line of the block (verbatim after whitespace and
//      quote/list markers, or ≥ 0.9 similar for lines of 24+ chars) is removed, and so is any line in the
//      block's own hit-line syntax `- [id] (kind, trust) …`;
//   3. a stray or cut block tag left in a line (`</memory-context>`, `/memory-context>`) is removed;
//   4. the ids whose block lines were echoed are returned, so the engine reinforces those items instead.
// Pure functions, no I/O. The rest of the reply is kept byte for byte (only removed lines and the blank
// runs they leave are collapsed).
import { BLOCK_CLOSE, BLOCK_OPEN } from '../recall/recallBlock';
import { similarity } from './saveFilter';

export interface EchoStripResult {
  /** The reply without the block and its fragments. */
  text: string;
  /** Characters removed. */
  removedChars: number;
  /** Ids of recalled items whose block text the reply repeated (in block order, unique). */
  echoedIds: string[];
}

const ID_IN_BRACKETS = /\[((?:vt|rw|gs|fa|en|dc|wk):[^\]\s]{1,200})\]/;
/** The block's hit-line / full-text label syntax: unmistakably copied from a block. */
const HIT_LINE = /^\s*(?:[-*]\s+|#{3}\s+)\[(?:vt|rw|gs|fa|en|dc|wk):[^\]\s]+\]\s+\([\w-]+, [\w-]+\)/;
const SIMILAR = 0.9;
const SIMILAR_MIN_CHARS = 24;
const VERBATIM_MIN_CHARS = 12;

function norm(line: string): string {
  return line.replace(/^\s*(?:>\s*)+/, '').replace(/^\s*(?:[-*•+]\s+)/, '').replace(/\s+/g, ' ').trim();
}

interface BlockLine { text: string; id: string | null }

/** The block's content lines with the id of the item each belongs to (a hit line, or the full text under a `###` label). */
function blockLines(block: string): BlockLine[] {
  const out: BlockLine[] = [];
  let current: string | null = null;
  for (const raw of block.split('\n')) {
    const t = raw.trim();
    if (!t || t === BLOCK_OPEN || t === BLOCK_CLOSE) continue;
    if (/^##\s/.test(t)) { current = null; }
    const id = ID_IN_BRACKETS.exec(t)?.[1] ?? null;
    if (/^###\s/.test(t) && id) current = id;
    const n = norm(raw);
    if (n) out.push({ text: n, id: id ?? current });
  }
  return out;
}

/** Removes `<memory-context>` spans; returns the rest and the ids named inside them. */
function stripSpans(text: string): { text: string; ids: string[] } {
  const ids: string[] = [];
  let out = '';
  let i = 0;
  for (;;) {
    const open = text.indexOf(BLOCK_OPEN, i);
    if (open < 0) { out += text.slice(i); break; }
    out += text.slice(i, open);
    const close = text.indexOf(BLOCK_CLOSE, open + BLOCK_OPEN.length);
    const end = close < 0 ? text.length : close + BLOCK_CLOSE.length;
    for (const m of text.slice(open, end).matchAll(new RegExp(ID_IN_BRACKETS, 'g'))) ids.push(m[1]!);
    i = end;
  }
  return { text: out, ids };
}

/** The reply with the recall block and its fragments removed (see the header). `block`: the block as sent, if any. */
export function stripRecallEcho(reply: string, block?: string): EchoStripResult {
  const original = reply;
  const spans = stripSpans(reply);
  const echoed: string[] = [...spans.ids];
  const lines = block ? blockLines(block) : [];
  const whole = lines.map((l) => l.text).join('\n');
  const kept: string[] = [];
  for (const raw of spans.text.split('\n')) {
    const n = norm(raw);
    let drop = false;
    if (n && HIT_LINE.test(raw)) {
      drop = true;
      const id = ID_IN_BRACKETS.exec(raw)?.[1];
      if (id) echoed.push(id);
    } else if (n && lines.length) {
      let match: BlockLine | undefined;
      if (n.length >= VERBATIM_MIN_CHARS && whole.includes(n)) match = lines.find((l) => l.text.includes(n));
      if (!match && n.length >= SIMILAR_MIN_CHARS) match = lines.find((l) => l.text.length >= SIMILAR_MIN_CHARS && similarity(l.text, n, SIMILAR) >= SIMILAR);
      if (match) {
        drop = true;
        if (match.id) echoed.push(match.id);
      }
    }
    if (!drop) kept.push(raw);
  }
  // A stray or cut tag (a fragment such as "/memory-context>") is removed where it stands.
  let text = kept.join('\n').replace(/<?\/?memory-context>/g, '');
  if (text !== original) text = text.replace(/\n{3,}/g, '\n\n').replace(/^\s*\n/, '').replace(/\s+$/, '');
  return { text, removedChars: Math.max(0, original.length - text.length), echoedIds: [...new Set(echoed)] };
}

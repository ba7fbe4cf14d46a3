// Per-turn save filter (SPEC R-WRITE-2): returns the name of the first rule that skips a message, cheapest
// rule first, or null to save it. Pure apart from DedupBuffer, which keeps the last N saves per
// conversation+role; its check-and-push is synchronous, so concurrent (async) saves cannot interleave.
//
// Similarity for `dedup` is the Sørensen–Dice coefficient over character-bigram multisets (not difflib's
// ratio): O(n+m) per pair instead of O(n·m), with an early exit when the two lengths alone cap the score
// at or below the threshold. On near-duplicates it tracks difflib's ratio closely; both are in [0, 1].

import type { EngineSettings } from '../settings';

/** `echo`: the reply only repeated the recall block or restated a recalled item (reinforced instead; echo.ts). */
export type SaveSkipRule = 'empty' | 'length_floor' | 'footnote_dominant' | 'code_dominant' | 'dedup' | 'echo';

export interface SaveCandidate {
  role: string;
  text: string;
  pinned?: boolean;
}

export type SaveFilterSettings = Pick<
  EngineSettings,
  'saveMinChars' | 'saveFootnoteRatio' | 'saveCodeRatio' | 'saveDedupLookback' | 'saveDedupThreshold'
>;

/**
 * The rule that skips `msg`, or null to save it. `recent` holds the previous saves of the same role in the
 * same conversation, oldest first; only the last `saveDedupLookback` are compared.
 * Pinned saves bypass every rule except `empty` (there is nothing to store).
 */
export function evaluateSave(msg: SaveCandidate, recent: readonly string[], settings: SaveFilterSettings): { rule: SaveSkipRule } | null {
  const stripped = (msg.text ?? '').trim();
  if (stripped.length === 0) return { rule: 'empty' };
  if (msg.pinned) return null;

  // Code points, not UTF-16 units: "ü" or an emoji counts once (SPEC: < 50 chars).
  if (codePointsBelow(stripped, settings.saveMinChars)) return { rule: 'length_floor' };

  if (msg.role === 'assistant') {
    const total = stripped.length;
    const fn = footnoteLength(stripped);
    if (fn > 0 && fn / total > settings.saveFootnoteRatio) return { rule: 'footnote_dominant' };
    const code = fencedCodeLength(stripped);
    if (code > 0 && code / total > settings.saveCodeRatio) return { rule: 'code_dominant' };
  }

  const n = settings.saveDedupLookback;
  if (n > 0 && recent.length > 0) {
    const from = Math.max(0, recent.length - n);
    for (let i = recent.length - 1; i >= from; i--) {
      if (similarity(recent[i].trim(), stripped, settings.saveDedupThreshold) > settings.saveDedupThreshold) return { rule: 'dedup' };
    }
  }
  return null;
}

function codePointsBelow(s: string, min: number): boolean {
  if (s.length >= 2 * min) return false; // each code point is at most 2 UTF-16 units
  let n = 0;
  for (const _ of s) if (++n >= min) return false;
  return true;
}

// A footnote/citation/link-reference line: "[^1]: …", "[1]: https://…", "[1] Author, Title", "1. https://…",
// a bare URL, "- [title](https://…)", or a "Sources:"/"References:"/"Quellen:" header.
const FOOTNOTE_LINE =
  /^\s*(?:\[\^?[\w.-]+\]:\s*\S|\[\d+\]\s+\S|\^?\d+[.)]\s+<?https?:\/\/\S+|<?https?:\/\/\S+>?\s*$|[-*•]\s+\[[^\]]+\]\(\s*https?:\/\/[^)]+\)\s*$|(?:sources?|references?|citations?|footnotes?|quellen|források|fuentes|référence?s?)\s*:?\s*$)/iu;

/** Characters (incl. newline) on footnote-like lines. */
export function footnoteLength(text: string): number {
  let n = 0;
  for (const line of text.split('\n')) if (line.trim() && FOOTNOTE_LINE.test(line)) n += line.length + 1;
  return Math.min(n, text.length);
}

/** Characters inside fenced code blocks, fences included; an unclosed fence runs to the end. */
export function fencedCodeLength(text: string): number {
  let n = 0;
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null) {
      if (m) { fence = m[1]; n += line.length + 1; }
    } else {
      n += line.length + 1;
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = null;
    }
  }
  return Math.min(n, text.length);
}

/**
 * Dice coefficient over character-bigram multisets, in [0, 1]. When `threshold` is given and the lengths
 * alone cap the score at or below it, returns that cap without counting bigrams.
 */
export function similarity(a: string, b: string, threshold?: number): number {
  if (a === b) return 1;
  const na = a.length - 1;
  const nb = b.length - 1;
  if (na < 1 || nb < 1) return 0;
  const cap = (2 * Math.min(na, nb)) / (na + nb);
  if (threshold !== undefined && cap <= threshold) return cap;
  const counts = new Map<number, number>();
  for (let i = 0; i < na; i++) {
    const k = a.charCodeAt(i) * 65536 + a.charCodeAt(i + 1);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  let inter = 0;
  for (let i = 0; i < nb; i++) {
    const k = b.charCodeAt(i) * 65536 + b.charCodeAt(i + 1);
    const c = counts.get(k);
    if (c) { inter++; counts.set(k, c - 1); }
  }
  return (2 * inter) / (na + nb);
}

/**
 * The last N saves per conversation and role. `admit` runs the filter and records a kept message in one
 * synchronous step, so two saves racing through async code can never both pass as "not a duplicate".
 * Bounded: at most `maxConversations` conversations are kept (least recently used dropped).
 */
export class DedupBuffer {
  private readonly buffers = new Map<string, string[]>();

  constructor(private readonly lookback = 3, private readonly maxConversations = 2000) {}

  private key(conversationId: string, role: string): string {
    return `${conversationId}\u0000${role}`;
  }

  recent(conversationId: string, role: string): readonly string[] {
    return this.buffers.get(this.key(conversationId, role)) ?? [];
  }

  push(conversationId: string, role: string, text: string): void {
    const k = this.key(conversationId, role);
    const buf = this.buffers.get(k) ?? [];
    this.buffers.delete(k); // re-insert: Map order doubles as LRU order
    buf.push(text.trim());
    while (buf.length > Math.max(1, this.lookback)) buf.shift();
    this.buffers.set(k, buf);
    while (this.buffers.size > this.maxConversations) {
      const oldest = this.buffers.keys().next().value as string;
      this.buffers.delete(oldest);
    }
  }

  /** Filter + record in one synchronous step. Returns the skip rule, or null when the message is kept. */
  admit(conversationId: string, msg: SaveCandidate, settings: SaveFilterSettings): { rule: SaveSkipRule } | null {
    const skip = evaluateSave(msg, this.recent(conversationId, msg.role), settings);
    if (!skip) this.push(conversationId, msg.role, msg.text);
    return skip;
  }

  forget(conversationId: string): void {
    const prefix = `${conversationId}\u0000`;
    for (const k of [...this.buffers.keys()]) if (k.startsWith(prefix)) this.buffers.delete(k);
  }
}

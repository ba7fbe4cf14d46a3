// Degradation ladder for summaries (SPEC R-WRITE-5): a summary the poison gate rejects steps down to
// simpler forms until one passes; split out of poisonGate.ts.

import { SummaryMessage, summarize } from './derive';
import { gate, GateDetector, GateFn, GateVerdict } from './poisonGate';

export type DegradeLevel = 'full' | 'simple' | 'clean_sentences' | 'stub';

export interface DegradedSummary {
  text: string;
  level: DegradeLevel;
  /** The gate's verdict on `text` ('untrusted' summaries are kept but marked; a stub always passes). */
  verdict: GateVerdict;
  /** Detector that rejected the full summary, if any (for the log line). */
  detector: GateDetector | null;
}

// 280 chars: a summary line must fit one recall-block row (SPEC R-WRITE-4).
const SUMMARY_MAX_CHARS = 280;

/**
 * A summary that never loses the conversation: full summary → first user message only → only sentences
 * that pass the gate → a stub naming the conversation. Only a 'reject' verdict steps down the ladder.
 */
export function degradeSummary(messages: SummaryMessage[], conversationId: string, gateFn: GateFn = gate): DegradedSummary {
  const full = summarize(messages, SUMMARY_MAX_CHARS);
  const first = gateFn(full);
  if (full && first.verdict !== 'reject') return { text: full, level: 'full', verdict: first.verdict, detector: null };
  const detector = first.verdict === 'reject' ? first.detector : null;

  const firstUser = messages.find((m) => m.role === 'user' && m.text.trim()) ?? messages.find((m) => m.text.trim());
  if (firstUser) {
    const simple = clip(oneLine(firstUser.text), SUMMARY_MAX_CHARS);
    const v = gateFn(simple);
    if (simple && v.verdict !== 'reject') return { text: simple, level: 'simple', verdict: v.verdict, detector };
  }

  const clean: string[] = [];
  let len = 0;
  for (const m of messages) {
    for (const s of splitSentences(m.text)) {
      if (gateFn(s).verdict !== 'pass') continue;
      if (len + s.length + 1 > SUMMARY_MAX_CHARS) break;
      clean.push(s);
      len += s.length + 1;
    }
    if (len >= SUMMARY_MAX_CHARS - 20) break;
  }
  if (clean.length) {
    const text = clean.join(' ');
    const v = gateFn(text); // joined clean sentences can still form a pattern across a boundary
    if (v.verdict === 'pass') return { text, level: 'clean_sentences', verdict: 'pass', detector };
  }
  return { text: `Conversation ${conversationId} (summary withheld by the poison gate)`, level: 'stub', verdict: 'pass', detector };
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function clip(s: string, max: number): string {
  const cps = [...s];
  return cps.length <= max ? s : cps.slice(0, max - 1).join('') + '…';
}

function splitSentences(text: string): string[] {
  return oneLine(text)
    .split(/(?<=[.!?…])\s+(?=\S)/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

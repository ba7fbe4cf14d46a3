// What a flush derives from its texts alone (R-WRITE-3): facts found in each message with the gate's verdict on
// each, entities of each message, and the conversation's summary through the degradation ladder with its topics
// and importance. A pure function of the texts — no store, no clock — so it gives the same answer on the calling
// thread and on a worker of the gate pool (gateWorker.ts, op 'flush'), and a bulk flush computes the next
// conversation's analysis there while this thread writes the previous one (TurnWriter.flush).
import { extractEntities, extractFacts, extractTopics, scoreImportance, type Entity, type ExtractedFact, type SummaryMessage } from './derive';
import { gate, type GateResult } from './poisonGate';
import { degradeSummary, type DegradedSummary } from './poisonGateDegrade';

export interface FlushTexts {
  conversation: string;
  /** Texts of the messages facts are derived from (not quarantined, user or assistant), in buffer order. */
  facts: string[];
  /** Texts of the messages entities are derived from (also not secret), in buffer order. */
  entities: string[];
  /** The summary's window of messages (first 20 + the latest), oldest first; empty: no summary. */
  summary: SummaryMessage[];
}

export interface SummaryAnalysis {
  degraded: DegradedSummary;
  topics: string[];
  importance: number;
}

export interface FlushAnalysis {
  /** Per `facts` text: its facts, each with the gate's verdict on "subject: value". */
  facts: { fact: ExtractedFact; verdict: GateResult }[][];
  /** Per `entities` text: its entities. */
  entities: Entity[][];
  summary: SummaryAnalysis | null;
}

export function analyzeFlush(t: FlushTexts): FlushAnalysis {
  return {
    facts: t.facts.map((text) => extractFacts(text).map((fact) => ({ fact, verdict: gate(`${fact.subject}: ${fact.value}`) }))),
    entities: t.entities.map((text) => extractEntities(text)),
    summary: analyzeSummary(t.conversation, t.summary),
  };
}

/** The summary of `messages` (degradation ladder), its topics and importance; null without messages. */
export function analyzeSummary(conversation: string, messages: SummaryMessage[]): SummaryAnalysis | null {
  if (messages.length === 0) return null;
  const userChars = messages.filter((m) => m.role === 'user').reduce((n, m) => n + m.text.length, 0);
  const allChars = messages.reduce((n, m) => n + m.text.length, 0) || 1;
  return {
    degraded: degradeSummary(messages, conversation, gate),
    topics: extractTopics(messages.map((m) => m.text).join('\n')),
    importance: scoreImportance({ messages, userShare: userChars / allChars }),
  };
}

/** Whether `a` has the shape of an analysis of `t` (a worker's answer is checked before it is used). */
export function fitsTexts(a: unknown, t: FlushTexts): a is FlushAnalysis {
  const x = a as FlushAnalysis | null;
  return !!x && Array.isArray(x.facts) && x.facts.length === t.facts.length && Array.isArray(x.entities) && x.entities.length === t.entities.length
    && (t.summary.length === 0 ? x.summary === null : !!x.summary && typeof x.summary.degraded?.text === 'string');
}

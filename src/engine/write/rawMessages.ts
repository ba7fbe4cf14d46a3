// A chat turn's messages as raw items (turnWriter.ts saves them): input checks, the L0 extras (reasoning, tool calls)
// and the item a message becomes — its poison-gate verdict, secrets and provenance stamp (R-WRITE-3, R-WRITE-5).
import { MemoryError } from '../errors';
import type { ItemInput } from '../store/repositories';
import { newRowId } from '../store/repositories';
import type { EngineSettings } from '../settings';
import { type EntryPath, type Trust, leastTrusted } from '../types';
import { detectSecrets } from './mask';
import { gate, type GateResult } from './poisonGate';

/** Where a message comes from (a turn's or an imported message's). `trust`: 'owner' when the user typed it (of a turn:
 * its user side); 'peer' / 'ingested' for third-party text. */
export interface MessageOrigin {
  project?: string;
  projectType?: string;
  title?: string;
  provider?: string;
  model?: string;
  trust?: Extract<Trust, 'owner' | 'peer' | 'ingested'>;
}

export interface TurnInput extends MessageOrigin {
  conversation: string;
  user: string;
  assistant: string;
  at?: number;
  entryPath?: EntryPath;
  /** Tool calls of the turn: kept (role 'tool') only when memory.l0.captureToolResults is on; never indexed or recalled. */
  toolResults?: ToolResultInput[];
  /** The model's reasoning: kept (role 'thinking') only when memory.l0.captureThinking is on; never recalled. */
  thinking?: string;
  /**
   * What the answering model was given from memory this turn: the recall block as sent and the ids in it.
   * The reply is saved without the block and its fragments (echo.ts); recalled items it repeated are
   * reinforced instead of saved again.
   */
  recall?: { block?: string; ids?: readonly string[] };
}

export interface ToolResultInput {
  name: string;
  /** Serialised (JSON) and cut to 2,048 chars. */
  args?: unknown;
  /** Cut to memory.l0.toolResultMaxBytes (8 KB) of UTF-8. */
  result: string;
}

/** A message of a turn before it is an item. */
export interface RawMessage { role: 'user' | 'assistant' | 'tool' | 'thinking'; text: string; trust: Trust; meta?: Record<string, unknown> }

// A message longer than this is refused (E_TOO_LARGE); a long one is stored verbatim, its head indexed and derived from.
export const MAX_MESSAGE_CHARS = 1_000_000;
// R-WRITE-3: a captured tool call's arguments are cut to 2,048 chars (its result to l0ToolResultMaxBytes).
const TOOL_ARGS_MAX_CHARS = 2_048;
/** Secret classes that make a message itself secret (an IBAN in a chat is masked on the way out instead). */
const SECRET_CLASSES = new Set(['api_key', 'private_key', 'password']);

export function l0Extras(t: TurnInput, s: EngineSettings, modelTrust: Trust): RawMessage[] {
  const out: RawMessage[] = [];
  if (s.l0CaptureThinking && typeof t.thinking === 'string' && t.thinking.length > 0) {
    out.push({ role: 'thinking', text: t.thinking.slice(0, MAX_MESSAGE_CHARS), trust: modelTrust });
  }
  if (s.l0CaptureToolResults && Array.isArray(t.toolResults)) {
    for (const r of t.toolResults) {
      if (!r || typeof r.name !== 'string' || typeof r.result !== 'string') continue;
      let args = '';
      try { args = r.args === undefined ? '' : typeof r.args === 'string' ? r.args : JSON.stringify(r.args) ?? ''; } catch { args = '[unserialisable]'; }
      const argsCut = args.length > TOOL_ARGS_MAX_CHARS;
      const result = cutUtf8(r.result, s.l0ToolResultMaxBytes);
      const name = r.name.slice(0, 200);
      out.push({
        // Tool output is third-party text: never more trusted than 'ingested'.
        role: 'tool', text: `${name}(${args.slice(0, TOOL_ARGS_MAX_CHARS)})\n${result}`, trust: leastTrusted([modelTrust], 'ingested'),
        meta: { tool: name, argsTruncated: argsCut, resultTruncated: result.length < r.result.length },
      });
    }
  }
  return out;
}

/** The raw item a message of turn `t` becomes at `at`, with its gate verdict (a rejected one is quarantined). */
export function rawItem(t: TurnInput, m: RawMessage, at: number, verdict: GateResult = gate(m.text)): ItemInput {
  const secrets = detectSecrets(m.text);
  const secret = secrets.classes.some((c) => SECRET_CLASSES.has(c));
  const trust: Trust = verdict.verdict === 'reject' ? 'quarantined' : m.trust;
  return {
    id: `rw:${newRowId(at)}`, kind: 'raw', role: m.role, text: m.text, trust,
    prevTrust: verdict.verdict === 'reject' ? m.trust : null,
    untrusted: verdict.verdict === 'untrusted', secret, tags: secret ? ['contains-secrets'] : [],
    provider: m.role !== 'user' ? (t.provider ?? null) : null, model: m.role !== 'user' ? (t.model ?? null) : null,
    entryPath: t.entryPath ?? 'participant', conversation: t.conversation, project: t.project ?? null,
    projectType: t.project ? null : (t.projectType ?? null), created: at, validFrom: at, sourceType: m.role === 'tool' ? 'tool' : 'chat',
    importance: 0.5, meta: { ...(m.meta ?? {}), ...(verdict.verdict === 'pass' ? {} : { gate: verdict.detector, verdict: verdict.verdict }) },
  };
}

/** The longest prefix of `s` whose UTF-8 encoding fits in `maxBytes` (never splits a character). */
function cutUtf8(s: string, maxBytes: number): string {
  if (Buffer.byteLength(s, 'utf8') <= maxBytes) return s;
  let lo = 0, hi = Math.min(s.length, maxBytes);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (Buffer.byteLength(s.slice(0, mid), 'utf8') <= maxBytes) lo = mid; else hi = mid - 1;
  }
  // Do not leave half a surrogate pair at the cut.
  const c = s.charCodeAt(lo - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? lo - 1 : lo);
}

export function validateTurn(t: TurnInput): void {
  if (!t || typeof t !== 'object') throw new MemoryError('E_BAD_INPUT', 'a turn needs a conversation, a user message and a reply');
  if (typeof t.conversation !== 'string' || !/^[\w.:-]{1,128}$/.test(t.conversation)) {
    throw new MemoryError('E_BAD_INPUT', 'conversation id: 1–128 letters, digits, "_", "-", ".", ":"');
  }
  for (const [name, v] of [['user', t.user], ['assistant', t.assistant]] as const) {
    if (typeof v !== 'string') throw new MemoryError('E_BAD_INPUT', `${name} message must be text`);
    if (v.length > MAX_MESSAGE_CHARS) throw new MemoryError('E_TOO_LARGE', `${name} message is over ${MAX_MESSAGE_CHARS} characters`);
  }
  if (t.at !== undefined && (!Number.isFinite(t.at) || t.at < 0)) throw new MemoryError('E_BAD_INPUT', 'turn time must be a valid date');
  if (t.trust !== undefined && !['owner', 'peer', 'ingested'].includes(t.trust)) throw new MemoryError('E_BAD_INPUT', 'trust must be owner, peer or ingested');
  for (const [name, v] of [['project', t.project], ['projectType', t.projectType], ['provider', t.provider], ['model', t.model]] as const) {
    if (v !== undefined && (typeof v !== 'string' || v.length > 200)) throw new MemoryError('E_BAD_INPUT', `${name} must be text of at most 200 characters`);
  }
}
// Shared plumbing of the memory tools (SPEC R-UI-2, R-RECALL-7, R-MEM-7): argument checks that answer with a
// readable refusal, the turn scope a call belongs to, the drill-down budget, and the way out for memory text
// (role tags neutralised, masked unless the answering model is local; a failed scan withholds the text).
// Invariant: a tool never throws at the model for bad input, an exhausted budget or a closed store.
import * as vscode from 'vscode';
import { isMemoryError } from '../../engine/errors';
import type { Logger } from '../../engine/host';
import type { ReadContext } from '../../engine/recall/recaller';
import { neutraliseRoleTags } from '../../engine/recall/recallBlock';
import type { CallBudget } from '../../engine/recall/callBudget';
import { maskOrWithhold } from '../../engine/write/mask';
import type { ProjectContext } from '../config';
import type { EngineHost } from '../engineHost';
import { sessionKeyOf, type TurnRegistry } from '../chat/turnRegistry';

export interface ToolDeps {
  host: EngineHost;
  turns: TurnRegistry;
  budget: CallBudget;
  logger: Logger;
  project: () => ProjectContext;
}

/** A readable failure for the model (not an exception): `Error` prefix so it reads as one. */
export class ToolRefusal extends Error {}

export function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/** 1,000 chars: longer than any search phrase; a model pasting a document gets a refusal, not a slow scan. */
export const MAX_QUERY_CHARS = 1000;
/** 300 chars: ids are `vt:` + a vault path or a short hash id; anything longer is not one of ours. */
export const MAX_ID_CHARS = 300;
const ID_RE = /^(vt|rw|gs|fa|en):[^\0\r\n]+$/;

function objectInput(input: unknown): Record<string, unknown> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new ToolRefusal('the input must be a JSON object');
  const o = input as Record<string, unknown>;
  if (typeof o._invalid === 'string') throw new ToolRefusal('the arguments were not valid JSON');
  return o;
}

export function readQuery(input: unknown): string {
  const q = objectInput(input).query;
  if (typeof q !== 'string') throw new ToolRefusal('"query" must be a string of search words');
  const t = q.trim();
  if (!t) throw new ToolRefusal('"query" is empty: give a few words to search for');
  if (t.length > MAX_QUERY_CHARS) throw new ToolRefusal(`"query" is too long (${t.length} chars; at most ${MAX_QUERY_CHARS}): use a few keywords`);
  return t;
}

export function readLimit(input: unknown, def: number, max: number): number {
  const v = objectInput(input).limit;
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) throw new ToolRefusal(`"limit" must be a whole number from 1 to ${max}`);
  return v;
}

/** A memory id: a known prefix, no `..` segment, no absolute or backslash path (R-RECALL-7). */
export function readId(input: unknown): string {
  const v = objectInput(input).id;
  if (typeof v !== 'string') throw new ToolRefusal('"id" must be a memory id string such as "vt:semantic/note.md" or "rw:…"');
  const id = v.trim().replace(/^\[?source:/, '').replace(/\]$/, '');
  if (id.length > MAX_ID_CHARS) throw new ToolRefusal(`"id" is too long (at most ${MAX_ID_CHARS} chars)`);
  if (!ID_RE.test(id)) throw new ToolRefusal('"id" is not a memory id: ids start with vt:, rw:, gs:, fa: or en: (copy one from memory_search)');
  const rest = id.slice(3);
  if (rest.split(/[\\/]/).some((s) => s === '..') || rest.startsWith('/') || rest.includes('\\')) throw new ToolRefusal('"id" points outside the vault and is refused');
  return id;
}

export interface CallScope {
  read: ReadContext;
  /** Memory may leave unmasked: only for a participant turn answered by a local model. */
  local: boolean;
  budgetKey: object | string;
  fromParticipant: boolean;
}

/**
 * The scope of a tool call: the participant's conversation when the call comes from an @memory turn, else a
 * new conversation of the workspace project (agent mode). Any project/scope argument is ignored on purpose.
 */
export function scopeOf(deps: ToolDeps, token: unknown, caller = 'no-token'): CallScope {
  const turn = deps.turns.lookup(token);
  if (turn) {
    return {
      read: { conversation: turn.conversation, project: turn.project, projectType: turn.projectType, newConversation: true },
      local: turn.local, budgetKey: turn.turn, fromParticipant: true,
    };
  }
  const p = deps.project();
  const session = sessionKeyOf(token);
  // Outside our turns there is no per-message signal: a time window per chat session applies, and one shared
  // window for every caller without a token (search and expand count together).
  return { read: { project: p.project, projectType: p.projectType }, local: false, budgetKey: session ? `session:${session}` : caller, fromParticipant: false };
}

/** Memory text on its way to a model: neutralised; masked unless local; withheld when the scan fails. */
export function outgoing(text: string, local: boolean): string {
  const safe = neutraliseRoleTags(text);
  if (local) return safe;
  const m = maskOrWithhold(safe);
  return m.ok ? m.text : '[withheld: this memory could not be checked for secrets]';
}

/** Runs a tool body; refusals and engine errors become one readable sentence for the model. */
export async function guarded(deps: ToolDeps, tool: string, body: () => Promise<string>): Promise<vscode.LanguageModelToolResult> {
  try {
    return textResult(await body());
  } catch (e) {
    if (e instanceof ToolRefusal) {
      deps.logger.info('tool.refused', { tool });
      return textResult(`${tool} refused: ${e.message}.`);
    }
    const code = isMemoryError(e) ? e.code : 'E_INTERNAL';
    deps.logger.warn('tool.failed', { tool, code });
    const why = code === 'E_SCOPE_UNRESOLVED' ? 'memory scope unresolved'
      : code === 'E_NOT_FOUND' ? 'no memory has this id (it may have been forgotten)'
        : code === 'E_BAD_ID' ? 'this id is not valid or points outside the vault'
          : isMemoryError(e) ? e.message : 'unexpected error';
    return textResult(`${tool} failed (${code}): ${why}. Answer without it.`);
  }
}

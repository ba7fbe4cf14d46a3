// Shared plumbing of the memory tools (SPEC R-UI-2, R-RECALL-7, R-MEM-7): argument checks that answer with a
// readable refusal, the turn scope a call belongs to, the drill-down budget, and the way out for memory text
// (role tags neutralised, masked unless the answering model is local; a failed scan withholds the text).
// Invariant: a tool never throws at the model for bad input, an exhausted budget or a closed store.
import * as vscode from 'vscode';
import { isMemoryError, errorCode } from '../../engine/errors';
import { parseMemoryId } from '../../engine/types';
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
  /** The drill-down budget (memory_search + memory_expand). */
  budget: CallBudget;
  /** memory_save's own budget per user message. */
  saveBudget: CallBudget;
  logger: Logger;
  project: () => ProjectContext;
  /** `memory.enabled`: off → every tool answers "memory is off" and touches nothing. */
  enabled: () => boolean;
}

/** A readable failure for the model (not an exception): `Error` prefix so it reads as one. */
export class ToolRefusal extends Error {}

export function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/** 1,000 chars: longer than any search phrase; a model pasting a document gets a refusal, not a slow scan. */
export const MAX_QUERY_CHARS = 1000;
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

/** A memory id of any kind search returns (the engine's one grammar: parseMemoryId). */
export function readId(input: unknown): string {
  const r = parseMemoryId(objectInput(input).id);
  if (!r.ok) throw new ToolRefusal(`"id" ${r.reason}`);
  return r.id;
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
  if (!deps.enabled()) {
    deps.logger.info('tool.disabled', { tool });
    return textResult(`${tool}: memory is off (memory.enabled is false), so nothing was read or saved. Answer without memory.`);
  }
  try {
    return textResult(await body());
  } catch (e) {
    if (e instanceof ToolRefusal) {
      deps.logger.info('tool.refused', { tool });
      return textResult(`${tool} refused: ${e.message}.`);
    }
    const code = errorCode(e, 'E_INTERNAL');
    const gateName = isMemoryError(e) && typeof e.details?.gate === 'string' ? e.details.gate : undefined;
    if (gateName) {
      // A write gate said no (memory_save): a readable refusal naming the gate, not a failure.
      deps.logger.info('tool.refused', { tool, code, gate: gateName });
      return textResult(`${tool} refused (${gateName} gate, ${code}): ${(e as Error).message}.`);
    }
    deps.logger.warn('tool.failed', { tool, code });
    const why = code === 'E_SCOPE_UNRESOLVED' ? 'memory scope unresolved'
      : code === 'E_NOT_FOUND' ? 'no memory has this id (it may have been forgotten)'
        : code === 'E_BAD_ID' ? 'this id is not valid or points outside the vault'
          : isMemoryError(e) ? e.message : 'unexpected error';
    return textResult(`${tool} failed (${code}): ${why}. Answer without it.`);
  }
}

// An agent's own durable note (issue #17, `memory_save` in VS Code and over MCP): the same gates as capture
// (R-WRITE-6) without the model call — the agent already wrote the note. Gates, in order: memory on; a
// well-formed note (text ≤ 2,000 chars, a known kind, ≤ 8 simple tags); a project to save into when the scope
// is `project`; the poison gate (reject → refused; untrusted → saved, tagged and flagged); masking (a failed
// scan refuses; masked secrets tag the note `contains-secrets`, so it is never recalled); then the fact already
// noted in scope is reinforced with a `## History` bullet instead of a second file (noteRepeat.ts).
// Every refusal is a MemoryError whose `details.gate` names the gate and whose message is a sentence an agent can
// act on. Trust is `derived`; `origin` names the agent path (vscode-tool, mcp, …) and model. No memory text is logged.
import { MemoryError } from '../errors';
import { CallBudget } from '../recall/callBudget';
import type { Clock, Logger } from '../host';
import type { Store } from '../store/store';
import { NOTE_KINDS, type NoteKind } from '../types';
import { MAX_SUMMARY_CHARS, SECRETS_TAG, normalizeTag } from '../vault/noteParser';
import { writeNote } from '../vault/noteWriter';
import type { VaultIndex } from '../vault/vaultIndex';
import { VAULT_DIRS, noteFileSlug, projectDir } from '../vault/vaultLayout';
import { maskOrWithhold } from './mask';
import { findRepeatNote, reinforceNote } from './noteRepeat';
import { gate } from './poisonGate';

export const SAVE_SCOPES = ['project', 'global'] as const;
export type SaveScope = (typeof SAVE_SCOPES)[number];

/** A note, not a document: longer text belongs in a file loaded with memory_load_doc (same as capture's body cap). */
export const MAX_SAVE_CHARS = 2000;
export const MAX_SAVE_TAGS = 8;
const MAX_TAG_CHARS = 40;
const TAG_RE = /^[\p{L}\p{N}_\-/]+$/u;

/**
 * Saves per user message (VS Code tools) or per minute (MCP, callers without a message): two, as capture's
 * two notes per exchange — an agent that wants to store more is transcribing, not noting.
 */
export const SAVES_PER_MESSAGE = 2;

/** The save budget every surface applies (a sentence, never an exception, when it is used up). */
export function createSaveBudget(max: number | (() => number) = SAVES_PER_MESSAGE, windowMs?: number, now?: () => number): CallBudget {
  return new CallBudget({
    maxCalls: max, windowMs, now,
    label: { limit: 'Memory save limit reached', calls: 'memory_save calls', advice: 'Nothing more was saved; keep only the most durable facts' },
  });
}

export interface AgentOrigin {
  /** Which door the agent came through: `vscode-tool`, `mcp`, … */
  path: string;
  provider?: string;
  model?: string;
  conversation?: string;
}

export interface AgentSaveInput {
  text: string;
  kind?: NoteKind;
  scope: SaveScope;
  tags?: readonly string[];
  /** The caller's project (decided by the surface from the workspace or its flags, never by the agent). */
  project?: string;
  projectType?: string;
  origin: AgentOrigin;
}

export interface AgentSaveResult {
  outcome: 'created' | 'reinforced';
  id: string;
  kind: NoteKind;
  scope: SaveScope;
  /** Secrets replaced by placeholders (the note is then tagged contains-secrets and never recalled). */
  masked: number;
  /** The poison gate found it doubtful: kept, tagged `untrusted`, weighted down in recall. */
  untrusted: boolean;
}

export interface AgentSaveDeps {
  store: Store;
  vault: VaultIndex;
  vaultDir: string;
  clock: Clock;
  logger: Logger;
  enabled: boolean;
}

export type SaveGate = 'disabled' | 'input' | 'scope' | 'poison' | 'mask';

function refuse(gateName: SaveGate, code: 'E_DISABLED' | 'E_BAD_INPUT' | 'E_TOO_LARGE' | 'E_SCOPE_UNRESOLVED' | 'E_REFUSED', message: string, extra: Record<string, unknown> = {}): never {
  throw new MemoryError(code, message, { gate: gateName, ...extra });
}

/** Checks the input's shape; returns the cleaned note or throws a refusal (gate `input` / `scope`). */
export function checkSaveInput(input: AgentSaveInput): { text: string; kind: NoteKind; scope: SaveScope; tags: string[]; summary: string } {
  if (!input || typeof input !== 'object') refuse('input', 'E_BAD_INPUT', 'the note must be an object with "text"');
  if (typeof input.text !== 'string') refuse('input', 'E_BAD_INPUT', '"text" must be a string: the fact, preference or decision to keep');
  const text = input.text.replace(/\r\n?/g, '\n').trim();
  if (!text) refuse('input', 'E_BAD_INPUT', '"text" is empty: give the fact to keep in one or two sentences');
  if (text.length > MAX_SAVE_CHARS) refuse('input', 'E_TOO_LARGE', `"text" is too long (${text.length} chars; at most ${MAX_SAVE_CHARS}): save one durable fact, not a transcript`);
  if (!(SAVE_SCOPES as readonly string[]).includes(input.scope as string)) refuse('input', 'E_BAD_INPUT', '"scope" must be "project" (this workspace only) or "global" (every project)');
  const scope = input.scope;
  let kind: NoteKind;
  if (input.kind === undefined || input.kind === null) kind = scope === 'project' ? 'project' : 'user';
  else if (typeof input.kind === 'string' && (NOTE_KINDS as readonly string[]).includes(input.kind.trim().toLowerCase())) kind = input.kind.trim().toLowerCase() as NoteKind;
  else refuse('input', 'E_BAD_INPUT', `"kind" must be one of ${NOTE_KINDS.join(', ')}`);
  const tags: string[] = [];
  if (input.tags !== undefined && input.tags !== null) {
    if (!Array.isArray(input.tags)) refuse('input', 'E_BAD_INPUT', '"tags" must be a list of short words');
    if (input.tags.length > MAX_SAVE_TAGS) refuse('input', 'E_BAD_INPUT', `at most ${MAX_SAVE_TAGS} tags`);
    for (const t of input.tags) {
      if (typeof t !== 'string') refuse('input', 'E_BAD_INPUT', '"tags" must be a list of short words');
      const norm = normalizeTag(t).replace(/\s+/g, '-');
      if (!norm) continue;
      if (norm.length > MAX_TAG_CHARS || !TAG_RE.test(norm)) refuse('input', 'E_BAD_INPUT', `a tag is a short word of letters, digits, "-", "_" or "/" (at most ${MAX_TAG_CHARS} chars)`);
      // The gate's own tags are the engine's to set.
      if (norm === SECRETS_TAG || norm === 'untrusted') continue;
      if (!tags.includes(norm)) tags.push(norm);
    }
  }
  if (scope === 'project' && !input.project) refuse('scope', 'E_SCOPE_UNRESOLVED', 'no project is open here, so there is nothing to save into with scope "project": use scope "global" or open a folder');
  if (!input.origin || typeof input.origin.path !== 'string' || !input.origin.path) refuse('input', 'E_BAD_INPUT', 'the caller did not name its agent path');
  const firstLine = text.split('\n').find((l) => l.trim())!.trim();
  const summary = firstLine.length > MAX_SUMMARY_CHARS ? firstLine.slice(0, MAX_SUMMARY_CHARS - 1) + '…' : firstLine;
  return { text, kind, scope, tags, summary };
}

/**
 * The gates that need no store (shape, scope, poison): surfaces run it before taking the save budget, so only
 * a save that can happen is counted. Returns the cleaned note and whether the gate found it doubtful.
 */
export function preflightSave(input: AgentSaveInput, logger?: Logger): ReturnType<typeof checkSaveInput> & { untrusted: boolean } {
  const note = checkSaveInput(input);
  const verdict = gate([note.text, note.tags.join(' ')].join('\n'));
  if (verdict.verdict === 'reject') {
    logger?.warn('gate.reject', { kind: 'agent_save', detector: verdict.detector ?? '' });
    refuse('poison', 'E_REFUSED', 'not saved: the text reads as an instruction to an assistant (poison gate); save plain facts, preferences or decisions only',
      { detector: verdict.detector });
  }
  return { ...note, untrusted: verdict.verdict === 'untrusted' };
}

export async function saveAgentNote(deps: AgentSaveDeps, input: AgentSaveInput): Promise<AgentSaveResult> {
  if (!deps.enabled) refuse('disabled', 'E_DISABLED', 'memory is off (memory.enabled is false): nothing was saved');
  const note = preflightSave(input, deps.logger);
  const untrusted = note.untrusted;
  const body = maskOrWithhold(note.text);
  const summary = maskOrWithhold(note.summary);
  if (!body.ok || !summary.ok) refuse('mask', 'E_REFUSED', 'not saved: the text could not be checked for secrets');
  const masked = body.count;
  const project = note.scope === 'project' ? input.project : undefined;
  const projectType = note.scope === 'project' ? input.projectType : undefined;
  const origin = input.origin;
  const match = findRepeatNote(deps.store, summary.text, { project, projectType, idPrefix: deps.vault.idPrefix });
  if (match) {
    await reinforceNote(deps, match, summary.text, `agent via ${origin.path}${origin.model ? `, ${origin.model}` : ''}`);
    deps.logger.info('agent_save', { outcome: 'reinforced', id: match.id, path: origin.path, kind: note.kind });
    return { outcome: 'reinforced', id: match.id, kind: note.kind, scope: note.scope, masked, untrusted };
  }
  const tags = [...note.tags];
  if (untrusted) tags.push('untrusted');
  if (masked > 0) tags.push(SECRETS_TAG);
  const folder = project ? projectDir(project) : note.kind === 'feedback' ? VAULT_DIRS.procedural : VAULT_DIRS.semantic;
  const frontmatter: Record<string, unknown> = {
    kind: note.kind,
    summary: summary.text,
    tags: tags.length ? tags : undefined,
    project,
    trust: 'derived',
    origin: { by: 'agent', path: origin.path, provider: origin.provider, model: origin.model, conversation: origin.conversation },
    created: new Date(deps.clock.now()).toISOString(),
  };
  const written = await writeNote(deps.vaultDir, `${folder}/${noteFileSlug(summary.text)}.md`, { frontmatter: dropUndefined(frontmatter), body: `${body.text}\n` }, { mask: true });
  const id = await deps.vault.syncFile(written.relPath);
  if (!id) throw new MemoryError('E_INTERNAL', 'the note was written but could not be indexed');
  if (untrusted) await deps.store.transaction((tx) => tx.items.patch(id, { untrusted: true }));
  deps.logger.info('agent_save', { outcome: 'created', id, path: origin.path, kind: note.kind, masked, untrusted });
  return { outcome: 'created', id, kind: note.kind, scope: note.scope, masked, untrusted };
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue;
    out[k] = v && typeof v === 'object' && !Array.isArray(v) ? dropUndefined(v as Record<string, unknown>) : v;
  }
  return out;
}

// What a hook does with an open engine — the same code in the `vscode-memory hook` process (cold path) and in
// the running extension (answering over the local socket):
// - SessionStart → the durable index (long-term file, notes, the project's summaries) for the cwd's project;
// - UserPromptSubmit → the recall block for the prompt;
// - Stop / SubagentStop / PreCompact → the transcript's new complete turns, recorded once each.
// Both blocks are the engine's recall block: labelled as data, not instructions, role tags neutralised, and
// masked (IBANs, cards, keys) because the agent's model may not be on this machine.
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { MemoryEngine } from '../engine/engine';
import { errorCode } from '../engine/errors';
import { maskOrWithhold } from '../engine/write/mask';
import { hookAnswer, type HookAgent, type HookInput } from './hookInput';
import type { HookState } from './hookState';
import { projectIdForFolder } from './projectId';
import { parseTranscript } from './transcript';

/** Transcripts larger than this are read from their last 8 MB only (older turns were recorded earlier). */
const MAX_TRANSCRIPT_BYTES = 8 * 1024 * 1024;

const PROVIDER: Record<HookAgent, string> = { 'copilot-vscode': 'copilot', 'copilot-cli': 'copilot-cli', 'claude-code': 'anthropic' };

export interface HookOutcome {
  /** What to print on stdout ('' = nothing). */
  output: string;
  /** For the log: ids, codes and counts only. */
  log: Record<string, string | number | boolean | undefined>;
}

export interface HookDeps {
  state: HookState;
  /** The project of the agent's cwd; default: the derived id of the repository (or folder) around it. */
  projectOf?: (cwd: string | undefined) => string | undefined;
  /** Stop: recording happens off the hook's path (the extension) — called with the job instead of awaiting it. */
  detach?: (job: Promise<unknown>) => void;
  /** After a turn was saved (the extension runs capture here, with its background model). */
  afterRecord?: (turn: { conversation: string; user: string; assistant: string; project?: string }) => Promise<void>;
}

/** The conversation id of an agent session (one namespace per agent family). */
export function conversationOfSession(agent: HookAgent, sessionId: string): string {
  const family = agent === 'claude-code' ? 'claude' : 'copilot';
  return `${family}-${sessionId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120)}`;
}

/** The folder whose project a cwd belongs to: the nearest ancestor holding `.git`, else the cwd itself. */
export function projectRootOf(cwd: string): string {
  let dir = path.resolve(cwd);
  for (;;) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return path.resolve(cwd);
    dir = up;
  }
}

/**
 * The project of a cwd outside VS Code: the workspace folder the extension last saw around it (its id, with
 * `memory.projectId` applied — HookState.knownWorkspaces), else the derived id of the repository (or folder).
 */
export function defaultProjectOf(cwd: string | undefined, known: Readonly<Record<string, string>> = {}): string | undefined {
  if (!cwd || !path.isAbsolute(cwd)) return undefined;
  const abs = path.resolve(cwd);
  let best: string | undefined;
  for (const folder of Object.keys(known)) {
    const rel = path.relative(folder, abs);
    if (!rel.startsWith('..') && !path.isAbsolute(rel) && (!best || folder.length > best.length)) best = folder;
  }
  if (best) return known[best];
  try { return projectIdForFolder(projectRootOf(abs)); } catch { return undefined; }
}

export async function handleHook(engine: MemoryEngine, input: HookInput, deps: HookDeps): Promise<HookOutcome> {
  const conversation = conversationOfSession(input.agent, input.sessionId);
  const project = deps.projectOf ? deps.projectOf(input.cwd) : defaultProjectOf(input.cwd, deps.state.knownWorkspaces());
  const log = { event: input.event, agent: input.agent, conversation };
  if (!engine.settings.enabled) return { output: '', log: { ...log, outcome: 'disabled' } };

  const sessionModel = deps.state.sessionModel(input.agent, input.sessionId, input.model);
  if (input.event === 'SessionStart' || input.event === 'UserPromptSubmit') {
    const message = input.event === 'UserPromptSubmit' ? input.prompt ?? '' : '';
    if (input.event === 'UserPromptSubmit' && !message.trim()) return { output: '', log: { ...log, outcome: 'empty_prompt' } };
    if (!deps.state.claimAnswer(input.sessionId, input.event, `${input.timestamp ?? ''}\u0000${message}`)) {
      return { output: '', log: { ...log, outcome: 'answered_by_other_hook' } };
    }
    // `agent`: the agent files its runtime already reads are not injected again (project/agentFiles.ts).
    const r = await engine.recall({ message, conversation, project, canUseTools: input.agent === 'copilot-vscode', agent: input.agent });
    if (!r.block) return { output: '', log: { ...log, outcome: 'empty', reason: r.reason } };
    const masked = maskOrWithhold(r.block);
    if (!masked.ok) return { output: '', log: { ...log, outcome: 'withheld', reason: masked.reason } };
    return { output: hookAnswer(input, masked.text), log: { ...log, outcome: 'block', items: r.items.length } };
  }

  // Stop / SubagentStop / PreCompact: record the transcript's new complete turns.
  if (!input.transcriptPath) return { output: '', log: { ...log, outcome: 'no_transcript' } };
  let text: string;
  try {
    const size = statSync(input.transcriptPath).size;
    const buf = readFileSync(input.transcriptPath);
    text = (size > MAX_TRANSCRIPT_BYTES ? buf.subarray(size - MAX_TRANSCRIPT_BYTES) : buf).toString('utf8');
  } catch (e) {
    return { output: '', log: { ...log, outcome: 'transcript_unreadable', code: (e as NodeJS.ErrnoException).code ?? 'error' } };
  }
  const parsed = parseTranscript(text, input.event === 'Stop');
  const record = async () => {
    const saved: { user: string; assistant: string }[] = [];
    const res = await deps.state.withCursor(input.agent, input.sessionId, async (recorded, mark) => {
      let failed = 0, skipped = 0;
      const title = parsed.turns[0]?.user.slice(0, 120);
      for (const t of parsed.turns) {
        if (!t.complete || recorded.has(t.key)) continue;
        try {
          const r = await engine.recordTurn({
            conversation, user: t.user, assistant: t.assistant, project, title, trust: 'owner',
            provider: PROVIDER[input.agent], model: t.model ?? sessionModel, entryPath: 'hook',
          });
          mark(t.key);
          if (r.ids.length) saved.push(t); else skipped++;
        } catch (e) {
          failed++;
          deps.state.log({ ...log, outcome: 'record_failed', code: errorCode(e, 'E_INTERNAL') });
          break; // the cursor keeps the rest for the next run
        }
      }
      return { failed, skipped };
    });
    if (!res) return { ...log, outcome: 'session_busy' };
    deps.state.noteRecorded(input.agent, saved.length);
    // Capture (a model call) runs after the session's lock is released.
    if (deps.afterRecord) for (const t of saved) await deps.afterRecord({ conversation, user: t.user, assistant: t.assistant, project }).catch(() => undefined);
    return { ...log, outcome: 'recorded', format: parsed.format, turns: parsed.turns.length, saved: saved.length, skipped: res.skipped, failed: res.failed, badLines: parsed.badLines };
  };
  if (deps.detach) {
    deps.detach(record().then((l) => deps.state.log(l), (e) => deps.state.log({ ...log, outcome: 'record_failed', code: errorCode(e, 'E_INTERNAL') })));
    return { output: '', log: { ...log, outcome: 'recording', format: parsed.format, turns: parsed.turns.length } };
  }
  return { output: '', log: await record() };
}

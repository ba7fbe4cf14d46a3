// The JSON document an agent hook gets on stdin, normalised. Sources of each field:
// - VS Code / Copilot Chat agent hooks (measured in code-server 1.139.1, ../shared/TESTING.md beside the checkout): snake_case
//   `timestamp`, `hook_event_name`, `session_id`, `transcript_path`, `cwd`; `source`, `model` (SessionStart);
//   `prompt` (UserPromptSubmit); `stop_hook_active` (Stop).
// - Claude Code (docs.anthropic.com/en/docs/claude-code/hooks, "Hook Input"): the same snake_case names.
// - Copilot CLI (docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference): camelCase
//   (`timestamp`, `cwd`, `sessionId`, `transcriptPath`, `prompt`, `source`, `initialPrompt`) and no event name
//   for some events, so the hooks file passes `--event` on the command line.
// Event names in both spellings (`UserPromptSubmit` / `userPromptSubmitted`, `Stop` / `agentStop`) map to one.

export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'PreCompact'] as const;
export type HookEvent = typeof HOOK_EVENTS[number];

const EVENT_NAMES: Record<string, HookEvent> = {
  SessionStart: 'SessionStart', sessionStart: 'SessionStart',
  UserPromptSubmit: 'UserPromptSubmit', userPromptSubmitted: 'UserPromptSubmit', userPromptSubmit: 'UserPromptSubmit',
  Stop: 'Stop', agentStop: 'Stop', stop: 'Stop',
  SubagentStop: 'SubagentStop', subagentStop: 'SubagentStop',
  PreCompact: 'PreCompact', preCompact: 'PreCompact',
};

export function hookEventOf(name: unknown): HookEvent | undefined {
  return typeof name === 'string' ? EVENT_NAMES[name] : undefined;
}

/** Which agent runs the hook: decides the answer's shape and the agent named in status. */
export type HookAgent = 'copilot-vscode' | 'copilot-cli' | 'claude-code';
export const HOOK_AGENTS: readonly HookAgent[] = ['copilot-vscode', 'copilot-cli', 'claude-code'];

export interface HookInput {
  event: HookEvent;
  agent: HookAgent;
  sessionId: string;
  cwd?: string;
  transcriptPath?: string;
  prompt?: string;
  model?: string;
  stopHookActive: boolean;
  /** The event's time as the agent sent it (tells two identical prompts of one session apart). */
  timestamp?: string;
}

export class HookInputError extends Error {
  constructor(readonly code: 'E_HOOK_JSON' | 'E_HOOK_EVENT' | 'E_HOOK_SESSION') { super(code); }
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** 1 MB of stdin is far more than any hook document; more is refused unread. */
export const MAX_HOOK_INPUT_BYTES = 1 << 20;

/**
 * Parses stdin. `flags.event` (from `--event`) names the event when the document does not; `flags.agent` is the
 * hooks file's agent. The Copilot hooks file serves VS Code and Copilot CLI: a document with snake_case
 * `hook_event_name` is VS Code's, one without is the CLI's.
 */
export function parseHookInput(raw: string, flags: { event?: string; agent?: HookAgent } = {}): HookInput {
  let doc: unknown;
  try { doc = JSON.parse(raw); } catch { throw new HookInputError('E_HOOK_JSON'); }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new HookInputError('E_HOOK_JSON');
  const o = doc as Obj;
  const event = hookEventOf(o.hook_event_name) ?? hookEventOf(o.hookEventName) ?? hookEventOf(flags.event);
  if (!event) throw new HookInputError('E_HOOK_EVENT');
  const sessionId = str(o.session_id) ?? str(o.sessionId);
  if (!sessionId || sessionId.length > 512) throw new HookInputError('E_HOOK_SESSION');
  let agent: HookAgent = flags.agent ?? 'copilot-vscode';
  if (agent !== 'claude-code') agent = typeof o.hook_event_name === 'string' ? 'copilot-vscode' : 'copilot-cli';
  return {
    event, agent, sessionId,
    cwd: str(o.cwd),
    transcriptPath: str(o.transcript_path) ?? str(o.transcriptPath),
    prompt: str(o.prompt) ?? (event === 'SessionStart' ? str(o.initialPrompt) : undefined),
    model: typeof o.model === 'string' ? o.model : undefined,
    stopHookActive: o.stop_hook_active === true || o.stopHookActive === true,
    timestamp: typeof o.timestamp === 'string' || typeof o.timestamp === 'number' ? String(o.timestamp) : undefined,
  };
}

/**
 * The answer in the caller's shape. VS Code and Claude Code read `hookSpecificOutput.additionalContext`
 * (Claude Code docs, "Advanced: JSON Output"; VS Code also reads a top-level `additionalContext`); Copilot CLI
 * reads a top-level `additionalContext`.
 */
export function hookAnswer(input: Pick<HookInput, 'event' | 'agent'>, context: string): string {
  if (input.agent === 'copilot-cli') return JSON.stringify({ additionalContext: context });
  return JSON.stringify({ hookSpecificOutput: { hookEventName: input.event, additionalContext: context } });
}

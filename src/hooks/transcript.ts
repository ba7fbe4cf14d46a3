// Reads an agent's transcript (JSON lines) into chat turns: each user message with the agent's final reply.
// Two formats, detected per line:
// - Copilot (VS Code agent mode, Copilot CLI): `{"type": "user.message" | "assistant.message" |
//   "tool.execution_start" | …, "data": {…}, "id", "timestamp", "parentId"}`; `user.message` and
//   `assistant.message` carry `data.content`, assistant messages also `data.toolRequests` and sometimes
//   `data.reasoningText` (measured in code-server 1.139.1 with Copilot Chat 0.67, ../shared/TESTING.md beside the checkout).
// - Claude Code: `{"type": "user" | "assistant" | "summary" | …, "message": {"role", "content", "model"},
//   "uuid", "sessionId", "isSidechain", "isMeta"}` where `content` is a string or blocks (`text`,
//   `tool_use`, `tool_result`, `thinking`) — docs.anthropic.com/en/docs/claude-code/hooks ("transcript_path")
//   and the session files Claude Code writes under ~/.claude/projects/.
// Only what a person typed and the text the agent finally answered become a turn: tool calls, tool output,
// reasoning, meta and sidechain (subagent) lines are skipped. A malformed line is skipped, never fatal.
import { createHash } from 'node:crypto';

export interface TranscriptTurn {
  user: string;
  /** The agent's final visible reply of the turn ('' while it has not answered yet). */
  assistant: string;
  /** The model named by the transcript, when it names one. */
  model?: string;
  /** True once a later user message (or the end of a finished turn) closes it. */
  complete: boolean;
  /** Stable across rewrites of the file: hash of the texts plus the pair's occurrence number. */
  key: string;
}

export type TranscriptFormat = 'copilot' | 'claude' | 'unknown';

export interface ParsedTranscript {
  format: TranscriptFormat;
  turns: TranscriptTurn[];
  /** Lines that were not JSON objects (counted for the log, never shown). */
  badLines: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Text blocks of a Claude `message.content` (string or blocks); `toolOnly` when it held only tool results. */
function claudeText(content: unknown): { text: string; toolOnly: boolean } {
  if (typeof content === 'string') return { text: content, toolOnly: false };
  if (!Array.isArray(content)) return { text: '', toolOnly: false };
  const texts: string[] = [];
  let tool = false;
  for (const b of content) {
    if (!isObj(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
    else if (b.type === 'tool_result' || b.type === 'tool_use') tool = true;
  }
  return { text: texts.join('\n'), toolOnly: tool && texts.length === 0 };
}

/**
 * Parses the transcript. `finished`: the agent has stopped (Stop), so the last turn with a reply is complete;
 * otherwise (PreCompact, SubagentStop) a turn is complete only once the next user message began.
 */
export function parseTranscript(text: string, finished: boolean): ParsedTranscript {
  const open: Omit<TranscriptTurn, 'complete' | 'key'>[] = [];
  let format: TranscriptFormat = 'unknown';
  let badLines = 0;
  let model: string | undefined;
  const current = () => open[open.length - 1];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let ev: unknown;
    try { ev = JSON.parse(line); } catch { badLines++; continue; }
    if (!isObj(ev)) { badLines++; continue; }
    const type = str(ev.type) ?? '';
    if (isObj(ev.data) || type.includes('.')) {
      // Copilot event stream.
      format = format === 'unknown' ? 'copilot' : format;
      const data = isObj(ev.data) ? ev.data : {};
      const named = str(data.model) ?? str(data.selectedModel) ?? str(data.modelId);
      if (named) model = named;
      if (type === 'user.message') {
        const content = str(data.content)?.trim();
        if (content) open.push({ user: content, assistant: '', model });
      } else if (type === 'assistant.message') {
        const content = str(data.content)?.trim();
        const turn = current();
        if (content && turn) { turn.assistant = content; turn.model = model ?? turn.model; }
      }
      continue;
    }
    if (type === 'user' || type === 'assistant') {
      format = format === 'unknown' ? 'claude' : format;
      if (ev.isSidechain === true || ev.isMeta === true || !isObj(ev.message)) continue;
      const msg = ev.message;
      const { text: body, toolOnly } = claudeText(msg.content);
      const content = body.trim();
      if (type === 'user') {
        if (!toolOnly && content) open.push({ user: content, assistant: '', model });
      } else {
        const named = str(msg.model);
        if (named && named !== '<synthetic>') model = named;
        const turn = current();
        if (content && turn) { turn.assistant = content; turn.model = model ?? turn.model; }
      }
    }
  }
  const seen = new Map<string, number>();
  const turns = open.map((t, i): TranscriptTurn => {
    const base = createHash('sha256').update(t.user).update('\u0000').update(t.assistant).digest('hex').slice(0, 32);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const last = i === open.length - 1;
    return { ...t, complete: !!t.assistant && (!last || finished), key: `${base}:${n}` };
  });
  return { format, turns, badLines };
}

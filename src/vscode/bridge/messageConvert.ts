// Converts VS Code language-model messages (text, tool calls, tool results) to the OpenAI chat format the
// local servers speak, and VS Code tool declarations to OpenAI tool specs. Pure: no I/O, no `vscode` calls
// beyond the part classes. Parts we cannot send (images, unknown data) are dropped, never guessed at.
import * as vscode from 'vscode';
import type { ChatMessage, ToolSpec } from '../../engine/model/openaiClient';

function partsOf(content: ReadonlyArray<unknown>): { text: string; calls: vscode.LanguageModelToolCallPart[]; results: vscode.LanguageModelToolResultPart[] } {
  let text = '';
  const calls: vscode.LanguageModelToolCallPart[] = [];
  const results: vscode.LanguageModelToolResultPart[] = [];
  for (const p of content) {
    if (p instanceof vscode.LanguageModelTextPart) text += p.value;
    else if (p instanceof vscode.LanguageModelToolCallPart) calls.push(p);
    else if (p instanceof vscode.LanguageModelToolResultPart) results.push(p);
    else if (isTextLike(p)) text += p.value;
  }
  return { text, calls, results };
}

/** Parts from another extension host realm may fail `instanceof`: accept anything shaped like a text part. */
function isTextLike(p: unknown): p is { value: string } {
  return typeof p === 'object' && p !== null && typeof (p as { value?: unknown }).value === 'string' && !('callId' in p);
}

/** The text of a tool result's content (text parts joined; other parts skipped). */
export function toolResultText(content: ReadonlyArray<unknown>): string {
  let out = '';
  for (const p of content) {
    if (p instanceof vscode.LanguageModelTextPart || isTextLike(p)) out += (p as { value: string }).value;
  }
  return out;
}

/**
 * VS Code messages → OpenAI messages. A user message carrying tool results becomes one `tool` message per
 * result (then its text, if any, as a user message); an assistant message with tool calls keeps them.
 */
export function toOpenAiMessages(messages: readonly vscode.LanguageModelChatRequestMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    const { text, calls, results } = partsOf(m.content);
    if (m.role === vscode.LanguageModelChatMessageRole.Assistant) {
      const toolCalls = calls.map((c) => ({ id: c.callId, name: c.name, arguments: JSON.stringify(c.input ?? {}) }));
      out.push({ role: 'assistant', content: text || (toolCalls.length ? null : ''), ...(toolCalls.length ? { toolCalls } : {}) });
      continue;
    }
    for (const r of results) out.push({ role: 'tool', content: toolResultText(r.content), toolCallId: r.callId });
    // Role 3 is System in newer VS Code builds; 1.138's enum only has User/Assistant.
    const role = (m.role as number) === 3 ? 'system' : 'user';
    if (text || results.length === 0) out.push({ role, content: text });
  }
  return out;
}

/** VS Code tool declarations → OpenAI tool specs. */
export function toOpenAiTools(tools: readonly vscode.LanguageModelChatTool[] | undefined): ToolSpec[] | undefined {
  if (!tools?.length) return undefined;
  return tools.map((t) => ({ name: t.name, description: t.description, parameters: (t.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} } }));
}

/** A tool call's JSON arguments as an object; malformed JSON becomes `{}` plus the raw text for the tool to refuse. */
export function parseToolArguments(json: string): object {
  try {
    const v: unknown = JSON.parse(json || '{}');
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : { _invalid: json.slice(0, 200) };
  } catch {
    return { _invalid: json.slice(0, 200) };
  }
}

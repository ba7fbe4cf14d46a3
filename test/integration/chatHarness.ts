// Shared pieces of the chat integration tests: reading the OpenAI-style requests the scripted server recorded,
// and reading what the chat panel actually shows — the workbench's own "Export Chat" JSON (its markdown, buttons,
// result and follow-ups), written to a temp file, so assertions see the real rendered response, not our calls.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RecordedRequest } from '../unit/model/fakeOpenAiServer';

export const VENDOR = 'memory-local';
/** A phrase only capture's extraction prompt contains (tells capture requests from answers). */
export const CAPTURE_MARK = 'extract durable memory notes';

/** Every message's text in a recorded chat request, joined (content may be a string or parts). */
export function textOf(req: RecordedRequest): string {
  const msgs = (req.body?.messages ?? []) as { content?: unknown }[];
  return msgs.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''))).join('\n');
}

export function lastUser(req: RecordedRequest): string {
  const msgs = (req.body?.messages ?? []) as { role: string; content?: unknown }[];
  const u = [...msgs].reverse().find((m) => m.role === 'user');
  return typeof u?.content === 'string' ? u.content : '';
}

export function firstMessage(req: RecordedRequest): string {
  const m = ((req.body?.messages ?? []) as { content?: unknown }[])[0];
  return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? '');
}

export const isCapture = (r: RecordedRequest): boolean => textOf(r).includes(CAPTURE_MARK);

/** One response part as the workbench exports it (markdown arrives as { value }, buttons as kind "command"). */
export interface ExportedPart {
  kind?: string;
  value?: string;
  command?: { id: string; title: string; arguments?: unknown[] };
  [k: string]: unknown;
}

export interface ExportedRequest {
  message: { text: string };
  response?: ExportedPart[];
  result?: { errorDetails?: { message: string }; metadata?: Record<string, unknown> };
  followups?: { prompt: string; label?: string; command?: string }[];
}

/** The focused chat session as the workbench exports it (workbench.action.chat.export with a target file). */
export async function exportChat(): Promise<ExportedRequest[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'memory-chat-export-'));
  try {
    const file = path.join(dir, 'chat.json');
    await vscode.commands.executeCommand('workbench.action.chat.export', vscode.Uri.file(file));
    return (JSON.parse(readFileSync(file, 'utf8')) as { requests: ExportedRequest[] }).requests;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The markdown the user sees in one exported response, joined. */
export function markdownOf(req: ExportedRequest | undefined): string {
  return (req?.response ?? []).filter((p) => typeof p.value === 'string' && (!p.kind || p.kind === 'markdownContent')).map((p) => p.value).join('');
}

export interface AskOptions {
  newChat?: boolean;
  /** Chooses the answering model (as the model picker would); default: keep the current one. */
  model?: { vendor: string; id: string };
}

export interface Asked {
  /** The participant's ChatResult as the workbench holds it (metadata, errorDetails). */
  result: { errorDetails?: { message: string }; metadata?: Record<string, unknown> } | undefined;
  /** The last request/response pair of the session, as exported. */
  shown: ExportedRequest;
  markdown: string;
}

/** Sends one message in the chat panel, waits until the response is complete, and reads back what it shows. */
export async function ask(query: string, opts: AskOptions = {}): Promise<Asked> {
  if (opts.newChat) await vscode.commands.executeCommand('workbench.action.chat.newChat');
  const result = await vscode.commands.executeCommand<Asked['result']>('workbench.action.chat.open', {
    query, blockOnResponse: true, ...(opts.model ? { modelSelector: opts.model } : {}),
  });
  const requests = await exportChat();
  const shown = requests.at(-1);
  if (!shown) throw new Error(`the chat shows no request after sending "${query.slice(0, 40)}"`);
  return { result, shown, markdown: markdownOf(shown) };
}

/** The first chat model matching `selector` once VS Code lists it (an event, never a sleep); `what` names it in the timeout. */
export async function chatModelListed(selector: vscode.LanguageModelChatSelector, what = 'the bridge model', ms = 20_000): Promise<vscode.LanguageModelChat> {
  const find = async () => (await vscode.lm.selectChatModels(selector))[0];
  const now = await find();
  if (now) return now;
  return new Promise<vscode.LanguageModelChat>((resolve, reject) => {
    const timer = setTimeout(() => { sub.dispose(); reject(new Error(`${what} never appeared in vscode.lm`)); }, ms);
    const sub = vscode.lm.onDidChangeChatModels(async () => {
      const m = await find();
      if (m) { clearTimeout(timer); sub.dispose(); resolve(m); }
    });
  });
}

// The local model bridge (SPEC R-UI-9): every `memory.localModels` entry (an OpenAI-compatible server such as
// Ollama or llama.cpp's server) becomes a VS Code language model of vendor `memory-local`, selectable in the chat
// model picker and usable by any participant, so chat, recall and capture can run with no cloud model.
// Invariants: answers stream as they arrive; cancelling the chat aborts the HTTP request; every failure is
// thrown as a LanguageModelError-style error whose message names the server and the fix, never prompt text.
import * as vscode from 'vscode';
import { isMemoryError, errorCode } from '../../engine/errors';
import type { Logger } from '../../engine/host';
import { OpenAiClient, estimateTokens, isLoopback } from '../../engine/model/openaiClient';
import type { LocalModelSetting } from '../../engine/settings';
import { parseToolArguments, toOpenAiMessages, toOpenAiTools } from './messageConvert';

export const LOCAL_VENDOR = 'memory-local';
/** 8,192 tokens: a conservative window for a local model whose entry names none (Ollama's default is 2–8k). */
export const DEFAULT_CONTEXT_WINDOW = 8192;
/** 120 s without progress: a local model may first load into memory (tens of seconds on a laptop). */
const PROGRESS_TIMEOUT_MS = 120_000;

/** VS Code's model information plus the picker flag 1.139 honours (not yet in @types/vscode 1.138). */
export interface LocalModelInfo extends vscode.LanguageModelChatInformation {
  readonly isUserSelectable: boolean;
  readonly baseUrl: string;
  readonly serverModel: string;
  readonly local: boolean;
}

/** Stable model id of an entry: its name, slugged (the picker remembers the selection by id). */
export function localModelId(entry: LocalModelSetting): string {
  return entry.name.trim().toLowerCase().replace(/[^a-z0-9._-]+/g, '-') || entry.model;
}

export function modelInfoOf(entry: LocalModelSetting): LocalModelInfo {
  const window = entry.contextWindow && entry.contextWindow > 0 ? Math.floor(entry.contextWindow) : DEFAULT_CONTEXT_WINDOW;
  // Output share: a quarter of the window, at most 4,096 tokens (typical local defaults).
  const maxOutputTokens = Math.min(4096, Math.max(256, Math.floor(window / 4)));
  const local = isLoopback(entry.baseUrl);
  return {
    id: localModelId(entry),
    name: entry.name,
    family: entry.model,
    version: '1',
    detail: local ? 'Local (Memory)' : 'Remote server (Memory)',
    tooltip: `${entry.model} at ${entry.baseUrl}`,
    maxInputTokens: window - maxOutputTokens,
    maxOutputTokens,
    capabilities: { toolCalling: true, imageInput: false },
    isUserSelectable: true,
    baseUrl: entry.baseUrl,
    serverModel: entry.model,
    local,
  };
}

/** True for a model served by our bridge from a loopback server: memory may go to it unmasked (R-MEM-7). */
export function isLocalBridgeModel(model: Pick<vscode.LanguageModelChat, 'vendor' | 'id'>, entries: readonly LocalModelSetting[]): boolean {
  if (model.vendor !== LOCAL_VENDOR) return false;
  const entry = entries.find((e) => localModelId(e) === model.id);
  return !!entry && isLoopback(entry.baseUrl);
}

/** A thrown error VS Code shows as the chat's error; LanguageModelError where the code maps onto one. */
export function toLanguageModelError(e: unknown): Error {
  if (e instanceof vscode.LanguageModelError) return e;
  if (!isMemoryError(e)) return new Error(`The local model failed unexpectedly (${(e as Error)?.name ?? 'error'}).`);
  switch (e.code) {
    case 'E_MODEL_PERMISSION': return vscode.LanguageModelError.NoPermissions(e.message);
    case 'E_MODEL_NOT_FOUND': return vscode.LanguageModelError.NotFound(e.message);
    case 'E_CANCELLED': return new vscode.CancellationError();
    default: return new Error(`Local model: ${e.message}`);
  }
}

export class LocalModelProvider implements vscode.LanguageModelChatProvider<LocalModelInfo>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;
  /** Requests served (tests and the log; no text kept). */
  requests = 0;

  /** `apiKeyOf`: the entry's key from secret storage (sent as a bearer token), if it has one. */
  constructor(
    private readonly entries: () => readonly LocalModelSetting[],
    private readonly logger: Logger,
    private readonly apiKeyOf: (entry: LocalModelSetting) => Promise<string | undefined> = async () => undefined,
  ) {}

  /** Settings changed: VS Code asks for the list again. */
  refresh(): void { this.changed.fire(); }

  provideLanguageModelChatInformation(): LocalModelInfo[] {
    const seen = new Set<string>();
    const out: LocalModelInfo[] = [];
    for (const e of this.entries()) {
      const info = modelInfoOf(e);
      if (seen.has(info.id)) continue;
      seen.add(info.id);
      out.push(info);
    }
    return out;
  }

  async provideLanguageModelChatResponse(
    model: LocalModelInfo,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    // The key belongs to the entry as the user's settings hold it now (same name and base URL).
    const entry = this.entries().find((e) => localModelId(e) === model.id && e.baseUrl === model.baseUrl);
    const apiKey = entry ? await this.apiKeyOf(entry).catch(() => undefined) : undefined;
    const client = new OpenAiClient({ baseUrl: model.baseUrl, timeoutMs: PROGRESS_TIMEOUT_MS, apiKey });
    this.requests++;
    const started = Date.now();
    let chars = 0;
    let calls = 0;
    try {
      const mo = options.modelOptions ?? {};
      const stream = client.streamChat({
        model: model.serverModel,
        messages: toOpenAiMessages(messages),
        tools: toOpenAiTools(options.tools),
        maxTokens: typeof mo.maxTokens === 'number' ? mo.maxTokens : typeof mo.max_tokens === 'number' ? mo.max_tokens : undefined,
        temperature: typeof mo.temperature === 'number' ? mo.temperature : undefined,
        signal: abort.signal,
      });
      for await (const ev of stream) {
        if (ev.type === 'text') {
          chars += ev.text.length;
          progress.report(new vscode.LanguageModelTextPart(ev.text));
        } else if (ev.type === 'tool_call') {
          calls++;
          progress.report(new vscode.LanguageModelToolCallPart(ev.call.id || `call_${calls}`, ev.call.name, parseToolArguments(ev.call.arguments)));
        }
      }
      this.logger.info('bridge.answer', { model: model.id, chars, toolCalls: calls, ms: Date.now() - started });
    } catch (e) {
      this.logger.warn('bridge.failed', { model: model.id, code: errorCode(e, 'E_INTERNAL') });
      if (token.isCancellationRequested) throw new vscode.CancellationError();
      throw toLanguageModelError(e);
    } finally {
      sub.dispose();
    }
  }

  async provideTokenCount(_model: LocalModelInfo, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    if (typeof text === 'string') return estimateTokens(text);
    let n = 4; // role and framing tokens of one message (OpenAI's rule of thumb)
    for (const m of toOpenAiMessages([text])) n += estimateTokens(m.content ?? '') + (m.toolCalls ?? []).reduce((a, c) => a + estimateTokens(c.name + c.arguments), 0);
    return n;
  }

  dispose(): void { this.changed.dispose(); }
}

// The background model for capture (SPEC R-UI-9, R-WRITE-6) over `vscode.lm`: the model named in
// `memory.backgroundModel` (id, or vendor/id), else the first eligible one, local first (our bridge's loopback
// models). Invariant: `local` is true only for our bridge's loopback models, so everything else gets masked text.
import * as vscode from 'vscode';
import { MemoryError } from '../../engine/errors';
import type { BackgroundMessage, BackgroundModel, CompleteOptions } from '../../engine/model/backgroundModel';
import { selectBackgroundModel } from '../../engine/model/backgroundModel';
import type { LocalModelSetting } from '../../engine/settings';
import { isLocalBridgeModel } from './localModelProvider';

/** Maps a vscode.lm failure to the engine's model error codes (capture records them in the ledger). */
export function modelErrorOf(e: unknown, what: string): MemoryError {
  if (e instanceof vscode.LanguageModelError) {
    if (e.code === vscode.LanguageModelError.NoPermissions.name) return new MemoryError('E_MODEL_PERMISSION', `${what}: no permission to use this model`);
    if (e.code === vscode.LanguageModelError.NotFound.name) return new MemoryError('E_MODEL_NOT_FOUND', `${what}: the model is not available`);
    if (e.code === vscode.LanguageModelError.Blocked.name) return new MemoryError('E_MODEL_UNAVAILABLE', `${what}: the request was blocked`);
    return new MemoryError('E_MODEL_ERROR', `${what}: the model failed (${e.code})`);
  }
  if (e instanceof vscode.CancellationError) return new MemoryError('E_CANCELLED', `${what}: cancelled`);
  if (e instanceof MemoryError) return e;
  return new MemoryError('E_MODEL_ERROR', `${what}: the model failed`);
}

export class LmBackgroundModel implements BackgroundModel {
  readonly id: string;
  readonly provider: string;
  readonly contextWindow: number;

  constructor(private readonly chat: vscode.LanguageModelChat, readonly local: boolean) {
    this.id = chat.id;
    this.provider = chat.vendor;
    this.contextWindow = chat.maxInputTokens;
  }

  async complete(messages: BackgroundMessage[], opts: CompleteOptions = {}): Promise<string> {
    // vscode.lm has no system role in 1.138: the system text leads the first user message.
    const sys = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
    const rest = messages.filter((m) => m.role !== 'system');
    const lm = rest.map((m, i) => {
      const content = i === 0 && sys ? `${sys}\n\n${m.content}` : m.content;
      return m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(content) : vscode.LanguageModelChatMessage.User(content);
    });
    if (lm.length === 0) lm.push(vscode.LanguageModelChatMessage.User(sys));
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (opts.signal?.aborted) throw new MemoryError('E_CANCELLED', 'background model: cancelled');
      const modelOptions: Record<string, unknown> = {};
      if (opts.maxTokens) modelOptions.maxTokens = opts.maxTokens;
      if (opts.temperature !== undefined) modelOptions.temperature = opts.temperature;
      const res = await this.chat.sendRequest(lm, { justification: 'Memory extracts durable notes from your last exchange.', modelOptions }, cts.token);
      let text = '';
      for await (const part of res.text) text += part;
      return text;
    } catch (e) {
      throw modelErrorOf(e, 'background model');
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  }
}

/**
 * The background model now, or undefined when no model is eligible (capture then records `no_eligible_model`).
 * Eligible: every chat model vscode.lm offers; our bridge's loopback models count as local and come first.
 */
export async function pickBackgroundModel(designated: string, entries: readonly LocalModelSetting[]): Promise<LmBackgroundModel | undefined> {
  let chats: vscode.LanguageModelChat[];
  try {
    chats = await vscode.lm.selectChatModels();
  } catch {
    return undefined;
  }
  const models = chats.map((c) => new LmBackgroundModel(c, isLocalBridgeModel(c, entries)));
  return selectBackgroundModel(models, designated) as LmBackgroundModel | undefined;
}

// "Memory: Add Local Model Server…" (SPEC R-UI-9): asks for a base URL and an optional API key, lists the
// server's models, lets the person pick one, tests it with a tiny request, and appends the entry to the user's
// `memory.localModels`. Nothing is saved when the server cannot be reached or the test fails (the person sees
// why and can retry). The key goes to SecretStorage (LocalModelKeys), never to settings or the log.
// "Memory: Remove Local Model Server…" removes an entry from the user's settings and deletes its key.
import * as vscode from 'vscode';
import { errorCode } from '../../engine/errors';
import type { Logger } from '../../engine/host';
import { OpenAiClient, isLoopback } from '../../engine/model/openaiClient';
import type { LocalModelSetting } from '../../engine/settings';
import { readUserLocalModels, SECTION } from '../config';
import type { LocalModelKeys } from './localModelKeys';

export const ADD_LOCAL_MODEL_COMMAND = 'memory.addLocalModel';
export const REMOVE_LOCAL_MODEL_COMMAND = 'memory.removeLocalModel';
/** Ollama's and llama.cpp server's default OpenAI-compatible endpoints. */
export const EXAMPLE_BASE_URLS = ['http://127.0.0.1:11434/v1', 'http://127.0.0.1:8080/v1'] as const;
/** 10 s to list models, 90 s for the test answer (a local model may first load into memory). */
const LIST_TIMEOUT_MS = 10_000;
const TEST_TIMEOUT_MS = 90_000;

/** Arguments tests pass instead of typing (never used by menus). */
export interface AddLocalModelArgs { baseUrl?: string; model?: string; name?: string; apiKey?: string }

export function validateBaseUrl(v: string): string | undefined {
  let u: URL;
  try { u = new URL(v.trim()); } catch { return 'Enter a URL such as http://127.0.0.1:11434/v1'; }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'The URL must start with http:// or https://';
  return undefined;
}

export function registerAddLocalModelCommand(context: vscode.ExtensionContext, logger: Logger, keys: LocalModelKeys): void {
  context.subscriptions.push(vscode.commands.registerCommand(ADD_LOCAL_MODEL_COMMAND, async (args?: AddLocalModelArgs) => {
    const baseUrl = (args?.baseUrl ?? await vscode.window.showInputBox({
      title: 'Memory: Add Local Model Server (1/3)', prompt: 'Base URL of an OpenAI-compatible server (Ollama, llama.cpp server, LM Studio, vLLM)',
      value: EXAMPLE_BASE_URLS[0], placeHolder: `${EXAMPLE_BASE_URLS[0]}  or  ${EXAMPLE_BASE_URLS[1]}`, validateInput: validateBaseUrl, ignoreFocusOut: true,
    }))?.trim();
    if (!baseUrl) return undefined;
    const bad = validateBaseUrl(baseUrl);
    if (bad) { void vscode.window.showErrorMessage(bad); return undefined; }
    // Tests pass the base URL and, when they want one, the key; a person is asked (Enter = no key).
    const apiKey = (args?.baseUrl !== undefined ? args.apiKey : await vscode.window.showInputBox({
      title: 'Memory: Add Local Model Server (API key)', prompt: 'API key, if the server needs one (kept in VS Code\'s secret storage, never in settings). Leave empty for none.',
      password: true, ignoreFocusOut: true,
    }))?.trim() || undefined;
    const client = new OpenAiClient({ baseUrl, apiKey });
    try {
      const models = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Asking ${client.host} for its models…`, cancellable: true },
        (_p, token) => { const ac = new AbortController(); token.onCancellationRequested(() => ac.abort()); return client.listModels({ signal: ac.signal, timeoutMs: LIST_TIMEOUT_MS }); });
      if (models.length === 0) throw new Error(`the server at ${client.host} lists no models: load or pull one first`);
      const model = args?.model ?? (await vscode.window.showQuickPick(models.map((m) => ({ label: m.id, description: m.contextWindow ? `${m.contextWindow} tokens` : undefined })),
        { title: 'Memory: Add Local Model Server (2/3)', placeHolder: 'Pick the model to offer in chat', ignoreFocusOut: true }))?.label;
      if (!model) return undefined;
      const info = models.find((m) => m.id === model);
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Testing ${model}…`, cancellable: true }, async (_p, token) => {
        const ac = new AbortController();
        token.onCancellationRequested(() => ac.abort());
        await client.chat({ model, messages: [{ role: 'user', content: 'Reply with OK.' }], maxTokens: 8, signal: ac.signal, timeoutMs: TEST_TIMEOUT_MS });
      });
      const name = args?.name ?? (await vscode.window.showInputBox({ title: 'Memory: Add Local Model Server (3/3)', prompt: 'Name shown in the model picker', value: `${model} (local)`, ignoreFocusOut: true }))?.trim();
      if (!name) return undefined;
      const entry: LocalModelSetting = { name, baseUrl, model, ...(info?.contextWindow ? { contextWindow: info.contextWindow } : {}) };
      // Only the user's own entries are rewritten (a workspace's value must never be copied into user settings).
      const current = readUserLocalModels().filter((e) => e.name !== name);
      if (apiKey) await keys.set(entry, apiKey);
      else await keys.delete(name);
      await vscode.workspace.getConfiguration(SECTION).update('localModels', [...current, entry], vscode.ConfigurationTarget.Global);
      logger.info('local_model.added', { host: client.host, local: isLoopback(baseUrl), key: !!apiKey });
      void vscode.window.showInformationMessage(`Added "${name}". Pick it in the chat model picker${isLoopback(baseUrl) ? '' : ' (not on this machine: memory sent to it is masked)'}.`);
      return entry;
    } catch (e) {
      const code = errorCode(e, 'E_MODEL_ERROR');
      logger.warn('local_model.add_failed', { code });
      void vscode.window.showErrorMessage(`Memory: could not use ${client.host}: ${(e as Error).message}`);
      return undefined;
    }
  }));
}

/** Arguments tests pass instead of picking (never used by menus). */
export interface RemoveLocalModelArgs { name?: string }

export function registerRemoveLocalModelCommand(context: vscode.ExtensionContext, logger: Logger, keys: LocalModelKeys): void {
  context.subscriptions.push(vscode.commands.registerCommand(REMOVE_LOCAL_MODEL_COMMAND, async (args?: RemoveLocalModelArgs) => {
    const entries = readUserLocalModels();
    const name = args?.name ?? (await vscode.window.showQuickPick(entries.map((e) => ({ label: e.name, description: `${e.model} at ${e.baseUrl}` })),
      { title: 'Memory: Remove Local Model Server', placeHolder: entries.length ? 'Pick the model to remove (its API key is deleted too)' : 'No local model servers in your settings' }))?.label;
    if (!name) return undefined;
    const rest = entries.filter((e) => e.name !== name);
    await keys.delete(name);
    if (rest.length !== entries.length) {
      await vscode.workspace.getConfiguration(SECTION).update('localModels', rest.length ? rest : undefined, vscode.ConfigurationTarget.Global);
    }
    logger.info('local_model.removed', { found: rest.length !== entries.length });
    return { removed: rest.length !== entries.length };
  }));
}

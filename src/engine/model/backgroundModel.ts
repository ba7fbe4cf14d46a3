// The background-model port (SPEC R-UI-9): the one shape capture, consolidation and reflection use to
// ask a model something. The VS Code side implements it over `vscode.lm`; the engine implements it over
// HTTP for OpenAI-compatible local servers (openaiClient.ts). `local` decides masking (R-MEM-7).

export type BackgroundRole = 'system' | 'user' | 'assistant';

export interface BackgroundMessage {
  role: BackgroundRole;
  content: string;
}

export interface CompleteOptions {
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
  /** Ask for a JSON object answer where the backend supports it (a hint; callers still parse strictly). */
  json?: boolean;
}

export interface BackgroundModel {
  /** The model's id as the provider names it (ledger `model`). */
  readonly id: string;
  /** Who serves it (ledger `provider`; quarantine by provider keys on this). */
  readonly provider: string;
  /** True for a loopback server: memory goes to it unmasked (R-MEM-7). */
  readonly local: boolean;
  /** Input window in tokens, when known. */
  readonly contextWindow?: number;
  /**
   * One completion. Rejects with a MemoryError: E_MODEL_UNAVAILABLE, E_MODEL_PERMISSION, E_MODEL_NOT_FOUND,
   * E_TOO_LARGE, E_MODEL_TIMEOUT, E_MODEL_ERROR, or E_CANCELLED when `signal` aborts.
   */
  complete(messages: BackgroundMessage[], opts?: CompleteOptions): Promise<string>;
}

/**
 * Picks the background model (R-UI-9, `memory.backgroundModel`): the designated one (by id, or
 * `provider/id`) when present, else the first local one, else the first. Undefined when there is none.
 */
export function selectBackgroundModel(models: readonly BackgroundModel[], designated = ''): BackgroundModel | undefined {
  const want = designated.trim();
  if (want) {
    const hit = models.find((m) => m.id === want || `${m.provider}/${m.id}` === want);
    if (hit) return hit;
  }
  return models.find((m) => m.local) ?? models[0];
}

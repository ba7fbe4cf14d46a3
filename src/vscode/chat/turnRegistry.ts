// Binds tool calls to the chat turn that made them. VS Code hands a tool a *copy* of the request's
// tool-invocation token (it crosses the renderer), so object identity is lost: the key is the token's chat
// session. The @memory participant registers its turn (a fresh object per user message, its conversation id,
// whether the answering model is local) for the length of the request; the drill-down budget counts per turn
// object, so it resets with every user message (R-UI-2). Calls from other sessions (agent mode) find nothing.

export interface TurnScope {
  /** A fresh object per user message: the CallBudget key. */
  readonly turn: object;
  readonly conversation: string;
  readonly project?: string;
  readonly projectType?: string;
  /** The answering model runs on this machine: tool results may go unmasked (R-MEM-7). */
  readonly local: boolean;
}

/** A stable string for a tool-invocation token (its chat session), or undefined when there is no token. */
export function sessionKeyOf(token: unknown): string | undefined {
  if (token === null || typeof token !== 'object') return undefined;
  const t = token as Record<string, unknown>;
  const res = t.sessionResource ?? t.sessionId;
  if (res === undefined || res === null) return undefined;
  if (typeof res === 'string') return res;
  const r = res as Record<string, unknown>;
  // A revived Uri has toString(); a raw UriComponents object is printed from its parts.
  if (typeof r.scheme === 'string') return `${r.scheme}://${String(r.authority ?? '')}${String(r.path ?? '')}${r.query ? `?${String(r.query)}` : ''}${r.fragment ? `#${String(r.fragment)}` : ''}`;
  return JSON.stringify(res);
}

export class TurnRegistry {
  private readonly bySession = new Map<string, TurnScope>();

  /** Registers a participant turn; the returned function ends it (call in `finally`). */
  begin(token: unknown, scope: Omit<TurnScope, 'turn'>): { scope: TurnScope; end: () => void } {
    const full: TurnScope = { ...scope, turn: {} };
    const key = sessionKeyOf(token);
    if (key) this.bySession.set(key, full);
    return {
      scope: full,
      end: () => { if (key && this.bySession.get(key) === full) this.bySession.delete(key); },
    };
  }

  /** The participant turn a tool call belongs to, if it came from one. */
  lookup(token: unknown): TurnScope | undefined {
    const key = sessionKeyOf(token);
    return key ? this.bySession.get(key) : undefined;
  }

  get size(): number { return this.bySession.size; }
}

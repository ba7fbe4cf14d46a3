// The drill-down budget of the memory tools (SPEC R-UI-2): at most N `memory_search` + `memory_expand`
// calls per user message. A chat request's tool-invocation token is the key (a WeakMap: a new message
// brings a new token, so the count resets and old tokens are collected); callers without a token get a
// fixed time window per caller id. Going over returns a sentence for the model, never an exception.

export type BudgetVerdict = { ok: true; remaining: number } | { ok: false; message: string };

export interface CallBudgetOptions {
  /** `memory.tools.maxCallsPerTurn` (3); a function so a settings change applies at once. */
  maxCalls: number | (() => number);
  /** Window for callers without a token; 60 s ≈ one agent step answering one message. */
  windowMs?: number;
  now?: () => number;
  /** What is counted, for the refusal sentence (default: the drill-down calls). */
  label?: { limit: string; calls: string; advice: string };
}

const DRILL_DOWN = {
  limit: 'Memory drill-down limit reached', calls: 'memory_search/memory_expand calls', advice: 'Answer with what you have already found',
};

/** Token-less windows kept at most; older ones are dropped first (bounded memory). */
const MAX_WINDOWS = 1000;

export class CallBudget {
  private readonly byToken = new WeakMap<object, number>();
  private readonly byCaller = new Map<string, { start: number; count: number }>();
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly label: { limit: string; calls: string; advice: string };

  constructor(private readonly opts: CallBudgetOptions) {
    this.windowMs = opts.windowMs ?? 60_000;
    this.label = opts.label ?? DRILL_DOWN;
    this.now = opts.now ?? Date.now;
  }

  private get max(): number {
    const m = typeof this.opts.maxCalls === 'function' ? this.opts.maxCalls() : this.opts.maxCalls;
    return Number.isFinite(m) && m >= 0 ? Math.floor(m) : 3;
  }

  /** Counts one call for `turnKey` (a chat request's token, or a caller id string). */
  take(turnKey: object | string): BudgetVerdict {
    const max = this.max;
    if (turnKey !== null && typeof turnKey === 'object') {
      const used = this.byToken.get(turnKey) ?? 0;
      if (used >= max) {
        return {
          ok: false,
          message: `${this.label.limit}: at most ${max} ${this.label.calls} per user message. ` +
            `${this.label.advice}; the limit resets with the next user message.`,
        };
      }
      this.byToken.set(turnKey, used + 1);
      return { ok: true, remaining: max - used - 1 };
    }
    const key = typeof turnKey === 'string' && turnKey ? turnKey : 'anonymous';
    const now = this.now();
    let w = this.byCaller.get(key);
    if (!w || now - w.start >= this.windowMs || now < w.start) {
      w = { start: now, count: 0 };
      this.byCaller.delete(key);
      this.byCaller.set(key, w);
      this.prune(now);
    }
    if (w.count >= max) {
      const wait = Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
      return {
        ok: false,
        message: `${this.label.limit}: at most ${max} ${this.label.calls} per ${Math.round(this.windowMs / 1000)} s ` +
          `for callers outside a chat request. ${this.label.advice}, or try again in ${wait} s.`,
      };
    }
    w.count++;
    return { ok: true, remaining: max - w.count };
  }

  private prune(now: number): void {
    if (this.byCaller.size <= MAX_WINDOWS) return;
    for (const [k, w] of this.byCaller) {
      if (this.byCaller.size <= MAX_WINDOWS) break;
      if (now - w.start >= this.windowMs || this.byCaller.size > MAX_WINDOWS) this.byCaller.delete(k);
    }
  }
}

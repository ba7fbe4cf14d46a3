// What the engine needs from its host (VS Code, the CLI, tests), as small interfaces.
// The engine never imports `vscode`; the VS Code side implements these.

/** Fields hold rule names, ids and counts — never memory text. */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  trace(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

export const nullLogger: Logger = { trace() {}, info() {}, warn() {}, error() {} };

/** Collects log lines in memory (tests, the CLI's doctor). */
export class MemoryLogger implements Logger {
  readonly lines: { level: string; event: string; fields?: LogFields }[] = [];
  trace(event: string, fields?: LogFields) { this.lines.push({ level: 'trace', event, fields }); }
  info(event: string, fields?: LogFields) { this.lines.push({ level: 'info', event, fields }); }
  warn(event: string, fields?: LogFields) { this.lines.push({ level: 'warn', event, fields }); }
  error(event: string, fields?: LogFields) { this.lines.push({ level: 'error', event, fields }); }
}

export function formatFields(fields?: LogFields): string {
  if (!fields) return '';
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** IANA time zone of the user, e.g. "Europe/Berlin". */
  timeZone(): string;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  timeZone: () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
};

/** A clock tests and benchmarks can set. */
export class FixedClock implements Clock {
  constructor(public ms: number, private readonly zone = 'UTC') {}
  now() { return this.ms; }
  timeZone() { return this.zone; }
  advance(ms: number) { this.ms += ms; }
}

export interface IDisposable {
  dispose(): void;
}

export class Disposable implements IDisposable {
  private readonly _disposables: IDisposable[] = [];
  private _disposed = false;
  protected _register<T extends IDisposable>(d: T): T {
    if (this._disposed) d.dispose();
    else this._disposables.push(d);
    return d;
  }
  get isDisposed() { return this._disposed; }
  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    for (const d of this._disposables.splice(0).reverse()) {
      try { d.dispose(); } catch { /* disposal must not throw */ }
    }
  }
}

export type Event<T> = (listener: (e: T) => void) => IDisposable;

/** A tiny event emitter (the engine's own, like Foam's), so the engine needs no `vscode`. */
export class Emitter<T> implements IDisposable {
  private listeners = new Set<(e: T) => void>();
  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => { this.listeners.delete(listener); } };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      try { l(e); } catch { /* a listener's failure is its own */ }
    }
  }
  dispose(): void { this.listeners.clear(); }
}

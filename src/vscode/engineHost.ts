// Owns the one MemoryEngine of this window: opens it off the activation path, reopens it when
// `memory.vaultPath` changes, and closes it (flush + compaction) at deactivation.
// Invariant: a failed open is remembered (code + message), logged and shown once; the UI stays up
// and every command that needs the engine reports the same error instead of throwing blindly.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { MemoryEngine } from '../engine/engine';
import { errorCode, isMemoryError } from '../engine/errors';
import type { Logger } from '../engine/host';
import type { EngineSettings } from '../engine/settings';
import { readLongterm } from '../engine/vault/longterm';

export interface EngineHostOptions {
  storeDir: string;
  /** Current vault folder (settings may change it). */
  vaultDir: () => string;
  settings: () => EngineSettings;
  logger: Logger;
  extensionPath: string;
}

export type EngineState =
  | { state: 'opening' }
  | { state: 'open'; engine: MemoryEngine }
  | { state: 'failed'; code: string; message: string }
  | { state: 'closed' };

export class EngineHost implements vscode.Disposable {
  private engine: MemoryEngine | undefined;
  private pending: Promise<MemoryEngine> | undefined;
  private failure: { code: string; message: string } | undefined;
  /** The open error already shown as a notification (a retry that fails the same way stays quiet). */
  private shownCode: string | undefined;
  private disposed = false;
  /** True from the start of an open until its outcome is known (set before listeners are told). */
  private opening = false;
  private readonly opened = new vscode.EventEmitter<MemoryEngine>();
  private readonly stateChanged = new vscode.EventEmitter<EngineState>();
  /** Fires each time an engine is ready (first open and every reopen). */
  readonly onDidOpen = this.opened.event;
  readonly onDidChangeState = this.stateChanged.event;
  private readonly itemsChanged = new vscode.EventEmitter<{ ids: string[] }>();
  /**
   * Fires after items change in the current engine (local writes, other windows' writes, vault edits) and
   * keeps following it across reopens: surfaces subscribe once, here, instead of to each engine.
   */
  readonly onDidChangeItems = this.itemsChanged.event;
  private itemsSub: { dispose(): void } | undefined;

  constructor(private readonly opts: EngineHostOptions) {}

  get current(): MemoryEngine | undefined { return this.engine; }

  get state(): EngineState {
    if (this.disposed) return { state: 'closed' };
    if (this.opening) return { state: 'opening' };
    if (this.engine) return { state: 'open', engine: this.engine };
    if (this.failure) return { state: 'failed', ...this.failure };
    return { state: 'opening' };
  }

  /**
   * The engine for the current vault, opening (or reopening after a vault change) when needed.
   * Rejects with the open error; callers show it with `reportFailure`.
   */
  get(): Promise<MemoryEngine> {
    if (this.disposed) return Promise.reject(new Error('the memory engine is closed'));
    const wanted = path.resolve(this.opts.vaultDir());
    if (this.pending) return this.pending.then((e) => (e.vaultDir === path.resolve(this.opts.vaultDir()) ? e : this.get()));
    if (this.engine && this.engine.vaultDir === wanted) return Promise.resolve(this.engine);
    this.opening = true;
    this.pending = this.open(wanted).finally(() => { this.pending = undefined; });
    this.stateChanged.fire({ state: 'opening' });
    return this.pending;
  }

  /** Starts opening without waiting (activation stays fast); a failure is reported, not thrown. */
  start(): void {
    this.get().catch(() => { /* reported in open() */ });
  }

  updateSettings(settings: EngineSettings): void {
    this.engine?.updateSettings(settings);
  }

  private async open(vaultDir: string): Promise<MemoryEngine> {
    const { logger } = this.opts;
    const previous = this.engine;
    this.engine = undefined;
    this.itemsSub?.dispose();
    this.itemsSub = undefined;
    if (previous) await previous.close().catch((e) => logger.warn('engine.close_failed', { code: errorCode(e, 'E_INTERNAL') }));
    const started = Date.now();
    try {
      const wasmPath = path.join(this.opts.extensionPath, 'dist', 'sql-wasm.wasm');
      const engine = await MemoryEngine.open({
        storeDir: this.opts.storeDir,
        vaultDir,
        settings: this.opts.settings(),
        logger,
        wasmPath: existsSync(wasmPath) ? wasmPath : undefined,
      });
      if (this.disposed) {
        await engine.close();
        throw new Error('the memory engine is closed');
      }
      // The long-term file sits at the top of the Vault tree; create it from its template once.
      await readLongterm(engine.vaultDir, { create: true }).catch((e) => logger.warn('longterm.create_failed', { code: errorCode(e, 'E_INTERNAL') }));
      this.engine = engine;
      this.itemsSub = engine.onDidChange((e) => this.itemsChanged.fire(e));
      this.opening = false;
      this.failure = undefined;
      this.shownCode = undefined;
      logger.info('engine.opened', { ms: Date.now() - started, items: engine.itemCount() });
      // R-STORE-3: a repaired store is announced once (the store remembers it was told, across windows).
      void engine.takeRecoveryNotice().then(
        (notice) => { if (notice) void vscode.window.showWarningMessage(notice); },
        (e) => logger.warn('engine.recovery_notice_failed', { code: errorCode(e, 'E_INTERNAL') }),
      );
      this.opened.fire(engine);
      this.stateChanged.fire({ state: 'open', engine });
      return engine;
    } catch (e) {
      const code = errorCode(e, 'E_INTERNAL');
      this.opening = false;
      this.failure = { code, message: isMemoryError(e) ? e.message : 'unexpected error' };
      logger.error('engine.open_failed', { code });
      this.stateChanged.fire({ state: 'failed', ...this.failure });
      if (this.shownCode !== code) {
        this.shownCode = code;
        void vscode.window.showErrorMessage(`Memory could not open its store (${code}): ${this.failure.message}. The views stay available; see the "Memory" output.`);
      }
      throw e;
    }
  }

  /** Flushes buffers and closes the store (compacting it). Safe to call twice. */
  async close(): Promise<void> {
    this.disposed = true;
    const pending = this.pending;
    if (pending) await pending.catch(() => undefined);
    const engine = this.engine;
    this.engine = undefined;
    this.itemsSub?.dispose();
    this.itemsSub = undefined;
    if (engine) await engine.close();
    this.stateChanged.fire({ state: 'closed' });
  }

  dispose(): void {
    void this.close().catch((e) => this.opts.logger.warn('engine.close_failed', { code: errorCode(e, 'E_INTERNAL') }));
    this.opened.dispose();
    this.stateChanged.dispose();
    this.itemsChanged.dispose();
  }
}

/** Shows an engine error to the person who ran a command (code + message, never memory text). */
/**
 * A command registrar for one surface: each command's failure reaches the user as a sentence and the log as
 * a code (`reportFailure`), and the command resolves to undefined instead of rejecting.
 */
export function commandRegistrar(context: vscode.ExtensionContext, logger: Logger) {
  return (id: string, action: string, fn: (...args: unknown[]) => Promise<unknown>): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (e) {
        reportFailure(logger, action, e);
        return undefined;
      }
    }));
  };
}

export function reportFailure(logger: Logger, action: string, e: unknown): void {
  const code = errorCode(e, 'E_INTERNAL');
  logger.warn(`${action}.failed`, { code });
  const msg = isMemoryError(e) ? e.message : 'unexpected error';
  void vscode.window.showErrorMessage(`Memory: ${action} failed (${code}): ${msg}`);
}

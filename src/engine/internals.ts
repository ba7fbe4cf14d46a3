// The engine's parts behind the facade, for the engine's own tests and benchmarks only.
// Surfaces and the CLI talk to `MemoryEngine`'s verbs; the import rules (test/unit/imports.test.ts)
// refuse any import of this module from src/ outside src/engine. This module imports no engine code
// at run time (types only), so it closes no import cycle.
import type { BackgroundModel } from './model/backgroundModel';
import type { Clock, Logger } from './host';
import type { HealthMonitor } from './maintain/health';
import type { Recaller } from './recall/recaller';
import type { RecallIndex } from './recall/recallIndex';
import type { EngineSettings } from './settings';
import type { Store } from './store/store';
import type { VaultIndex } from './vault/vaultIndex';
import type { CaptureDeps } from './write/capture';
import type { TurnWriter } from './write/turnWriter';

export interface EngineParts {
  readonly store: Store;
  readonly vault: VaultIndex;
  readonly writer: TurnWriter;
  readonly recaller: Recaller;
  /** The recall index with every store change so far applied (a read here never misses a write). */
  readonly index: RecallIndex;
  /** The same index without the catch-up (to observe when store changes reach it). */
  readonly rawIndex: RecallIndex;
  readonly healthMonitor: HealthMonitor;
}

// A global symbol, not a module-local WeakMap: the integration tests reach the extension's engine (from
// dist/extension.js) with their own copy of this module, and Symbol.for is shared across copies.
const PARTS = Symbol.for('vscode-memory.engineParts');

/** Called once by the engine's constructor. */
export function registerEngineParts(engine: object, parts: EngineParts): void {
  Object.defineProperty(engine, PARTS, { value: parts, enumerable: false, configurable: false, writable: false });
}

/** The parts of an open engine (tests and benchmarks). */
export function internals(engine: object): EngineParts {
  const parts = (engine as { [PARTS]?: EngineParts })[PARTS];
  if (!parts) throw new Error('not a MemoryEngine');
  return parts;
}

/** What capture needs from an engine (what `engine.capture(…)` passes), with overrides for tests. */
export function captureDepsOf(
  engine: { vaultDir: string; settings: Readonly<EngineSettings>; clock: Clock; logger: Logger },
  model: BackgroundModel | undefined, extra: Partial<CaptureDeps> = {},
): CaptureDeps {
  const p = internals(engine);
  return {
    store: p.store, vault: p.vault, vaultDir: engine.vaultDir, settings: engine.settings as EngineSettings,
    clock: engine.clock, logger: engine.logger, model, afterWrite: () => p.index.embedPending().then(() => undefined), ...extra,
  };
}

// Test builders for engine tests: a fresh engine on real files in a temp folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MemoryEngine, type EngineOptions } from '../../../src/engine/engine';
import { FixedClock, MemoryLogger } from '../../../src/engine/host';
import type { TurnInput } from '../../../src/engine/write/turnWriter';

export const T0 = Date.parse('2026-11-02T09:00:00Z');

export interface TestEngine {
  engine: MemoryEngine;
  dir: string;
  storeDir: string;
  vaultDir: string;
  clock: FixedClock;
  logger: MemoryLogger;
  reopen(): Promise<MemoryEngine>;
  cleanup(): Promise<void>;
}

export async function createTestEngine(opts: Partial<EngineOptions> = {}): Promise<TestEngine> {
  const dir = mkdtempSync(path.join(tmpdir(), 'memory engine '));
  const storeDir = path.join(dir, 'store');
  const vaultDir = path.join(dir, 'vault');
  const clock = new FixedClock(T0);
  const logger = new MemoryLogger();
  const open = () => MemoryEngine.open({ storeDir, vaultDir, clock, logger, ...opts });
  const t: TestEngine = {
    engine: await open(), dir, storeDir, vaultDir, clock, logger,
    async reopen() {
      await t.engine.close();
      t.engine = await open();
      return t.engine;
    },
    async cleanup() {
      await t.engine.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}

let turnNo = 0;
/** A turn long enough to pass the save filter. */
export function turn(over: Partial<TurnInput> = {}): TurnInput {
  turnNo++;
  return {
    conversation: 'conv-1',
    user: `Question number ${turnNo}: how should we configure the staging deployment for the payments service?`,
    assistant: `Answer number ${turnNo}: use the blue-green pipeline with a manual approval step before the production switch.`,
    ...over,
  };
}

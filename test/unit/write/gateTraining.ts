// The gate's reproduction tests retrain both shipped models (`npm run train:gate`: ~35 s for the first, ~150 s for the
// second on the CI machine). The unit suite runs on one core, so the trainings run on a worker thread instead: they
// start when a test file that needs them is loaded (mocha loads every file before it runs the first test) and overlap
// the rest of the suite; the tests wait for their result. The worker is unref'd: a run that never reaches those tests
// (a --grep, a single file) exits without waiting for it. Same code, same data, same bytes as training inline.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { trainShipped } from '../../../src/engine/write/poisonGateTrain';

/** One training's result (what trainShipped / trainSecondShipped return), or null when the deepset split is absent. */
export type Trained = ReturnType<typeof trainShipped> | null;

let started: { first: Promise<Trained>; second: Promise<Trained> } | null = null;

/** Starts both trainings once (later calls share them) and gives their results as they finish. */
export function shippedTrainings(): { first: Promise<Trained>; second: Promise<Trained> } {
  if (started) return started;
  const waiting = new Map<string, { resolve: (v: Trained) => void; reject: (e: Error) => void }>();
  const promise = (kind: string) => new Promise<Trained>((resolve, reject) => { waiting.set(kind, { resolve, reject }); });
  const first = promise('first'), second = promise('second');
  // Nobody may be waiting yet (or ever, under --grep): a failure is kept for the tests, never an unhandled rejection.
  first.catch(() => undefined);
  second.catch(() => undefined);
  const failAll = (e: Error) => { for (const w of waiting.values()) w.reject(e); waiting.clear(); };
  const worker = new Worker(join(__dirname, 'gateTrainingWorker.js'));
  worker.unref();
  worker.on('message', (m: { kind: string; value: unknown }) => {
    if (m.kind === 'error') return failAll(new Error(`gate training worker: ${String(m.value)}`));
    const w = waiting.get(m.kind);
    waiting.delete(m.kind);
    w?.resolve(m.value as Trained);
  });
  worker.on('error', (e) => failAll(e));
  worker.on('exit', (code) => failAll(new Error(`gate training worker exited (code ${code}) before it posted every result`)));
  started = { first, second };
  return started;
}

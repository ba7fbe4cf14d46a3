// A worker thread of the gate pool (gatePool.ts): runs the poison gate on batches of texts and answers
// with the verdicts in the same order. The same `gate` as the main thread (same code, same shipped weights),
// so a verdict never depends on which thread computed it. Bundled on its own as dist/gateWorker.js.
import { parentPort } from 'node:worker_threads';
import { gate } from './poisonGate';

interface Request { id: number; texts: string[] }

parentPort?.on('message', (req: Request) => {
  try {
    parentPort!.postMessage({ id: req.id, results: req.texts.map((t) => gate(t)) });
  } catch (e) {
    parentPort!.postMessage({ id: req.id, error: (e as Error)?.name ?? 'error' });
  }
});

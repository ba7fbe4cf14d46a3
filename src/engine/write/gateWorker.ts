// A worker thread of the gate pool (gatePool.ts): runs the poison gate on batches of texts and answers with
// the verdicts in the same order (with `dims`, also each text's hash embedder vector: an import's messages are
// gated and embedded in one pass) — or, op 'embed', the vectors alone, or, op 'flush', a flush's
// analysis (flushAnalysis.ts). The same code and shipped weights as the main thread, so an answer never depends
// on which thread computed it. Bundled on its own as dist/gateWorker.js.
import { parentPort } from 'node:worker_threads';
import { HashEmbedder } from '../embed/hashEmbedder';
import { analyzeFlush, type FlushTexts } from './flushAnalysis';
import { gate } from './poisonGate';

interface Request { id: number; texts: string[]; op?: 'embed' | 'flush'; dims?: number; flush?: FlushTexts }

const embedders = new Map<number, HashEmbedder>();

function embed(texts: string[], dims: number): Float32Array[] {
  let e = embedders.get(dims);
  if (!e) embedders.set(dims, (e = new HashEmbedder(dims)));
  return texts.map((t) => e.embedOne(t));
}

// Vectors travel as transferred buffers (no copy).
function answer(id: number, results: unknown[], vectors?: Float32Array[]): void {
  const transfer = (vectors ?? results).flatMap((v) => (v instanceof Float32Array ? [v.buffer as ArrayBuffer] : []));
  parentPort!.postMessage(vectors ? { id, results, vectors } : { id, results }, transfer);
}

parentPort?.on('message', (req: Request) => {
  try {
    if (req.op === 'flush') answer(req.id, [analyzeFlush(req.flush!)]);
    else if (req.op === 'embed') answer(req.id, embed(req.texts, req.dims!));
    else answer(req.id, req.texts.map((t) => gate(t)), req.dims ? embed(req.texts, req.dims) : undefined);
  } catch (e) {
    parentPort!.postMessage({ id: req.id, error: (e as Error)?.name ?? 'error' });
  }
});

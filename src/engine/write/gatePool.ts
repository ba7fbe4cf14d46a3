// The poison gate on more than one core, for bulk work (an import of thousands of messages): the texts are
// cut into small batches that worker threads (gateWorker.ts) and the calling thread take in turn, so a
// slow batch or a busy main thread never holds the others up. The verdicts are the same as `texts.map(gate)`
// — the workers run the same gate with the same shipped weights — and come back in input order.
//
// Failure is never a lost or changed verdict: a worker that cannot start, throws or exits hands its batch
// back to the calling thread and leaves the pool; with no worker file next to the bundle (a test's own
// bundle) or one core, everything runs inline. Workers start on the first large call, are `unref`'d while
// idle (they never keep a CLI or hook process alive) and end after IDLE_MS without work.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../host';
import { fitsTexts, type FlushAnalysis, type FlushTexts } from './flushAnalysis';
import { gate, type GateResult } from './poisonGate';

/** Texts per message to a worker: small enough to balance, large enough that posting costs little. */
const BATCH = 32;
/** Below this many texts the pool gates inline (a worker's start costs more than it saves). */
export const POOL_MIN_TEXTS = 256;
/** Below this many texts an embedding batch stays on the calling thread (a round trip costs more than it saves). */
export const EMBED_MIN_TEXTS = 16;
/** A batch this large (the index's full batch: a backlog) may start the workers; smaller ones use running workers only. */
export const EMBED_SPAWN_TEXTS = 64;
const IDLE_MS = 5_000;
/** Batches a worker holds at once, so it never waits for the calling thread between two. */
const IN_FLIGHT = 2;

export interface GatePoolOptions {
  /** Worker threads (default: one fewer than the cores, at most 3; 0 gates inline). */
  workers?: number;
  /** The worker script (default: gateWorker.js next to this module or bundle). */
  workerFile?: string;
  logger?: Logger;
}

/** Worker threads for the pool by default: the calling thread is the other core. */
export function defaultGateWorkers(): number {
  return Math.max(0, Math.min(3, availableParallelism() - 1));
}

/**
 * Verdicts being computed (GatePool.start): `wait()` resolves with them in input order. Started with `embedDims`,
 * `vectors` then holds the hash embedder's vector of that width (HashEmbedder.embedOne) of each text a worker gated —
 * undefined where this thread gated the text (the caller embeds those the usual way).
 */
export interface GateJob {
  wait(): Promise<GateResult[]>;
  readonly vectors: readonly (Float32Array | undefined)[];
}

/** A worker's answer: its results in order, and with a gate job's `dims` the vectors of the same texts. */
interface Answer { results: unknown[]; vectors?: Float32Array[] }

/** A worker's vectors are taken only when there is one Float32Array of width `dims` per text (else the caller embeds). */
function vectorsOfWidth(vs: readonly unknown[] | null | undefined, count: number, dims: number): vs is Float32Array[] {
  return !!vs && vs.length === count && vs.every((v) => v instanceof Float32Array && v.length === dims);
}
interface Pending { resolve: (a: Answer) => void; reject: (e: Error) => void }

/**
 * A worker's job: the gate's verdicts for `texts` (with `dims`, also the hash embedder's vectors of width `dims`),
 * the vectors alone (op 'embed'), or a flush's analysis (op 'flush').
 */
type Job = { texts: string[]; op?: 'embed' | 'flush'; dims?: number; flush?: FlushTexts };

class Slot {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  dead = false;

  constructor(private readonly worker: Worker, onDeath: (slot: Slot, code: string) => void) {
    worker.unref();
    worker.on('message', (m: { id: number; results?: unknown[]; vectors?: Float32Array[]; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) worker.unref();
      if (m.results) p.resolve({ results: m.results, vectors: m.vectors });
      else p.reject(new Error(m.error ?? 'worker_error'));
    });
    const die = (code: string) => {
      if (this.dead) return;
      this.dead = true;
      for (const p of this.pending.values()) p.reject(new Error(code));
      this.pending.clear();
      onDeath(this, code);
    };
    worker.on('error', (e) => die((e as NodeJS.ErrnoException)?.code ?? e?.name ?? 'error'));
    worker.on('exit', (code) => die(`exit_${code}`));
  }

  run(texts: string[], dims?: number): Promise<Answer> {
    return this.post(dims ? { texts, dims } : { texts });
  }

  post(job: Job): Promise<Answer> {
    if (this.dead) return Promise.reject(new Error('dead'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref(); // a pending answer keeps the process alive
      this.worker.postMessage({ id, ...job });
    });
  }

  /** Answers this slot still owes. */
  get load(): number {
    return this.pending.size;
  }

  /** Ends the worker; batches it still holds are handed back (their callers gate them inline). */
  terminate(): Promise<unknown> {
    this.dead = true;
    for (const p of this.pending.values()) p.reject(new Error('closed'));
    this.pending.clear();
    return this.worker.terminate();
  }
}

export class GatePool {
  private slots: Slot[] = [];
  private started = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private active = 0;
  private readonly workers: number;
  private readonly workerFile: string;
  private readonly logger: Logger | undefined;
  /**
   * Texts gated so far by the workers and by the calling thread, texts embedded by the workers (of those, how many
   * with their verdicts: `start` with `embedDims`), flushes analysed there (benchmarks, tests).
   */
  readonly counts = { workers: 0, inline: 0, embedded: 0, embeddedWithVerdicts: 0, analysed: 0 };

  constructor(opts: GatePoolOptions = {}) {
    this.workers = Math.max(0, Math.floor(opts.workers ?? defaultGateWorkers()));
    this.workerFile = opts.workerFile ?? path.join(__dirname, 'gateWorker.js');
    this.logger = opts.logger;
  }

  /** Worker threads running now (0 before the first large call, after idling and when gating inline). */
  get running(): number {
    return this.slots.filter((s) => !s.dead).length;
  }

  /** The gate's verdicts for `texts`, in order — the same as `texts.map(gate)`. */
  gateMany(texts: readonly string[]): Promise<GateResult[]> {
    return this.start(texts).wait();
  }

  /**
   * Starts gating `texts` on the workers and returns at once; the calling thread joins in (takes batches
   * itself) only once `wait()` is called — so a caller with its own work to do (an import writing the previous
   * chunk) leaves the workers theirs, and gates only what is left when it needs the answer. A job never waited
   * for ends with its workers' batches (nothing else is done for it).
   */
  start(texts: readonly string[], opts: { embedDims?: number } = {}): GateJob {
    const inlineAll = (): Promise<GateResult[]> => { this.counts.inline += texts.length; return Promise.resolve(texts.map((t) => gate(t))); };
    const slots = texts.length < POOL_MIN_TEXTS || this.workers === 0 ? [] : (this.spawn(), this.slots.filter((s) => !s.dead));
    const vectors = new Array<Float32Array | undefined>(texts.length);
    if (slots.length === 0) {
      let done: Promise<GateResult[]> | undefined;
      return { wait: () => (done ??= inlineAll()), vectors };
    }
    const dims = opts.embedDims && Number.isInteger(opts.embedDims) && opts.embedDims > 0 ? opts.embedDims : undefined;
    this.active++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const out = new Array<GateResult>(texts.length);
    let next = 0;
    const take = (): [number, number] | null => (next >= texts.length ? null : [next, (next = Math.min(texts.length, next + BATCH))]);
    const inline = ([a, b]: [number, number]) => { for (let i = a; i < b; i++) out[i] = gate(texts[i]!); this.counts.inline += b - a; };
    const viaWorker = async (slot: Slot) => {
      for (let r = take(); r; r = take()) {
        const range = r;
        try {
          const answer = await slot.run(texts.slice(range[0], range[1]) as string[], dims);
          const res = answer.results as GateResult[];
          if (res.length !== range[1] - range[0]) throw new Error('short_answer');
          for (let i = 0; i < res.length; i++) out[range[0] + i] = res[i]!;
          this.counts.workers += res.length;
          const vs = answer.vectors;
          if (dims && vectorsOfWidth(vs, res.length, dims)) {
            for (let i = 0; i < vs.length; i++) vectors[range[0] + i] = vs[i];
            this.counts.embedded += vs.length;
            this.counts.embeddedWithVerdicts += vs.length;
          }
        } catch {
          inline(range); // the batch is never lost: this thread gates it
          return;
        }
      }
    };
    const here = async () => {
      for (let r = take(); r; r = take()) {
        inline(r);
        await new Promise<void>((resolve) => setImmediate(resolve)); // let the workers' answers in
      }
    };
    const workersDone = Promise.all(slots.flatMap((s) => Array.from({ length: IN_FLIGHT }, () => viaWorker(s))));
    void workersDone.finally(() => { this.active--; this.armIdle(); });
    let done: Promise<GateResult[]> | undefined;
    return { wait: () => (done ??= Promise.all([workersDone, here()]).then(() => out)), vectors };
  }

  /**
   * The hash embedder's vectors for `texts` (HashEmbedder.embedOne of width `dims`, in order), computed on the
   * least busy worker so the calling thread goes on with its own work meanwhile; `null` when no worker can take
   * it (small batches, no workers, none running for a batch below EMBED_SPAWN_TEXTS, a worker failing) — the caller
   * then embeds inline. Same code, same vectors.
   */
  async embedMany(texts: readonly string[], dims: number): Promise<Float32Array[] | null> {
    if (texts.length < EMBED_MIN_TEXTS) return null;
    const res = await this.onWorker({ op: 'embed', texts: texts as string[], dims }, texts.length >= EMBED_SPAWN_TEXTS);
    if (!vectorsOfWidth(res, texts.length, dims)) return null;
    this.counts.embedded += res.length;
    return res;
  }

  /**
   * A flush's analysis (flushAnalysis.ts) computed on a worker, or `null` (no worker, or one failing, or — unless
   * `spawn` — none running yet): the caller then analyses inline. Same code, same answer.
   */
  async analyzeFlush(texts: FlushTexts, spawn: boolean): Promise<FlushAnalysis | null> {
    const res = await this.onWorker({ op: 'flush', texts: [], flush: texts }, spawn);
    if (!res || res.length !== 1 || !fitsTexts(res[0], texts)) return null;
    this.counts.analysed++;
    return res[0];
  }

  /** Runs `job` on the least busy worker; null when none can (none configured or running, or it fails). */
  private async onWorker(job: Job, spawn: boolean): Promise<unknown[] | null> {
    if (this.workers === 0) return null;
    if (spawn) this.spawn();
    const slot = this.slots.filter((s) => !s.dead).sort((a, b) => a.load - b.load)[0];
    if (!slot) return null;
    this.active++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    try {
      return (await slot.post(job)).results;
    } catch {
      return null;
    } finally {
      this.active--;
      this.armIdle();
    }
  }

  /** Ends the workers (the pool starts them again on its next large call). */
  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const slots = this.slots;
    this.slots = [];
    this.started = false;
    await Promise.all(slots.map((s) => s.terminate().catch(() => undefined)));
  }

  private spawn(): void {
    if (this.started) return;
    this.started = true;
    if (!existsSync(this.workerFile)) {
      this.logger?.info('gate.pool_inline', { reason: 'no_worker_file' });
      return;
    }
    for (let i = 0; i < this.workers; i++) {
      try {
        this.slots.push(new Slot(new Worker(this.workerFile), (_slot, code) => {
          if (!code.startsWith('exit_') || this.started) this.logger?.warn('gate.pool_failed', { code });
        }));
      } catch (e) {
        this.logger?.warn('gate.pool_failed', { code: (e as NodeJS.ErrnoException)?.code ?? 'start' });
      }
    }
  }

  private armIdle(): void {
    if (this.active > 0 || this.slots.length === 0) return;
    this.idleTimer = setTimeout(() => { if (this.active === 0) void this.close(); }, IDLE_MS);
    this.idleTimer.unref();
  }
}

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
import { gate, type GateResult } from './poisonGate';

/** Texts per message to a worker: small enough to balance, large enough that posting costs little. */
const BATCH = 32;
/** Below this many texts the pool gates inline (a worker's start costs more than it saves). */
export const POOL_MIN_TEXTS = 256;
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

interface Pending { resolve: (r: GateResult[]) => void; reject: (e: Error) => void }

class Slot {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  dead = false;

  constructor(private readonly worker: Worker, onDeath: (slot: Slot, code: string) => void) {
    worker.unref();
    worker.on('message', (m: { id: number; results?: GateResult[]; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0) worker.unref();
      if (m.results) p.resolve(m.results);
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

  run(texts: string[]): Promise<GateResult[]> {
    if (this.dead) return Promise.reject(new Error('dead'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref(); // a pending answer keeps the process alive
      this.worker.postMessage({ id, texts });
    });
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
  /** Texts gated so far by the workers and by the calling thread (benchmarks, tests). */
  readonly counts = { workers: 0, inline: 0 };

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
  async gateMany(texts: readonly string[]): Promise<GateResult[]> {
    const allInline = () => { this.counts.inline += texts.length; return texts.map((t) => gate(t)); };
    if (texts.length < POOL_MIN_TEXTS || this.workers === 0) return allInline();
    this.start();
    const slots = this.slots.filter((s) => !s.dead);
    if (slots.length === 0) return allInline();
    this.active++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    try {
      const out = new Array<GateResult>(texts.length);
      let next = 0;
      const take = (): [number, number] | null => (next >= texts.length ? null : [next, (next = Math.min(texts.length, next + BATCH))]);
      const inline = ([a, b]: [number, number]) => { for (let i = a; i < b; i++) out[i] = gate(texts[i]!); this.counts.inline += b - a; };
      const viaWorker = async (slot: Slot) => {
        for (let r = take(); r; r = take()) {
          const range = r;
          try {
            const res = await slot.run(texts.slice(range[0], range[1]) as string[]);
            if (res.length !== range[1] - range[0]) throw new Error('short_answer');
            for (let i = 0; i < res.length; i++) out[range[0] + i] = res[i]!;
            this.counts.workers += res.length;
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
      await Promise.all([...slots.flatMap((s) => Array.from({ length: IN_FLIGHT }, () => viaWorker(s))), here()]);
      return out;
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

  private start(): void {
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

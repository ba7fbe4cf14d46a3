// The store's lock file (memory.lock), held around journal append and compaction by one process
// (or one Store instance) at a time. Created with O_EXCL; holds {pid, host, at, token}. A lock whose
// pid is dead (same host) or that is older than `staleMs` is broken under a second, short-lived
// `.break` lock so two breakers can never remove a lock a third process has just taken.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { MemoryError } from '../errors';
import type { Logger } from '../host';

interface LockContent {
  pid: number;
  host: string;
  at: number;
  token: string;
}

export interface FileLockOptions {
  logger: Logger;
  /** A held lock older than this is stale. 30 s: compaction of 100k items takes ~1–2 s. */
  staleMs?: number;
}

/** Maps a file-system error to a MemoryError a person can act on. */
export function ioError(e: unknown, what: string): Error {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new MemoryError('E_READ_ONLY', `the memory store folder is not writable (${code} while ${what})`, { code });
  }
  return e instanceof Error ? e : new Error(String(e));
}

const EMPTY_LOCK_GRACE_MS = 2_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class FileLock {
  private readonly token = crypto.randomBytes(8).toString('hex');
  private held = false;
  private readonly staleMs: number;

  constructor(readonly file: string, private readonly opts: FileLockOptions) {
    this.staleMs = opts.staleMs ?? 30_000;
  }

  get isHeld() { return this.held; }

  /** One attempt, synchronous. Breaks a stale lock on the way. */
  tryAcquire(): boolean {
    if (this.held) throw new MemoryError('E_INTERNAL', 'store lock is not re-entrant');
    if (this.create()) return true;
    const current = this.read();
    if (current && this.isStale(current)) {
      this.breakStale(current);
      return this.create();
    }
    return false;
  }

  /** Waits (1 → 20 ms backoff) until the lock is ours; E_LOCKED after `timeoutMs`. */
  async acquire(timeoutMs = 60_000): Promise<void> {
    const start = Date.now();
    let wait = 1;
    while (!this.tryAcquire()) {
      if (Date.now() - start > timeoutMs) {
        throw new MemoryError('E_LOCKED', `the memory store is locked by another process for more than ${timeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 20);
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    const current = this.read();
    // Only remove our own lock: a peer may have broken ours as stale and taken it.
    if (current && current.token !== this.token) return;
    try {
      fs.unlinkSync(this.file);
    } catch {
      /* already gone */
    }
  }

  private create(): boolean {
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw ioError(e, 'creating the lock file');
    }
    try {
      const content: LockContent = { pid: process.pid, host: os.hostname(), at: Date.now(), token: this.token };
      fs.writeSync(fd, JSON.stringify(content));
    } finally {
      fs.closeSync(fd);
    }
    this.held = true;
    return true;
  }

  /** undefined when missing; {token:''} placeholder when being written or unparsable (judged by mtime). */
  private read(): (LockContent & { mtime: number }) | undefined {
    try {
      const mtime = fs.statSync(this.file).mtimeMs;
      const text = fs.readFileSync(this.file, 'utf8');
      try {
        return { ...(JSON.parse(text) as LockContent), mtime };
      } catch {
        return { pid: 0, host: '', at: mtime, token: '', mtime };
      }
    } catch {
      return undefined;
    }
  }

  private isStale(c: LockContent & { mtime: number }): boolean {
    const age = Date.now() - Math.max(c.at, c.mtime);
    if (age > this.staleMs) return true;
    // Empty: its creator is between open and write (microseconds) or died there (SIGKILL). 2 s tells them apart.
    if (c.token === '') return age > EMPTY_LOCK_GRACE_MS;
    return c.host === os.hostname() && c.pid !== process.pid && !alive(c.pid);
  }

  private breakStale(judged: LockContent & { mtime: number }): void {
    const breaker = `${this.file}.break`;
    let fd: number;
    try {
      fd = fs.openSync(breaker, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError(e, 'breaking a stale lock');
      // A breaker that died mid-break leaves this behind; 5 s is far above the microseconds a break takes.
      try {
        if (Date.now() - fs.statSync(breaker).mtimeMs > 5_000) fs.unlinkSync(breaker);
      } catch {
        /* someone else cleaned it */
      }
      return;
    }
    fs.closeSync(fd);
    try {
      const again = this.read();
      if (again && again.token === judged.token && again.mtime === judged.mtime) {
        fs.unlinkSync(this.file);
        this.opts.logger.warn('store.lock_broken', { pid: judged.pid, ageMs: Date.now() - judged.mtime });
      }
    } finally {
      try {
        fs.unlinkSync(breaker);
      } catch {
        /* gone */
      }
    }
  }
}

// When the journal is fdatasynced (store.ts). An ordinary transaction is acknowledged only after the fsync of
// its own append. A transaction that defers its fsync (a bulk derivation: `store.transaction(fn, { defer: true })`,
// whose caller awaits `store.sync()` before it reports anything done) resolves once applied and appended; the
// journal is then fdatasynced once `syncEveryRecords` such records or `syncEveryMs` have gone by, at `sync()`,
// at close, by a compaction (its snapshot is fsynced and holds them) and by the next ordinary transaction. One
// fdatasync covers every byte appended before it (one file), so what is durable is always a prefix of the
// journal; a process that dies loses nothing it appended (the OS holds it) — only a power cut can take the
// deferred records not yet synced, none of them acknowledged to a caller that waited for `sync()`.
import * as fs from 'node:fs';
import { MemoryError } from '../errors';
import { ioError } from './fileLock';

export interface JournalSyncPolicy {
  /** Deferred records appended before the journal is fdatasynced anyway (default 64). */
  syncEveryRecords?: number;
  /** Age of the oldest unsynced deferred record (ms, wall time) at which the next append fdatasyncs (default 1,000). */
  syncEveryMs?: number;
}

export class JournalSync {
  private readonly everyRecords: number;
  private readonly everyMs: number;
  private unsynced = 0;
  private oldest = 0;
  /** fdatasyncs of the journal so far (the store's `written.journalSyncs`). */
  count = 0;

  constructor(p: JournalSyncPolicy) {
    this.everyRecords = p.syncEveryRecords ?? 64;
    this.everyMs = p.syncEveryMs ?? 1_000;
    if (!Number.isInteger(this.everyRecords) || this.everyRecords < 1) throw new MemoryError('E_USAGE', 'syncEveryRecords must be a whole number of at least 1');
    if (!Number.isFinite(this.everyMs) || this.everyMs < 0) throw new MemoryError('E_USAGE', 'syncEveryMs must be a number of milliseconds, at least 0');
  }

  /** Whether an append of `records` records must fdatasync: always when one of them is ordinary, else by the policy. */
  due(records: number, allDeferred: boolean): boolean {
    if (!allDeferred) return true;
    return this.unsynced + records >= this.everyRecords || (this.unsynced > 0 && Date.now() - this.oldest >= this.everyMs);
  }

  /** Records were appended; `synced`: with an fdatasync after them. */
  appended(records: number, synced: boolean): void {
    if (synced) {
      this.count++;
      return this.synced();
    }
    if (this.unsynced === 0) this.oldest = Date.now();
    this.unsynced += records;
  }

  /** Deferred records appended and not yet fdatasynced. */
  get pending(): boolean {
    return this.unsynced > 0;
  }

  synced(): void {
    this.unsynced = 0;
  }

  /** fdatasyncs `journal` if deferred records wait (another process's compaction may have replaced it: its fsynced snapshot holds them). */
  syncNow(journal: string): void {
    if (!this.pending) return;
    try {
      syncFile(journal);
    } catch (e) {
      throw ioError(e, 'syncing the journal');
    }
    this.count++;
    this.synced();
  }
}

/** fdatasyncs `file` (the journal: every byte appended to it so far becomes durable). */
function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r+'); // writable: Windows flushes only a handle with write access
  try {
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

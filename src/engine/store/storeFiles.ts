// The store's snapshot reads and writes (store.ts): a large snapshot read on demand, a smaller one into
// memory sql.js can grow in place; the snapshot written from the live file; other files read whole, and a
// file's identity (inode, size, times) for noticing that another process replaced it.
import * as fs from 'node:fs';
import type { Database } from 'sql.js';
import { writeAll, writeFileAtomicWith } from '../atomicWrite';
import { ioError } from './fileLock';
import type { LazyFile } from './lazyFile';
import { LAZY_PRAGMAS, lazyFileOf, liveSnapshotBytes, openSnapshot, readOnDemandFrom, rollbackHeader } from './sqlJsPatched';

/** What sql.js opens the snapshot from (sqlJsPatched.ts `openSnapshot`); undefined when there is none. */
export function readSnapshot(file: string): Uint8Array | undefined {
  try {
    return openSnapshot(file);
  } catch (e) {
    throw ioError(e, 'reading the store');
  }
}

/**
 * Replaces the snapshot `file` with `db`'s file (outside any transaction) and returns its size. A lazily read file is
 * streamed (snapshot pages and overlay) and then read from the new file, its overlay dropped; with patched sql.js the
 * live file is written as it is (and, past the threshold, read on demand from then on); else export()'s copy (`exported`: sql.js builds that closed and reopened the
 * connection in export() freed the statements and reset the pragmas).
 */
export function writeSnapshot(file: string, db: Database): { bytes: number; exported: boolean } {
  const lazy = lazyFileOf(db);
  if (lazy && lazyHeader(lazy)) {
    let bytes = 0;
    writeFileAtomicWith(file, (fd) => {
      bytes = lazy.writeTo(fd);
    });
    lazy.rebase(file);
    return { bytes, exported: false };
  }
  const live = lazy ? undefined : liveSnapshotBytes(db);
  const bytes = live ?? db.export();
  const n = bytes.length;
  writeFileAtomicWith(file, (fd) => writeAll(fd, bytes));
  // A file now large enough is read from the snapshot it just became (a store that grew past the threshold since open).
  if (live && readOnDemandFrom(db, file, n)) db.exec(LAZY_PRAGMAS);
  return { bytes: n, exported: !live };
}

/** The lazy file's header, as `rollbackHeader` judges it. */
function lazyHeader(lazy: LazyFile): boolean {
  const head = new Uint8Array(100);
  return lazy.read(head, 0, 100, 0) === 100 && rollbackHeader(head);
}

export function readIfExists(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError(e, 'reading the store');
  }
}

export function statIno(file: string): { ino: number; size: number; stamp: string } | undefined {
  try {
    const s = fs.statSync(file, { bigint: true });
    return { ino: Number(s.ino), size: Number(s.size), stamp: `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` };
  } catch {
    return undefined;
  }
}

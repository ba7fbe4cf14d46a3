// The store's file reads (store.ts): the snapshot into memory sql.js can grow in place, other files
// whole, and a file's identity (inode, size, times) for noticing that another process replaced it.
import * as fs from 'node:fs';
import { ioError } from './fileLock';
import { readGrowable } from './sqlJsPatched';

/** The snapshot's bytes in an array sql.js can grow in place (sqlJsPatched.ts); undefined when there is none. */
export function readSnapshot(file: string): Uint8Array | undefined {
  try {
    return readGrowable(file);
  } catch (e) {
    throw ioError(e, 'reading the store');
  }
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

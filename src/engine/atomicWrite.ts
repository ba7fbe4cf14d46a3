// The one atomic file replace (the store's snapshot and journal header, the recall index image, the
// vector files, the hooks' state and agent configs): a temp file unique to this process and call,
// written in full, fsynced, renamed over the target, the directory fsynced. A reader sees the old file
// or the new one, never half; a failed write leaves no temp file behind.
import * as fs from 'node:fs';
import * as path from 'node:path';

let counter = 0;

export interface AtomicWriteOptions {
  /** File mode of a new file (e.g. 0o600 for private state). */
  mode?: number;
  /** Create the parent directory first (default true). */
  mkdir?: boolean;
}

/** Replaces `file` atomically with what `write(fd)` writes to a fresh descriptor. */
export function writeFileAtomicWith(file: string, write: (fd: number) => void, opts: AtomicWriteOptions = {}): void {
  if (opts.mkdir !== false) fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.${counter++}.tmp`;
  try {
    const fd = fs.openSync(tmp, 'w', opts.mode);
    try {
      write(fd);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    try { fs.unlinkSync(tmp); } catch { /* never written */ }
    throw e;
  }
  fsyncDir(path.dirname(file));
}

/**
 * Temp files of `file` left by a writer that died between its write and its rename (`<file>.<pid>.<time>.<n>.tmp`;
 * older builds wrote `<file>.tmp`), as paths. Only a caller that excludes live writers (e.g. under their lock) may
 * remove them.
 */
export function leftoverTemps(file: string): string[] {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(`${base}.`) && (n === `${base}.tmp` || /^\d+\.\d+\.\d+\.tmp$/.test(n.slice(base.length + 1))))
    .map((n) => path.join(dir, n));
}

/** Replaces `file` atomically with `data`. */
export function writeFileAtomic(file: string, data: Uint8Array | string, opts: AtomicWriteOptions = {}): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  writeFileAtomicWith(file, (fd) => writeAll(fd, bytes), opts);
}

/** Writes every byte of `data` (writeSync may write fewer than asked). */
export function writeAll(fd: number, data: Uint8Array, length = data.length): void {
  let off = 0;
  while (off < length) off += fs.writeSync(fd, data, off, length - off);
}

/** Makes a rename durable. Directories cannot be opened for fsync on Windows: best effort there. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    /* EISDIR/EPERM on Windows: NTFS journals renames itself */
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

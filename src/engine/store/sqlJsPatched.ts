// sql.js, loaded with small patches to its in-memory file system (issue #16). sql.js keeps the
// database as a file in emscripten's MEMFS: one Uint8Array the size of the database. Unpatched,
//  - every time the file outgrows that array (by 12.5 % steps once it passes 1 MB) MEMFS allocates a
//    bigger one and copies the file into it: ~19 copies of the whole file while a store grows to 1 GB,
//    and for the moment of each copy the old and the new array are both alive (twice the file in RAM);
//  - a truncation copies the same way;
//  - `export()` copies the file once more (SQLite's backup into a second array) for every snapshot.
// Patched: a large file lives in a resizable ArrayBuffer (reserved address space, pages committed as
// they are written) that grows and shrinks in place, and `Database.fileBytes()` hands out the live
// file's bytes without a copy. Both keep sql.js's behaviour byte for byte (test/unit/store/sqlJsPatched.test.ts).
// A large snapshot is not read into memory at all: MEMFS reads and writes of its file go to a LazyFile
// (lazyFile.ts: preads of the snapshot on disk plus an overlay of the pages written since), so a store
// holds what changed since its last snapshot rather than the whole database;
// where a patch's text is not found (another sql.js build) or resizable ArrayBuffers are missing,
// sql.js runs as published and `sqlJsPatchState()` says what is missing.
import { constants as bufferConstants } from 'node:buffer';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import type initSqlJs from 'sql.js';
import { MemoryError } from '../errors';
import { LazyFile } from './lazyFile';
import { release, type Resizable, resizableSupported, resizableBuffer } from './resizableBytes';

/** A file smaller than this stays in a plain array (copying it costs nothing worth a reservation). */
export const RESIZABLE_FROM = 32 << 20;

/** The largest file a resizable array may hold: sql.js files are Uint8Arrays, so at most a Buffer's length, ≤ 4 GiB. */
const MAX_RESERVE = Math.min(2 ** 32, bufferConstants.MAX_LENGTH);

/** A zeroed array of `size` bytes that grows in place (up to 4 GiB) when sql.js's file outgrows it; a plain one when small. */
export function growableBytes(size: number): Uint8Array {
  // A Buffer either way: sql.js opens a database by `slice`-ing the bytes it is given, which copies a
  // Uint8Array but only re-views a Buffer.
  const buf = size >= RESIZABLE_FROM && size <= MAX_RESERVE ? resizableBuffer(size, MAX_RESERVE) : undefined;
  // Refused or too small: a plain array, copied on growth as unpatched.
  return buf ? Buffer.from(buf, 0, size) : Buffer.alloc(size);
}

/**
 * A file's bytes read into {@link growableBytes} (a database file sql.js will keep growing); undefined when the
 * file does not exist.
 */
export function readGrowable(file: string): Uint8Array | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const bytes = growableBytes(size);
    let off = 0;
    while (off < size) {
      const n = fs.readSync(fd, bytes, off, Math.min(size - off, 64 << 20), off);
      if (n === 0) return bytes.subarray(0, off); // shorter than its size said: the caller judges the bytes
      off += n;
    }
    return bytes;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * MEMFS's new array for a file whose `used` bytes must now fit `size` (capacity growth on write, or a
 * truncation): the same buffer resized when it is resizable, else a new array with the bytes copied.
 */
export function memfsResize(old: Uint8Array | null | undefined, used: number, size: number): Uint8Array {
  const buf = old?.buffer as Resizable | undefined;
  if (old && buf?.resizable && old.byteOffset === 0 && (buf.maxByteLength ?? 0) >= size) {
    try {
      buf.resize!(size);
      return new Uint8Array(buf, 0, size);
    } catch {
      /* the system refused the pages: a copy, as unpatched */
    }
  }
  const next = growableBytes(size);
  if (old && used > 0) next.set(old.subarray(0, Math.min(used, size)));
  return next;
}

/** The text each patch replaces in sql.js 1.17.0's `dist/sql-wasm.js` (minified names), and its replacement. */
export const SQLJS_PATCHES: ReadonlyArray<{ name: string; find: string; replace: string }> = [
  // MEMFS write: growing the file's capacity.
  { name: 'grow', find: 'm=a.Ya.subarray(0,a.Za),a.Ya=new Uint8Array(g),a.Ya.set(m))', replace: 'a.Ya=__memfs.resize(a.Ya,a.Za,g))' },
  // MEMFS setattr: truncating (or extending) the file to b bytes.
  { name: 'truncate', find: 'a.Za!=b&&(d=a.Ya,a.Ya=new Uint8Array(b),a.Ya.set(d.subarray(0,Math.min(b,\na.Za))),a.Za=b)', replace: 'a.Za!=b&&(a.lz?a.lz.truncate(b):(a.Ya=__memfs.resize(a.Ya,a.Za,b)),a.Za=b)' },
  // MEMFS read/write of a file read on demand (lazyFile.ts): its bytes come from the snapshot on disk and an overlay.
  { name: 'lazyRead', find: 'Ta:{read(a,b,d,c,e){if(e>=a.node.Za)return 0;', replace: 'Ta:{read(a,b,d,c,e){if(a.node.lz)return a.node.lz.read(b,d,c,e);if(e>=a.node.Za)return 0;' },
  {
    name: 'lazyWrite',
    find: 'write(a,b,d,c,e,g){b.buffer===v.buffer&&(g=!1);if(!c)return 0;a=a.node;a.mtime=a.ctime=Date.now();',
    replace: 'write(a,b,d,c,e,g){b.buffer===v.buffer&&(g=!1);if(!c)return 0;a=a.node;a.mtime=a.ctime=Date.now();if(a.lz)return a.Za=a.lz.write(b,d,c,e),c;',
  },
  // mmap of such a file: refused (SQLite's mmap_size is 0; MEMFS would map its empty array).
  { name: 'lazyMmap', find: 'qb(a,b,d,c,e){if((a.node.mode&61440)!==32768)throw new O(43);', replace: 'qb(a,b,d,c,e){if((a.node.mode&61440)!==32768||a.node.lz)throw new O(43);' },
  // Database.close() unlinks the file: its descriptor closes with it.
  { name: 'lazyUnlink', find: 'unlink(a,b){delete a.Ya[b];', replace: 'unlink(a,b){a.Ya[b]?.lz?.close();delete a.Ya[b];' },
  // new Database(bytes) with bytes.lz: an empty file whose reads and writes go to that LazyFile.
  {
    name: 'lazyOpen',
    find: 'f!=null&&la(this.filename,\nf);',
    replace: 'f!=null&&(f.lz?(la(this.filename,new Uint8Array(0)),B(this.filename).node.lz=f.lz,B(this.filename).node.Za=f.lz.size):la(this.filename,f));',
  },
  // Database.fileBytes(): the database file as MEMFS holds it, a view without a copy.
  {
    name: 'fileBytes',
    find: 'g.prototype["export"]=g.prototype.$b;',
    replace:
      'g.prototype["export"]=g.prototype.$b;g.prototype.fileBytes=function(){if(!this.db)throw Error("Database closed");var r=B(this.filename).node;return r.lz?void 0:r.Ya?r.Ya.subarray(0,r.Za):new Uint8Array(0)};' +
      'g.prototype.lazyFile=function(){return this.db?B(this.filename).node.lz:void 0};' +
      // From now on read the file from `lz` (a file with the same bytes): the array held so far is returned to the caller.
      'g.prototype.readFrom=function(lz){if(!this.db)throw Error("Database closed");var r=B(this.filename).node,o=r.lz?void 0:r.Ya;r.lz&&r.lz.close();r.lz=lz;r.Za=lz.size;r.Ya=new Uint8Array(0);return o};',
  },
];

export interface SqlJsPatchState {
  /** Where sql.js's JavaScript was read from. */
  file: string;
  /** Patches applied (all, or none). */
  applied: string[];
  /** Patches whose text was not found exactly once, and why the file system runs unpatched. */
  missing: string[];
  resizable: boolean;
}

let state: SqlJsPatchState | undefined;
let loaded: typeof initSqlJs | undefined;

/** Where sql.js's JavaScript may live: next to the bundle (build.mjs copies it), else the package. */
export function sqlJsCandidates(): string[] {
  const out = [path.join(__dirname, 'sql-wasm.js')];
  try {
    out.push(require.resolve('sql.js/dist/sql-wasm.js'));
  } catch {
    /* inside a bundle without node_modules: the dist/ copy must do */
  }
  return out;
}

/** sql.js's source with every patch applied, or as published when any patch's text is not found exactly once. */
export function patchSqlJs(src: string): { src: string; applied: string[]; missing: string[] } {
  const missing = SQLJS_PATCHES.filter((p) => src.split(p.find).length !== 2).map((p) => p.name);
  if (missing.length) return { src, applied: [], missing };
  let out = src;
  for (const p of SQLJS_PATCHES) out = out.replace(p.find, () => p.replace);
  return { src: out, applied: SQLJS_PATCHES.map((p) => p.name), missing: [] };
}

/** sql.js's init function, patched (once per process). */
export function patchedInitSqlJs(): typeof initSqlJs {
  if (loaded) return loaded;
  const file = sqlJsCandidates().find((f) => fs.existsSync(f));
  if (!file) throw new MemoryError('E_WASM_MISSING', 'sql-wasm.js (sql.js) was not found next to the bundle or in node_modules');
  const patched = patchSqlJs(fs.readFileSync(file, 'utf8'));
  const fn = vm.compileFunction(patched.src, ['module', 'exports', 'require', '__filename', '__dirname', '__memfs'], { filename: file });
  const mod: { exports: unknown } = { exports: {} };
  fn(mod, mod.exports, createRequire(file), file, path.dirname(file), { resize: memfsResize });
  state = { file, applied: patched.applied, missing: patched.missing, resizable: resizableSupported };
  loaded = mod.exports as typeof initSqlJs;
  return loaded;
}

/** What the loaded sql.js was patched with (undefined before the first load). */
export function sqlJsPatchState(): SqlJsPatchState | undefined {
  return state;
}

/**
 * The live database file's bytes without a copy, to write as a snapshot (outside any transaction), when sql.js is
 * patched and the header says "rollback journal" (bytes 18/19 = 1) as export() makes it; undefined otherwise.
 */
export function liveSnapshotBytes(db: object): Uint8Array | undefined {
  const live = fileBytesOf(db);
  return live && rollbackHeader(live) ? live : undefined;
}

/** A database header (the file's first 100 bytes or more) that says "rollback journal" (bytes 18/19 = 1), as export() writes it. */
export function rollbackHeader(head: Uint8Array): boolean {
  return head.length >= 100 && head[18] === 1 && head[19] === 1;
}

/**
 * Closes `db` and hands its file's memory back to the system now (a resizable buffer shrinks to nothing)
 * rather than at some later garbage collection: a store closed and another opened in the same process
 * would otherwise hold both files for a while (1M items: ~0.9 GB each).
 */
export function closeDatabase(db: { close(): void }): void {
  const bytes = fileBytesOf(db);
  db.close();
  release(bytes);
}

/**
 * Snapshots at least this large are read on demand (LazyFile) rather than into memory, where sql.js is patched and
 * not on Windows (a file open there may block the rename that replaces it). `MEMORY_STORE_LAZY_FROM` (bytes)
 * overrides it: 0 reads every snapshot lazily (the test suite runs that way once), a huge value none.
 */
export function lazyFrom(): number {
  const env = Number(process.env.MEMORY_STORE_LAZY_FROM);
  return process.env.MEMORY_STORE_LAZY_FROM && Number.isFinite(env) && env >= 0 ? env : 64 << 20;
}

/**
 * What to open `file` from: an empty array carrying a LazyFile (`new Database(it)` reads the snapshot on demand) when
 * the snapshot is large enough and sql.js takes it, else the bytes in growable memory; undefined when there is none.
 */
export function openSnapshot(file: string): Uint8Array | undefined {
  if (onDemandPossible()) {
    try {
      if (onDemandSize(fs.statSync(file).size)) return Object.assign(new Uint8Array(0), { lz: new LazyFile(file) });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }
  return readGrowable(file);
}

/** For a file read on demand: pages SQLite keeps are not re-read from disk (32 MB, in sql.js's heap). */
export const LAZY_PRAGMAS = 'PRAGMA cache_size = -32768';

/**
 * Switches `db` to reading its file from `file` on demand, when it is large enough (`lazyFrom`) and this sql.js takes
 * it: `file` must hold exactly the bytes of `db`'s file (a snapshot just written from it). The memory that held the
 * file is handed back at once. True when switched.
 */
export function readOnDemandFrom(db: object, file: string, size: number): boolean {
  const f = (db as { readFrom?: (lz: LazyFile) => Uint8Array | undefined }).readFrom;
  if (typeof f !== 'function' || !onDemandPossible() || !onDemandSize(size)) return false;
  const lz = new LazyFile(file);
  if (lz.size !== size) {
    lz.close();
    return false;
  }
  release(f.call(db, lz));
  return true;
}

/** This sql.js takes a file read on demand, and not on Windows (a file open there may block the rename that replaces it). */
function onDemandPossible(): boolean {
  return state?.applied.includes('lazyOpen') === true && process.platform !== 'win32';
}

/** A file of `size` bytes is worth reading on demand (`lazyFrom`). */
function onDemandSize(size: number): boolean {
  return size > 0 && size >= lazyFrom();
}

/** The LazyFile `db` reads its file from, if it was opened from one. */
export function lazyFileOf(db: object): LazyFile | undefined {
  const f = (db as { lazyFile?: () => LazyFile | undefined }).lazyFile;
  return typeof f === 'function' ? f.call(db) : undefined;
}

/** `Database.fileBytes()` (the patch) when this sql.js has it. */
function fileBytesOf(db: object): Uint8Array | undefined {
  const f = (db as { fileBytes?: () => Uint8Array }).fileBytes;
  return typeof f === 'function' ? f.call(db) : undefined;
}

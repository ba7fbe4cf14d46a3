// A database file read from disk on demand (issue #16): what sql.js's MEMFS holds for a large snapshot
// instead of the whole file in memory (sqlJsPatched.ts routes MEMFS read/write/truncate here).
// The snapshot on disk is the base: it is never written in place (a compaction writes a new file and
// renames it over, so the open descriptor keeps reading the bytes it was opened with). Everything
// SQLite writes goes to an overlay of 4 KB pages held in memory until the next snapshot, which streams
// base and overlay into a new file (`writeTo`) and then reads from that file (`rebase`): between
// snapshots the process holds what changed, not the whole database. Reads of clean pages are preads
// (the OS page cache keeps them warm; they are not this process's memory).
// The overlay's memory is bounded (`memoryBytes`; `MEMORY_STORE_OVERLAY_BYTES`; 128 MiB by default): past it, the pages
// written least recently move to a spill file beside the snapshot (unlinked as soon as it is open, so nothing is left
// behind, never fsynced: like the overlay it is rebuilt from the journal after a crash) and come back into memory when
// written again. Only a large store meets the bound (a 100k-item import stays below it). Measured on a 1M-item import
// (`bench scale`): once a long import wrote the raw record as it goes, a 256 MiB bound halved the database's memory
// at the derivation's peak (607 → 309 MB) for 0.56 GB more written (1.62 → 1.95× the store; the kernel writes the
// spill file back before the next snapshot drops it). Before that change the same bound cost 2.53 → 3.62×. 128 MiB
// (stop 33, the default since): the run's peak RSS 128 MB lower, bytes written 1.93 → 2.82× the store (with the index's
// ids off V8's heap in the same run; the bound's share of the RSS is the 128 MB, of the bytes all of the increase).
// Invariants: bytes below `baseLimit` that are in neither the overlay nor the spill file come from the base;
// bytes from `baseLimit` up to `size` that are in neither are zero (a truncation lowers `baseLimit`). A page
// is in memory or spilled, never both.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { release, resizableBuffer } from './resizableBytes';

export const LAZY_PAGE = 4096;
const SLAB_PAGES = 256; // 1 MB per slab
const COPY_CHUNK = 1 << 20;
const SPILL_BATCH_PAGES = 256; // pages moved to the spill file at a time (1 MB, one write when their slots are contiguous)

/** The overlay's memory bound unless `MEMORY_STORE_OVERLAY_BYTES` says otherwise. */
export const OVERLAY_DEFAULT_BYTES = 128 * 1024 * 1024;

/**
 * The overlay's memory bound (bytes): `MEMORY_STORE_OVERLAY_BYTES` when it is a positive number (a machine short of
 * memory; tests set a few pages to spill at once; `Infinity` for none), else 128 MiB.
 */
export function overlayMemoryBytes(): number {
  const env = Number(process.env.MEMORY_STORE_OVERLAY_BYTES);
  return process.env.MEMORY_STORE_OVERLAY_BYTES && env > 0 ? env : OVERLAY_DEFAULT_BYTES;
}

export class LazyFile {
  /** Bytes of the file as SQLite sees it. */
  size: number;
  private fd: number;
  private baseLimit: number;
  // page → overlay slot, in the order the pages came into memory; `recent[slot]` is set when the page is written again
  // (CLOCK, "second chance": the spill moves such a page to the end instead of spilling it). Moving the page to the end
  // on every write kept an exact LRU order but cost a Map delete and insert per page written (~5 % of a 1M import).
  private readonly slot = new Map<number, number>();
  private recent = new Uint8Array(0);
  private slabs: Uint8Array[] = [];
  private free: number[] = [];
  private used = 0;
  private readonly memoryPages: number;
  private readonly dir: string;
  private spillFd: number | undefined;
  private readonly spilled = new Map<number, number>(); // page → slot in the spill file
  private spillFree: number[] = [];
  private spillUsed = 0;
  private spillWrites = 0;
  closed = false;

  /** Opens `file` as the base (its size now is the file's size); the overlay holds at most `memoryBytes` in memory (default: `overlayMemoryBytes()`). */
  constructor(file: string, opts: { memoryBytes?: number } = {}) {
    this.memoryPages = Math.max(1, Math.floor((opts.memoryBytes ?? overlayMemoryBytes()) / LAZY_PAGE));
    this.dir = path.dirname(file);
    this.fd = fs.openSync(file, 'r');
    try {
      this.size = this.baseLimit = fs.fstatSync(this.fd).size;
    } catch (e) {
      fs.closeSync(this.fd);
      throw e;
    }
  }

  /** Bytes the overlay holds in memory (dirty pages since the last rebase, in 1 MB slabs). */
  get overlayBytes(): number {
    return this.slabs.length * SLAB_PAGES * LAZY_PAGE;
  }

  /** Pages written since the last rebase (in memory or spilled). */
  get dirtyPages(): number {
    return this.slot.size + this.spilled.size;
  }

  /** Pages written since the last rebase that are in the spill file now. */
  get spilledPages(): number {
    return this.spilled.size;
  }

  /** Pages moved to the spill file since this file was opened (a page spilled twice counts twice). */
  get spillWritePages(): number {
    return this.spillWrites;
  }

  /** MEMFS read: up to `len` bytes at `pos` into `dst` at `off`; returns the bytes read (0 at the end). */
  read(dst: ArrayBufferView, off: number, len: number, pos: number): number {
    if (pos >= this.size) return 0;
    const n = Math.min(len, this.size - pos);
    this.readInto(new Uint8Array(dst.buffer, dst.byteOffset + off, n), pos);
    return n;
  }

  /** MEMFS write: `len` bytes of `src` at `off` to file position `pos`; returns the new size. */
  write(src: ArrayBufferView, off: number, len: number, pos: number): number {
    let done = 0;
    while (done < len) {
      const at = pos + done;
      const page = Math.floor(at / LAZY_PAGE);
      const inPage = at - page * LAZY_PAGE;
      const n = Math.min(LAZY_PAGE - inPage, len - done);
      const ms = this.slotForWrite(page, inPage === 0 && n === LAZY_PAGE);
      this.slabs[Math.floor(ms / SLAB_PAGES)]!.set(new Uint8Array(src.buffer, src.byteOffset + off + done, n), (ms % SLAB_PAGES) * LAZY_PAGE + inPage);
      done += n;
    }
    this.size = Math.max(this.size, pos + len);
    return this.size;
  }

  /** MEMFS truncate (or extend with zeros) to `n` bytes. */
  truncate(n: number): void {
    if (n < this.size) {
      const keep = Math.ceil(n / LAZY_PAGE);
      for (const [page, s] of this.slot) {
        if (page >= keep) {
          this.slot.delete(page);
          this.free.push(s);
        }
      }
      for (const [page, s] of this.spilled) {
        if (page >= keep) {
          this.spilled.delete(page);
          this.spillFree.push(s);
        }
      }
      // The cut page's tail must read as zero if the file grows again.
      const tail = n % LAZY_PAGE;
      if (tail) this.pageForWrite(keep - 1, false).fill(0, tail);
      this.baseLimit = Math.min(this.baseLimit, n);
    }
    this.size = n;
  }

  /** Writes the whole file (base and overlay) to `fd` from offset 0; returns the bytes written. */
  writeTo(fd: number): number {
    const buf = Buffer.allocUnsafe(COPY_CHUNK);
    let pos = 0;
    while (pos < this.size) {
      const n = Math.min(COPY_CHUNK, this.size - pos);
      this.readInto(buf.subarray(0, n), pos);
      let w = 0;
      while (w < n) w += fs.writeSync(fd, buf, w, n - w, pos + w);
      pos += n;
    }
    return this.size;
  }

  /** Reads from `file` from now on (a snapshot just written with `writeTo`, same bytes): the overlay is dropped. */
  rebase(file: string): void {
    const fd = fs.openSync(file, 'r');
    fs.closeSync(this.fd);
    this.fd = fd;
    this.baseLimit = this.size;
    this.dropOverlay();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
    this.dropOverlay();
    if (this.spillFd !== undefined) fs.closeSync(this.spillFd);
    this.spillFd = undefined;
  }

  /** The overlay's slabs (tests: they are emptied, not left to a garbage collection, when the overlay is dropped). */
  slabBuffers(): ArrayBufferLike[] {
    return this.slabs.map((s) => s.buffer);
  }

  /** Forgets the overlay and hands its memory back now (a slab is a resizable buffer shrunk to nothing). */
  private dropOverlay(): void {
    for (const slab of this.slabs) release(slab);
    this.slot.clear();
    this.slabs = [];
    this.recent = new Uint8Array(0);
    this.free = [];
    this.used = 0;
    this.spilled.clear();
    this.spillFree = [];
    this.spillUsed = 0;
    // Cut to nothing: what the kernel has not written back yet is never written.
    if (this.spillFd !== undefined) fs.ftruncateSync(this.spillFd, 0);
  }

  /** Fills `dst` with the file's bytes at `pos` (the caller keeps `pos + dst.length ≤ size`). */
  private readInto(dst: Uint8Array, pos: number): void {
    let done = 0;
    while (done < dst.length) {
      const at = pos + done;
      const page = Math.floor(at / LAZY_PAGE);
      const inPage = at - page * LAZY_PAGE;
      const s = this.slot.get(page);
      if (s !== undefined) {
        const n = Math.min(LAZY_PAGE - inPage, dst.length - done);
        dst.set(this.slotView(s).subarray(inPage, inPage + n), done);
        done += n;
        continue;
      }
      const sp = this.spilled.get(page);
      if (sp !== undefined) {
        const n = Math.min(LAZY_PAGE - inPage, dst.length - done);
        this.pread(dst.subarray(done, done + n), sp * LAZY_PAGE + inPage, this.spillFd!);
        done += n;
        continue;
      }
      // A run of clean pages: one pread for the part below baseLimit, zeros above it.
      let end = page + 1;
      const lastPage = Math.floor((pos + dst.length - 1) / LAZY_PAGE);
      while (end <= lastPage && !this.slot.has(end) && !this.spilled.has(end)) end++;
      const n = Math.min(end * LAZY_PAGE - at, dst.length - done);
      const fromBase = Math.max(0, Math.min(n, this.baseLimit - at));
      if (fromBase > 0) this.pread(dst.subarray(done, done + fromBase), at);
      if (fromBase < n) dst.fill(0, done + fromBase, done + n);
      done += n;
    }
  }

  private pread(dst: Uint8Array, pos: number, fd = this.fd): void {
    let got = 0;
    while (got < dst.length) {
      const m = fs.readSync(fd, dst, got, dst.length - got, pos + got);
      if (m <= 0) {
        // The base is shorter than it was when opened (it is never written in place, so: damaged): zeros, as MEMFS
        // would give for a short file; SQLite reports the database as malformed if it matters.
        dst.fill(0, got);
        return;
      }
      got += m;
    }
  }

  /** The overlay page for `page`, created from the file's current bytes unless the caller overwrites all of it. */
  private pageForWrite(page: number, whole: boolean): Uint8Array {
    return this.slotView(this.slotForWrite(page, whole));
  }

  /** The memory slot that holds `page` for a write (`whole`: the write covers the page, nothing need be read first). */
  private slotForWrite(page: number, whole: boolean): number {
    const s = this.slot.get(page);
    if (s !== undefined) {
      this.recent[s] = 1; // written again: the spill passes it over once
      return s;
    }
    if (this.free.length === 0 && this.used >= this.memoryPages) this.spill();
    const ns = this.free.pop() ?? this.used++;
    if (ns >= this.slabs.length * SLAB_PAGES) {
      this.slabs.push(newSlab());
      const recent = new Uint8Array(this.slabs.length * SLAB_PAGES);
      recent.set(this.recent);
      this.recent = recent;
    }
    this.recent[ns] = 0;
    const view = this.slotView(ns);
    const sp = this.spilled.get(page);
    if (sp !== undefined) {
      // Written again: back into memory (its spill slot is free from now on).
      if (!whole) this.pread(view, sp * LAZY_PAGE, this.spillFd!);
      this.spilled.delete(page);
      this.spillFree.push(sp);
      this.slot.set(page, ns);
      return ns;
    }
    if (!whole) {
      const at = page * LAZY_PAGE;
      const n = Math.max(0, Math.min(LAZY_PAGE, this.size - at));
      if (n > 0) this.readInto(view.subarray(0, n), at);
      view.fill(0, n);
    }
    this.slot.set(page, ns);
    return ns;
  }

  /** Moves pages written least recently (CLOCK: see `recent`) to the spill file, freeing their memory slots. */
  private spill(): void {
    if (this.spillFd === undefined) {
      const file = path.join(this.dir, `.overlay-${process.pid}-${randomBytes(6).toString('hex')}.spill`);
      this.spillFd = fs.openSync(file, 'w+', 0o600);
      fs.unlinkSync(file); // open, unnamed: gone with the process whatever happens
    }
    const batch = Math.max(1, Math.min(SPILL_BATCH_PAGES, Math.floor(this.memoryPages / 8)));
    const moves: [page: number, mem: number, at: number][] = [];
    // Oldest first; a page written again since it came in (or since the last pass) goes to the end once. A page moved
    // to the end is met again by this loop (a Map's iteration sees entries added during it), so it ends.
    for (const [page, mem] of this.slot) {
      if (moves.length >= batch) break;
      if (this.recent[mem]) {
        this.recent[mem] = 0;
        this.slot.delete(page);
        this.slot.set(page, mem);
        continue;
      }
      moves.push([page, mem, this.spillFree.pop() ?? this.spillUsed++]);
    }
    moves.sort((a, b) => a[2] - b[2]);
    // One write per run of consecutive spill slots.
    const buf = Buffer.allocUnsafe(moves.length * LAZY_PAGE);
    for (let i = 0; i < moves.length; ) {
      let j = i + 1;
      while (j < moves.length && moves[j]![2] === moves[j - 1]![2] + 1) j++;
      for (let k = i; k < j; k++) buf.set(this.slotView(moves[k]![1]), (k - i) * LAZY_PAGE);
      const len = (j - i) * LAZY_PAGE;
      let w = 0;
      while (w < len) w += fs.writeSync(this.spillFd, buf, w, len - w, moves[i]![2] * LAZY_PAGE + w);
      i = j;
    }
    for (const [page, mem, at] of moves) {
      this.slot.delete(page);
      this.free.push(mem);
      this.spilled.set(page, at);
    }
    this.spillWrites += moves.length;
  }

  private slotView(s: number): Uint8Array {
    const slab = this.slabs[Math.floor(s / SLAB_PAGES)]!;
    const o = (s % SLAB_PAGES) * LAZY_PAGE;
    return slab.subarray(o, o + LAZY_PAGE);
  }
}

/**
 * 1 MB of zeros in a resizable buffer where there are such (Node 20+), so dropping the overlay can shrink it to nothing
 * at once: at a 1M-item store's compaction the overlay is most of the file, too much to leave to a later collection.
 */
function newSlab(): Uint8Array {
  const bytes = SLAB_PAGES * LAZY_PAGE;
  const buf = resizableBuffer(bytes, bytes);
  return buf ? new Uint8Array(buf) : new Uint8Array(bytes);
}

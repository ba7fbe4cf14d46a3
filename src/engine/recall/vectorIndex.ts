// In-memory vector index (SPEC R-RECALL-3/8): one packed row store per scope partition
// ('global', 'p:<project>', 't:<projectType>'), so a query only scans what the conversation may see.
// Rows are kept as int8 (per-row scale) only — 4× smaller than float32 (100k × 384 dims: 38 MB, not
// 154 MB + the int8 copy); a query is scored with the SIMD int8 pass, then its candidates re-scored
// with the float query against the int8 row (only the row's rounding error remains, ~1e-3 in cosine).
// `int8: false` keeps exact float32 rows instead (benchmarks, comparisons).
// Invariants: rows are normalised vectors of `dims` values; rows stay packed (remove swaps the last
// row in); the file on disk belongs to exactly one embedder id and is replaced atomically.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { writeAll, writeFileAtomicWith } from '../atomicWrite';
import { join } from 'node:path';
import { MemoryError } from '../errors';
import { createInt8Scanner, quantize, quantizeAt, SCAN_BLOCK_ROWS } from './int8Scan';
import { MAP_ENTRY_BYTES, TopK } from './keywordIndex';

export interface VectorHit {
  docId: number;
  score: number;
}

/** Packed int8 rows: the WebAssembly SIMD scanner, or a plain-JS fallback with the same interface. */
interface Int8Rows {
  reserve(rows: number): void;
  setRow(row: number, q: Int8Array): void;
  rowView(row: number): Int8Array;
  copyRow(from: number, to: number): void;
  scan(query: Int8Array, start: number, n: number): Int32Array;
  /** The backing bytes and the byte offset of row 0 (views change after reserve()). */
  readonly bytes: Int8Array;
  readonly rowsOffset: number;
}

interface Partition {
  label: string;
  /** Exact mode only: capacity × dims floats. */
  rows: Float32Array | null;
  /** Compact mode only: the int8 rows. */
  q8: Int8Rows | null;
  docIds: Int32Array;
  count: number;
  /** Per row 1 / quantisation scale, so value ≈ int8 · invScale[row]. */
  invScale: Float32Array;
}

const MAGIC = 0x5645_4331; // "VEC1"
// 3: rows are int8 only [docId, partition, 1/scale, int8 × dims padded to 4]; 2 (still read): + dims × float32.
const FORMAT_VERSION = 3;
const INITIAL_ROWS = 64;
const SLOT_BITS = 2 ** 32; // docSlot = partitionIndex * 2^32 + row (exact in a double)
// Below this many rows one asymmetric pass (float query · int8 row) is as fast as the two-pass scan.
// Measured (k = 60, 384 dims, shared 2-core machine): exact 0.50 / 1.02 / 1.63 / 2.25 ms at 1k / 2k / 3k / 4k rows,
// two-pass 0.43 / 0.47 / 0.56 / 0.64 ms — the int8 pass wins from ~1k rows.
const TWO_PASS_MIN_ROWS = 1024;
// First-pass candidates re-scored: int8·int8 error is ~1e-2 in cosine, so 8·k (≥ 64) keeps the true top-k.
const RERANK_FACTOR = 8;
const RERANK_MIN = 64;
// Load reads the file in slices of this size (never the whole file: 100k rows were a 205 MB buffer in v2).
const LOAD_CHUNK_BYTES = 4 << 20;

export class VectorIndex {
  private readonly parts: Partition[] = [];
  private readonly partByLabel = new Map<string, number>();
  private readonly slots = new Map<number, number>();

  private readonly exact: boolean;
  private readonly qbuf: Int8Array;
  private readonly fbuf: Float32Array;
  /** Extra header data the file was saved with (`save(file, ext)`), e.g. the owner's item map. */
  ext: unknown;

  /** `int8: false` keeps exact float32 rows and scans them exactly (benchmarks, comparisons). */
  constructor(readonly embedderId: string, readonly dims: number, opts: { int8?: boolean } = {}) {
    if (!embedderId || /[\\/]/.test(embedderId) || embedderId.includes('..')) {
      throw new MemoryError('E_BAD_INPUT', 'vector index: embedder id must be a plain name');
    }
    if (!Number.isInteger(dims) || dims <= 0) throw new MemoryError('E_BAD_INPUT', 'vector index: dims must be a positive integer');
    this.exact = opts.int8 === false;
    this.qbuf = new Int8Array(dims);
    this.fbuf = new Float32Array(dims);
  }

  get size(): number {
    return this.slots.size;
  }

  /** Labels with at least one vector (R-RECALL-10 counts project partitions). */
  partitions(): string[] {
    return this.parts.filter((p) => p.count > 0).map((p) => p.label);
  }

  countIn(label: string): number {
    const pi = this.partByLabel.get(label);
    return pi === undefined ? 0 : this.parts[pi]!.count;
  }

  has(docId: number): boolean {
    return this.slots.has(docId);
  }

  /** Bytes held by the rows (capacity, not just the used part): for diagnostics. */
  get rowBytes(): number {
    let n = 0;
    for (const p of this.parts) n += p.rows ? p.rows.byteLength : p.q8!.bytes.byteLength;
    return n;
  }

  /** Bytes this index holds in memory: rows, per-row ids and scales, and the slot map (estimated per entry). */
  get approxBytes(): number {
    let n = this.qbuf.byteLength + this.fbuf.byteLength + this.slots.size * MAP_ENTRY_BYTES;
    for (const p of this.parts) n += (p.rows ? p.rows.byteLength : p.q8!.bytes.byteLength) + p.docIds.byteLength + p.invScale.byteLength;
    return n;
  }

  /** Stores (or moves) `docId`'s vector into `partition`. The vector is copied (quantised in compact mode). */
  upsert(docId: number, partition: string, vec: Float32Array): void {
    if (!Number.isInteger(docId) || docId < 0 || docId > 0x7fff_ffff) {
      throw new MemoryError('E_BAD_INPUT', 'vector index: doc id must be an integer in [0, 2^31)');
    }
    if (!(vec instanceof Float32Array) || vec.length !== this.dims) {
      throw new MemoryError('E_BAD_INPUT', `vector index: vector must be a Float32Array of ${this.dims} dims`, { got: vec?.length ?? 0 });
    }
    for (let i = 0; i < vec.length; i++) if (!Number.isFinite(vec[i]!)) throw new MemoryError('E_BAD_INPUT', 'vector index: vector has a non-finite value');
    if (typeof partition !== 'string' || !partition) throw new MemoryError('E_BAD_INPUT', 'vector index: partition label required');
    const existing = this.slots.get(docId);
    if (existing !== undefined) {
      const pi = Math.floor(existing / SLOT_BITS);
      if (this.parts[pi]!.label === partition) {
        this.writeRow(this.parts[pi]!, existing % SLOT_BITS, vec);
        return;
      }
      this.remove(docId);
    }
    const pi = this.partitionIndex(partition);
    const p = this.parts[pi]!;
    if (p.count === p.docIds.length) this.growPartition(p, p.docIds.length * 2);
    this.writeRow(p, p.count, vec);
    p.docIds[p.count] = docId;
    this.slots.set(docId, pi * SLOT_BITS + p.count);
    p.count++;
  }

  remove(docId: number): boolean {
    const slot = this.slots.get(docId);
    if (slot === undefined) return false;
    this.slots.delete(docId);
    const p = this.parts[Math.floor(slot / SLOT_BITS)]!;
    const row = slot % SLOT_BITS;
    const last = p.count - 1;
    if (row !== last) {
      const d = this.dims;
      p.rows?.copyWithin(row * d, last * d, last * d + d);
      p.q8?.copyRow(last, row);
      p.invScale[row] = p.invScale[last]!;
      const moved = p.docIds[last]!;
      p.docIds[row] = moved;
      this.slots.set(moved, Math.floor(slot / SLOT_BITS) * SLOT_BITS + row);
    }
    p.count = last;
    return true;
  }

  /** Calls `cb` for every stored row's doc id and partition (no vector: cheap). */
  forEachDoc(cb: (docId: number, partition: string) => void): void {
    for (const p of this.parts) for (let r = 0; r < p.count; r++) cb(p.docIds[r]!, p.label);
  }

  /** Calls `cb` for every stored row; `vec` is a scratch view (dequantised in compact mode), valid only during the call. */
  forEachRow(cb: (docId: number, partition: string, vec: Float32Array) => void): void {
    const d = this.dims;
    for (const p of this.parts) {
      for (let r = 0; r < p.count; r++) {
        cb(p.docIds[r]!, p.label, p.rows ? p.rows.subarray(r * d, (r + 1) * d) : this.dequantize(p, r, this.fbuf));
      }
    }
  }

  /** The stored vector (a copy; dequantised in compact mode), or undefined. */
  get(docId: number): Float32Array | undefined {
    const slot = this.slots.get(docId);
    if (slot === undefined) return undefined;
    const p = this.parts[Math.floor(slot / SLOT_BITS)]!;
    const row = slot % SLOT_BITS;
    if (p.rows) return p.rows.slice(row * this.dims, (row + 1) * this.dims);
    return this.dequantize(p, row, new Float32Array(this.dims));
  }

  /**
   * Top-k by dot product over the named partitions only (unknown labels are ignored).
   * `minScore` drops weaker rows before the filter is asked; ties go to the lower doc id.
   */
  search(queryVec: Float32Array, partitions: readonly string[], k: number, filter?: (docId: number) => boolean, minScore = -Infinity): VectorHit[] {
    if (queryVec.length !== this.dims) {
      throw new MemoryError('E_BAD_INPUT', `vector index: query must have ${this.dims} dims`, { got: queryVec.length });
    }
    if (k <= 0) return [];
    const heap = new TopK(k);
    const seen = new Set<number>();
    for (const label of partitions) {
      const pi = this.partByLabel.get(label);
      if (pi === undefined || seen.has(pi)) continue;
      seen.add(pi);
      const p = this.parts[pi]!;
      if (p.q8 && p.count >= TWO_PASS_MIN_ROWS) this.searchTwoPass(p, queryVec, k, heap, filter, minScore);
      else this.scanAll(p, queryVec, heap, filter, minScore);
    }
    return heap.sorted();
  }

  /** Scores every row of `p` (exact floats, or float query · int8 row) into `heap`. */
  private scanAll(p: Partition, q: Float32Array, heap: TopK, filter: ((docId: number) => boolean) | undefined, minScore: number): void {
    for (let r = 0; r < p.count; r++) {
      const s = this.score(p, r, q);
      if (s < minScore || !heap.wouldAccept(s)) continue;
      const docId = p.docIds[r]!;
      if (filter && !filter(docId)) continue;
      heap.push(docId, s);
    }
  }

  /** Row `r`'s dot product with the float query: exact in exact mode, else against the int8 row. */
  private score(p: Partition, r: number, q: Float32Array): number {
    const d = this.dims;
    if (p.rows) return dotAt(p.rows, r * d, q, d);
    return dotAt8(p.q8!.bytes, p.q8!.rowsOffset + r * d, q, d) * p.invScale[r]!;
  }

  /**
   * Int8 SIMD pass over the whole partition keeping 8·k approximate candidates, then the float query
   * against those rows. When the filter rejects so many that fewer than k survive, every row is
   * scored instead (correct first, fast in the common case).
   */
  private searchTwoPass(p: Partition, q: Float32Array, k: number, heap: TopK, filter: ((docId: number) => boolean) | undefined, minScore: number): void {
    const rows = p.q8!;
    const invQ = 1 / quantize(q, this.qbuf);
    const cand = new TopK(Math.max(RERANK_MIN, k * RERANK_FACTOR));
    const inv = p.invScale;
    for (let start = 0; start < p.count; start += SCAN_BLOCK_ROWS) {
      const n = Math.min(SCAN_BLOCK_ROWS, p.count - start);
      const out = rows.scan(this.qbuf, start, n);
      for (let i = 0; i < n; i++) {
        const approx = out[i]! * inv[start + i]! * invQ;
        if (cand.wouldAccept(approx)) cand.push(start + i, approx);
      }
    }
    let kept = 0, rejected = 0;
    for (const c of cand.sorted()) {
      const r = c.docId; // row index in this partition
      const s = this.score(p, r, q);
      if (s < minScore) continue;
      const docId = p.docIds[r]!;
      if (filter && !filter(docId)) { rejected++; continue; }
      kept++;
      heap.push(docId, s);
    }
    if (kept < k && rejected > 0) this.scanAll(p, q, heap, filter, minScore);
  }

  private writeRow(p: Partition, row: number, vec: Float32Array): void {
    if (p.rows) {
      p.rows.set(vec, row * this.dims);
      return;
    }
    p.invScale[row] = 1 / quantizeAt(vec, 0, this.dims, this.qbuf);
    p.q8!.setRow(row, this.qbuf);
  }

  private dequantize(p: Partition, row: number, out: Float32Array): Float32Array {
    const bytes = p.q8!.bytes, base = p.q8!.rowsOffset + row * this.dims, inv = p.invScale[row]!;
    for (let i = 0; i < this.dims; i++) out[i] = bytes[base + i]! * inv;
    return out;
  }

  /** Appends a row read from a file: its int8 copy at `q8[qOff…]`; in exact mode the floats at `src[off…]` (or the int8 dequantised). */
  private appendRaw(pi: number, docId: number, q8: Int8Array, qOff: number, invScale: number, src: Float32Array | null, off: number): void {
    const p = this.parts[pi]!;
    const d = this.dims;
    if (p.count === p.docIds.length) this.growPartition(p, p.docIds.length * 2);
    if (p.rows) {
      if (src) p.rows.set(src.subarray(off, off + d), p.count * d);
      else for (let i = 0; i < d; i++) p.rows[p.count * d + i] = q8[qOff + i]! * invScale;
    } else {
      p.invScale[p.count] = invScale;
      p.q8!.setRow(p.count, q8.subarray(qOff, qOff + d));
    }
    p.docIds[p.count] = docId;
    this.slots.set(docId, pi * SLOT_BITS + p.count);
    p.count++;
  }

  /** The file for this index under `vectorsDir`: `<embedder-id>.bin`. */
  fileIn(vectorsDir: string): string {
    return join(vectorsDir, `${this.embedderId}.bin`);
  }

  /**
   * Writes header (magic, version, dims, count, JSON {embedder id, partition labels, rows per
   * partition, ext}) then fixed-width rows [docId int32, partition int32, 1/scale float32, dims × int8
   * (padded to 4)]; temp file + fsync + rename, so a crash leaves the old file or the new one.
   */
  save(file: string, ext?: unknown): void {
    const labels = this.parts.map((p) => p.label);
    const counts = this.parts.map((p) => p.count);
    const meta = Buffer.from(JSON.stringify(ext === undefined ? { embedderId: this.embedderId, labels, counts } : { embedderId: this.embedderId, labels, counts, ext }), 'utf8');
    const metaPadded = (meta.length + 3) & ~3;
    const rowBytes = rowBytesFor(this.dims, FORMAT_VERSION);
    const header = Buffer.alloc(20 + metaPadded);
    header.writeInt32LE(MAGIC, 0);
    header.writeInt32LE(FORMAT_VERSION, 4);
    header.writeInt32LE(this.dims, 8);
    header.writeInt32LE(this.size, 12);
    header.writeInt32LE(meta.length, 16);
    meta.copy(header, 20);
    writeFileAtomicWith(file, (fd) => {
      writeAll(fd, header);
      // Rows go out in chunks of ≤ 4 MB so a 1M-row index never needs one giant buffer.
      const chunkRows = Math.max(1, Math.floor((4 << 20) / rowBytes));
      const chunk = Buffer.alloc(chunkRows * rowBytes);
      const ints = new Int32Array(chunk.buffer, chunk.byteOffset, chunk.length / 4);
      const floats = new Float32Array(chunk.buffer, chunk.byteOffset, chunk.length / 4);
      const bytes = new Int8Array(chunk.buffer, chunk.byteOffset, chunk.length);
      let inChunk = 0;
      const rowInts = rowBytes / 4;
      for (let pi = 0; pi < this.parts.length; pi++) {
        const p = this.parts[pi]!;
        for (let r = 0; r < p.count; r++) {
          const o = inChunk * rowInts;
          ints[o] = p.docIds[r]!;
          ints[o + 1] = pi;
          if (p.q8) {
            floats[o + 2] = p.invScale[r]!;
            bytes.set(p.q8.rowView(r), (o + 3) * 4);
          } else {
            floats[o + 2] = 1 / quantizeAt(p.rows!, r * this.dims, this.dims, this.qbuf);
            bytes.set(this.qbuf, (o + 3) * 4);
          }
          if (++inChunk === chunkRows) {
            writeAll(fd, chunk);
            inChunk = 0;
          }
        }
      }
      if (inChunk > 0) writeAll(fd, chunk, inChunk * rowBytes);
    });
  }

  /**
   * Loads a file written by `save` (format 3, or 2 of earlier versions), reading it in 4 MB slices;
   * refuses a file of another embedder id or width. `opts.int8: false` loads into an exact index.
   */
  static load(file: string, embedderId: string, dims: number, opts: { int8?: boolean } = {}): VectorIndex {
    const corrupt = (why: string) => new MemoryError('E_CORRUPT', `vector file: ${why}`);
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const head = Buffer.alloc(20);
      if (size < 20 || readSync(fd, head, 0, 20, 0) !== 20 || head.readInt32LE(0) !== MAGIC) throw corrupt('bad magic');
      const version = head.readInt32LE(4);
      if (version !== 2 && version !== 3) throw corrupt('unknown version');
      const fileDims = head.readInt32LE(8);
      const count = head.readInt32LE(12);
      const metaLen = head.readInt32LE(16);
      if (metaLen < 0 || 20 + metaLen > size) throw corrupt('bad header');
      const metaBuf = Buffer.alloc(metaLen);
      if (readSync(fd, metaBuf, 0, metaLen, 20) !== metaLen) throw corrupt('truncated');
      let meta: { embedderId?: unknown; labels?: unknown; counts?: unknown; ext?: unknown };
      try {
        meta = JSON.parse(metaBuf.toString('utf8'));
      } catch {
        throw corrupt('bad header');
      }
      if (meta.embedderId !== embedderId || fileDims !== dims) {
        throw new MemoryError('E_REFUSED', 'vector file belongs to another embedder', {
          fileEmbedder: String(meta.embedderId), fileDims, embedder: embedderId, dims,
        });
      }
      const labels = meta.labels;
      if (!Array.isArray(labels) || !labels.every((l) => typeof l === 'string')) throw corrupt('bad partition table');
      const counts = Array.isArray(meta.counts) && meta.counts.length === labels.length && meta.counts.every((c) => Number.isInteger(c) && c >= 0)
        ? (meta.counts as number[]) : null;
      const start = 20 + ((metaLen + 3) & ~3);
      const rowBytes = rowBytesFor(dims, version);
      const qInts = int8Ints(dims);
      if (count < 0 || size !== start + count * rowBytes) throw corrupt('size mismatch');
      const idx = new VectorIndex(embedderId, dims, opts);
      idx.ext = meta.ext;
      // Partitions sized from the saved counts (format 3) so loading is one pass of copies.
      for (let pi = 0; pi < labels.length; pi++) {
        idx.parts.push(idx.newPartition(labels[pi] as string, Math.max(INITIAL_ROWS, counts?.[pi] ?? 0)));
        idx.partByLabel.set(labels[pi] as string, pi);
      }
      const chunkRows = Math.max(1, Math.floor(LOAD_CHUNK_BYTES / rowBytes));
      const chunk = Buffer.alloc(Math.min(count, chunkRows) * rowBytes);
      const ints = new Int32Array(chunk.buffer, chunk.byteOffset, chunk.length / 4);
      const floats = new Float32Array(chunk.buffer, chunk.byteOffset, chunk.length / 4);
      const bytes = new Int8Array(chunk.buffer, chunk.byteOffset, chunk.length);
      const rowInts = rowBytes / 4;
      let pos = start;
      for (let r0 = 0; r0 < count; r0 += chunkRows) {
        const n = Math.min(chunkRows, count - r0);
        const want = n * rowBytes;
        let got = 0;
        while (got < want) {
          const m = readSync(fd, chunk, got, want - got, pos + got);
          if (m <= 0) throw corrupt('truncated');
          got += m;
        }
        pos += want;
        for (let r = 0; r < n; r++) {
          const o = r * rowInts;
          const docId = ints[o]!;
          const pi = ints[o + 1]!;
          if (pi < 0 || pi >= labels.length) throw corrupt('row partition out of range');
          if (idx.slots.has(docId)) throw corrupt('duplicate doc id');
          idx.appendRaw(pi, docId, bytes, (o + 3) * 4, floats[o + 2]!, version === 2 ? floats : null, o + 3 + qInts);
        }
      }
      return idx;
    } finally {
      closeSync(fd);
    }
  }

  private partitionIndex(label: string): number {
    let pi = this.partByLabel.get(label);
    if (pi === undefined) {
      pi = this.parts.length;
      this.parts.push(this.newPartition(label, INITIAL_ROWS));
      this.partByLabel.set(label, pi);
    }
    return pi;
  }

  private growPartition(p: Partition, cap: number): void {
    if (p.rows) {
      const rows = new Float32Array(cap * this.dims);
      rows.set(p.rows.subarray(0, p.count * this.dims));
      p.rows = rows;
    }
    p.q8?.reserve(cap);
    const ids = new Int32Array(cap);
    ids.set(p.docIds.subarray(0, p.count));
    p.docIds = ids;
    const inv = new Float32Array(cap);
    inv.set(p.invScale.subarray(0, p.count));
    p.invScale = inv;
  }

  private newPartition(label: string, cap: number): Partition {
    return {
      label, rows: this.exact ? new Float32Array(cap * this.dims) : null, q8: this.exact ? null : int8Rows(this.dims, cap),
      docIds: new Int32Array(cap), count: 0, invScale: new Float32Array(cap),
    };
  }
}

/** The SIMD scanner when the runtime has WebAssembly SIMD (and dims is a multiple of 16), else plain JS rows. */
function int8Rows(dims: number, cap: number): Int8Rows {
  return createInt8Scanner(dims, cap) ?? new JsInt8Rows(dims, cap);
}

/** Plain-JS int8 rows (no WebAssembly SIMD, or dims not a multiple of 16). */
class JsInt8Rows implements Int8Rows {
  bytes: Int8Array;
  readonly rowsOffset = 0;
  private readonly out = new Int32Array(SCAN_BLOCK_ROWS);
  constructor(private readonly dims: number, cap: number) {
    this.bytes = new Int8Array(cap * dims);
  }
  reserve(rows: number): void {
    if (rows * this.dims <= this.bytes.length) return;
    const next = new Int8Array(Math.max(rows * this.dims, Math.floor(this.bytes.length * 1.5)));
    next.set(this.bytes);
    this.bytes = next;
  }
  setRow(row: number, q: Int8Array): void { this.bytes.set(q.subarray(0, this.dims), row * this.dims); }
  rowView(row: number): Int8Array { return this.bytes.subarray(row * this.dims, (row + 1) * this.dims); }
  copyRow(from: number, to: number): void { this.bytes.copyWithin(to * this.dims, from * this.dims, (from + 1) * this.dims); }
  scan(query: Int8Array, start: number, n: number): Int32Array {
    const d = this.dims, b = this.bytes;
    for (let r = 0; r < n; r++) {
      let s = 0;
      const base = (start + r) * d;
      for (let i = 0; i < d; i++) s += b[base + i]! * query[i]!;
      this.out[r] = s;
    }
    return this.out;
  }
}

/** Int32 words holding a row's int8 copy (dims padded to 4 bytes). */
function int8Ints(dims: number): number {
  return Math.ceil(dims / 4);
}

function rowBytesFor(dims: number, version: number): number {
  return 12 + int8Ints(dims) * 4 + (version === 2 ? dims * 4 : 0);
}

/** Dot product of int8 `rows[base … base+d)` with the float query `q`. */
function dotAt8(rows: Int8Array, base: number, q: Float32Array, d: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let i = 0;
  for (; i + 3 < d; i += 4) {
    s0 += rows[base + i]! * q[i]!;
    s1 += rows[base + i + 1]! * q[i + 1]!;
    s2 += rows[base + i + 2]! * q[i + 2]!;
    s3 += rows[base + i + 3]! * q[i + 3]!;
  }
  for (; i < d; i++) s0 += rows[base + i]! * q[i]!;
  return s0 + s1 + s2 + s3;
}

/** Dot product of `rows[base … base+d)` with `q`; four accumulators break the add chain (~1.6× in V8). */
function dotAt(rows: Float32Array, base: number, q: Float32Array, d: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let i = 0;
  for (; i + 3 < d; i += 4) {
    s0 += rows[base + i]! * q[i]!;
    s1 += rows[base + i + 1]! * q[i + 1]!;
    s2 += rows[base + i + 2]! * q[i + 2]!;
    s3 += rows[base + i + 3]! * q[i + 3]!;
  }
  for (; i < d; i++) s0 += rows[base + i]! * q[i]!;
  return s0 + s1 + s2 + s3;
}

/** Partition labels a conversation in `scope` may see (SPEC R-MEM-5). */
export function partitionsFor(scope: { project?: string; projectType?: string }): string[] {
  const out = ['global'];
  if (scope.project) out.push(partitionLabel(scope.project, null));
  if (scope.projectType) out.push(partitionLabel(null, scope.projectType));
  return out;
}

/** The partition of an item labelled (project, projectType); mirrors `inScope` in types.ts. */
export function partitionLabel(project: string | null | undefined, projectType: string | null | undefined): string {
  if (project) return `p:${project}`;
  if (projectType) return `t:${projectType}`;
  return 'global';
}

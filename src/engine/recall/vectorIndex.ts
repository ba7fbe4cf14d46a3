// In-memory vector index (SPEC R-RECALL-3/8): one packed row store per scope partition
// ('global', 'p:<project>', 't:<projectType>'), so a query only scans what the conversation may see.
// Rows are kept as int8 (per-row scale) only — 4× smaller than float32 (100k × 384 dims: 38 MB, not
// 154 MB + the int8 copy); a query is scored with the SIMD int8 pass, then its candidates re-scored
// with the float query against the int8 row (only the row's rounding error remains, ~1e-3 in cosine).
// `int8: false` keeps exact float32 rows instead (benchmarks, comparisons).
// Invariants: rows are normalised vectors of `dims` values; rows stay packed (remove swaps the last
// row in); the file on disk belongs to exactly one embedder id and is replaced atomically.
import { join } from 'node:path';
import { MemoryError } from '../errors';
import { dotAt, dotAt8, type Int8Rows, int8Rows, quantize, quantizeAt, SCAN_BLOCK_ROWS } from './int8Scan';
import { DocSlots } from './docSlots';
import { TopK } from './keywordIndex';
import {
  blockBytes, type ItemMap, type LoadedItemMap, type PartitionOut, readExactly, rowBytesFor, VECTOR_FORMAT, type VectorFileHead,
  withVectorFile, writeVectorFile,
} from './vectorFile';

export interface VectorHit {
  docId: number;
  score: number;
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

const INITIAL_ROWS = 64;
const SLOT_BITS = 2 ** 32; // docSlot = partitionIndex * 2^32 + row (exact in a double)
// Below this many rows one asymmetric pass (float query · int8 row) is as fast as the two-pass scan.
// Measured (k = 60, 384 dims, shared 2-core machine): exact 0.50 / 1.02 / 1.63 / 2.25 ms at 1k / 2k / 3k / 4k rows,
// two-pass 0.43 / 0.47 / 0.56 / 0.64 ms — the int8 pass wins from ~1k rows.
const TWO_PASS_MIN_ROWS = 1024;
// First-pass candidates re-scored: int8·int8 error is ~1e-2 in cosine, so 8·k (≥ 64) keeps the true top-k.
const RERANK_FACTOR = 8;
const RERANK_MIN = 64;
// Row-wise (old) files are read in slices of this size (never the whole file: 100k rows were a 205 MB buffer in v2).
const LOAD_CHUNK_BYTES = 4 << 20;

export class VectorIndex {
  private readonly parts: Partition[] = [];
  private readonly partByLabel = new Map<string, number>();
  private slots = new DocSlots();

  private readonly exact: boolean;
  private readonly qbuf: Int8Array;
  private readonly fbuf: Float32Array;
  /** The item map the file was saved with (`save(file, map)`), after `load`; cleared by the owner once used. */
  itemMap: LoadedItemMap | undefined;
  /** The format of the file this index was loaded from (0: not loaded); older formats are worth rewriting. */
  fileVersion = 0;

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

  /** Empties the index; its int8 rows' memory goes to the next index made in this process (int8Scan.ts `released`). */
  release(): void {
    for (const p of this.parts) p.q8?.release();
    this.parts.length = 0;
    this.partByLabel.clear();
    this.slots = new DocSlots();
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
    let n = this.qbuf.byteLength + this.fbuf.byteLength + this.slots.approxBytes;
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
    if (existing >= 0) {
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
    if (slot < 0) return false;
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

  /** Each partition's label and doc ids (rows [0, count)): a read-only view for one pass over every row. */
  partitionDocs(): readonly { label: string; docIds: Int32Array; count: number }[] {
    return this.parts.map((p) => ({ label: p.label, docIds: p.docIds, count: p.count }));
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
    if (slot < 0) return undefined;
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
   * Writes the vector file (format 4, see vectorFile.ts) with the owner's item map, if any; temp file +
   * fsync + rename, so a crash leaves the old file or the new one.
   */
  save(file: string, map?: ItemMap): void {
    const d = this.dims;
    let scratch = new Int8Array(0);
    const parts: PartitionOut[] = this.parts.map((p) => ({
      label: p.label, count: p.count, docIds: p.docIds, invScale: p.q8 ? p.invScale : this.exactScales(p),
      rows: (start: number, n: number): Int8Array => {
        if (p.q8) return p.q8.bytes.subarray(p.q8.rowsOffset + start * d, p.q8.rowsOffset + (start + n) * d);
        if (scratch.length < n * d) scratch = new Int8Array(n * d);
        const out = scratch.subarray(0, n * d);
        for (let r = 0; r < n; r++) {
          quantizeAt(p.rows!, (start + r) * d, d, this.qbuf);
          out.set(this.qbuf, r * d);
        }
        return out;
      },
    }));
    writeVectorFile(file, this.embedderId, d, parts, map);
  }

  /** Exact mode: the 1/scale each row gets when quantised (as the file stores it). */
  private exactScales(p: Partition): Float32Array {
    const inv = new Float32Array(p.count);
    for (let r = 0; r < p.count; r++) inv[r] = 1 / quantizeAt(p.rows!, r * this.dims, this.dims, this.qbuf);
    return inv;
  }

  /**
   * Loads a file written by `save` (format 4, or 2–3 of earlier versions); refuses a file of another
   * embedder id or width (E_REFUSED), reports a damaged one as E_CORRUPT. `opts.int8: false` loads into
   * an exact index. The item map saved with it is in `itemMap`, the file's format in `fileVersion`.
   */
  static load(file: string, embedderId: string, dims: number, opts: { int8?: boolean } = {}): VectorIndex {
    return withVectorFile(file, embedderId, dims, (fd, head) => {
      const idx = VectorIndex.forFile(head, embedderId, dims, opts);
      if (head.version !== VECTOR_FORMAT) {
        idx.readRows(fd, head);
        return idx;
      }
      for (const b of idx.blocks(head)) {
        readExactly(fd, b.docIds, b.pos);
        readExactly(fd, b.invScale, b.pos + b.docIds.byteLength);
        if (b.rows) readExactly(fd, b.rows, b.rowsPos);
        else idx.readExactRows(fd, b.pi, b.count, b.rowsPos);
      }
      idx.registerBlocks(head);
      return idx;
    });
  }

  /** An empty index with the file's partitions, sized for their rows. */
  private static forFile(head: VectorFileHead, embedderId: string, dims: number, opts: { int8?: boolean }): VectorIndex {
    const idx = new VectorIndex(embedderId, dims, opts);
    idx.itemMap = head.map;
    idx.fileVersion = head.version;
    for (let pi = 0; pi < head.labels.length; pi++) {
      idx.parts.push(idx.newPartition(head.labels[pi]!, Math.max(INITIAL_ROWS, head.counts?.[pi] ?? 0)));
      idx.partByLabel.set(head.labels[pi]!, pi);
    }
    return idx;
  }

  /** Format 4: where each partition's ids, scales and int8 rows go (views of its storage; rows null in exact mode) and their file offsets. */
  private blocks(head: VectorFileHead): { pi: number; count: number; pos: number; rowsPos: number; docIds: Int32Array; invScale: Float32Array; rows: Int8Array | null }[] {
    const d = this.dims;
    let pos = head.dataStart;
    return this.parts.map((p, pi) => {
      const c = head.counts![pi]!;
      const b = {
        pi, count: c, pos, rowsPos: pos + c * 8, docIds: p.docIds.subarray(0, c), invScale: p.invScale.subarray(0, c),
        rows: p.q8 ? p.q8.bytes.subarray(p.q8.rowsOffset, p.q8.rowsOffset + c * d) : null,
      };
      pos += blockBytes(c, d);
      return b;
    });
  }

  /** Exact mode: a partition's int8 rows read in slices and dequantised into its float rows. */
  private readExactRows(fd: number, pi: number, c: number, pos: number): void {
    const d = this.dims, p = this.parts[pi]!;
    const slice = Math.max(1, Math.floor(LOAD_CHUNK_BYTES / d));
    const tmp = new Int8Array(Math.min(c, slice) * d);
    for (let r0 = 0; r0 < c; r0 += slice) {
      const n = Math.min(slice, c - r0);
      readExactly(fd, tmp.subarray(0, n * d), pos + r0 * d);
      for (let r = 0; r < n; r++) {
        const inv = p.invScale[r0 + r]!;
        for (let i = 0; i < d; i++) p.rows![(r0 + r) * d + i] = tmp[r * d + i]! * inv;
      }
    }
  }

  /** After the blocks were read: the rows' slots, checking ids (no duplicates) and scales. */
  private registerBlocks(head: VectorFileHead): void {
    for (let pi = 0; pi < this.parts.length; pi++) {
      const p = this.parts[pi]!, c = head.counts![pi]!;
      for (let r = 0; r < c; r++) {
        const docId = p.docIds[r]!;
        if (docId < 0) throw corruptFile('bad doc id');
        if (!this.slots.add(docId, pi * SLOT_BITS + r)) throw corruptFile('duplicate doc id');
        if (!Number.isFinite(p.invScale[r]!)) throw corruptFile('bad row scale');
      }
      p.count = c;
    }
  }

  /** Formats 2 and 3: rows one by one, read in 4 MB slices (never the whole file at once). */
  private readRows(fd: number, head: VectorFileHead): void {
    const rowBytes = rowBytesFor(this.dims, head.version);
    const qInts = Math.ceil(this.dims / 4);
    const chunkRows = Math.max(1, Math.floor(LOAD_CHUNK_BYTES / rowBytes));
    const chunk = Buffer.alloc(Math.min(head.count, chunkRows) * rowBytes);
    const ints = new Int32Array(chunk.buffer, chunk.byteOffset, chunk.length / 4);
    const floats = new Float32Array(chunk.buffer, chunk.byteOffset, chunk.length / 4);
    const bytes = new Int8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    const rowInts = rowBytes / 4;
    let pos = head.dataStart;
    for (let r0 = 0; r0 < head.count; r0 += chunkRows) {
      const n = Math.min(chunkRows, head.count - r0);
      readExactly(fd, chunk.subarray(0, n * rowBytes), pos);
      pos += n * rowBytes;
      for (let r = 0; r < n; r++) {
        const o = r * rowInts;
        const docId = ints[o]!;
        const pi = ints[o + 1]!;
        if (pi < 0 || pi >= this.parts.length) throw corruptFile('row partition out of range');
        if (docId < 0 || this.slots.get(docId) >= 0) throw corruptFile('duplicate doc id');
        this.appendRaw(pi, docId, bytes, (o + 3) * 4, floats[o + 2]!, head.version === 2 ? floats : null, o + 3 + qInts);
      }
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

const corruptFile = (why: string) => new MemoryError('E_CORRUPT', `vector file: ${why}`);

// In-memory vector index (SPEC R-RECALL-3/8): one contiguous Float32Array per scope partition
// ('global', 'p:<project>', 't:<projectType>'), so a query only scans what the conversation may see.
// Invariants: rows are normalised vectors of `dims` floats; rows stay packed (remove swaps the last
// row in); the file on disk belongs to exactly one embedder id and is replaced atomically.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MemoryError } from '../errors';
import { createInt8Scanner, type Int8Scanner, quantize, quantizeAt, SCAN_BLOCK_ROWS } from './int8Scan';
import { TopK } from './keywordIndex';

export interface VectorHit {
  docId: number;
  score: number;
}

interface Partition {
  label: string;
  rows: Float32Array; // capacity × dims
  docIds: Int32Array;
  count: number;
  /** Int8 copy of the rows for the SIMD first pass; null without WebAssembly SIMD. */
  scanner: Int8Scanner | null;
  /** Per row 1 / quantisation scale, so approx = int dot · invScale[row] · invQueryScale. */
  invScale: Float32Array;
}

const MAGIC = 0x5645_4331; // "VEC1"
const FORMAT_VERSION = 2; // 2: rows carry their int8 copy, so loading needs no re-quantising
const INITIAL_ROWS = 64;
const SLOT_BITS = 2 ** 32; // docSlot = partitionIndex * 2^32 + row (exact in a double)
// Below this many rows the exact float loop is as fast as the two-pass scan. Measured (k = 60, 384 dims,
// shared 2-core machine): exact 0.50 / 1.02 / 1.63 / 2.25 ms at 1k / 2k / 3k / 4k rows, two-pass 0.43 /
// 0.47 / 0.56 / 0.64 ms — the int8 pass wins from ~1k rows.
const TWO_PASS_MIN_ROWS = 1024;
// First-pass candidates re-scored exactly: int8 error is ~1e-2 in cosine, so 8·k (≥ 64) keeps the true top-k.
const RERANK_FACTOR = 8;
const RERANK_MIN = 64;

export class VectorIndex {
  private readonly parts: Partition[] = [];
  private readonly partByLabel = new Map<string, number>();
  private readonly slots = new Map<number, number>();

  private readonly useInt8: boolean;
  private readonly qbuf: Int8Array;
  /** Extra header data the file was saved with (`save(file, ext)`), e.g. the owner's item map. */
  ext: unknown;

  /** `int8: false` forces the exact float32 scan (benchmarks, or a runtime without SIMD). */
  constructor(readonly embedderId: string, readonly dims: number, opts: { int8?: boolean } = {}) {
    if (!embedderId || /[\\/]/.test(embedderId) || embedderId.includes('..')) {
      throw new MemoryError('E_BAD_INPUT', 'vector index: embedder id must be a plain name');
    }
    if (!Number.isInteger(dims) || dims <= 0) throw new MemoryError('E_BAD_INPUT', 'vector index: dims must be a positive integer');
    this.useInt8 = opts.int8 !== false;
    this.qbuf = new Int8Array(dims);
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

  /** Stores (or moves) `docId`'s vector into `partition`. The vector is copied. */
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
    if (p.count === p.docIds.length) this.growPartition(p);
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
      p.rows.copyWithin(row * d, last * d, last * d + d);
      p.scanner?.copyRow(last, row);
      p.invScale[row] = p.invScale[last]!;
      const moved = p.docIds[last]!;
      p.docIds[row] = moved;
      this.slots.set(moved, Math.floor(slot / SLOT_BITS) * SLOT_BITS + row);
    }
    p.count = last;
    return true;
  }

  /** Calls `cb` for every stored row; `vec` is a view, valid only during the call. */
  forEachRow(cb: (docId: number, partition: string, vec: Float32Array) => void): void {
    const d = this.dims;
    for (const p of this.parts) {
      for (let r = 0; r < p.count; r++) cb(p.docIds[r]!, p.label, p.rows.subarray(r * d, (r + 1) * d));
    }
  }

  /** The stored vector (a copy), or undefined. */
  get(docId: number): Float32Array | undefined {
    const slot = this.slots.get(docId);
    if (slot === undefined) return undefined;
    const p = this.parts[Math.floor(slot / SLOT_BITS)]!;
    const start = (slot % SLOT_BITS) * this.dims;
    return p.rows.slice(start, start + this.dims);
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
      if (p.scanner && p.count >= TWO_PASS_MIN_ROWS) this.searchTwoPass(p, queryVec, k, heap, filter, minScore);
      else this.scanExact(p, queryVec, 0, p.count, heap, filter, minScore);
    }
    return heap.sorted();
  }

  /** Exact float32 scan of rows [from, to) into `heap`. */
  private scanExact(p: Partition, q: Float32Array, from: number, to: number, heap: TopK, filter: ((docId: number) => boolean) | undefined, minScore: number): void {
    const d = this.dims;
    const rows = p.rows;
    for (let r = from, base = from * d; r < to; r++, base += d) {
      const s = dotAt(rows, base, q, d);
      if (s < minScore || !heap.wouldAccept(s)) continue;
      const docId = p.docIds[r]!;
      if (filter && !filter(docId)) continue;
      heap.push(docId, s);
    }
  }

  /**
   * Int8 SIMD pass over the whole partition keeping 8·k approximate candidates, then exact float
   * scores for those. When the filter rejects so many that fewer than k survive, the partition
   * is scanned exactly instead (correct first, fast in the common case).
   */
  private searchTwoPass(p: Partition, q: Float32Array, k: number, heap: TopK, filter: ((docId: number) => boolean) | undefined, minScore: number): void {
    const scanner = p.scanner!;
    const invQ = 1 / quantize(q, this.qbuf);
    const cand = new TopK(Math.max(RERANK_MIN, k * RERANK_FACTOR));
    const inv = p.invScale;
    for (let start = 0; start < p.count; start += SCAN_BLOCK_ROWS) {
      const n = Math.min(SCAN_BLOCK_ROWS, p.count - start);
      const out = scanner.scan(this.qbuf, start, n);
      for (let i = 0; i < n; i++) {
        const approx = out[i]! * inv[start + i]! * invQ;
        if (cand.wouldAccept(approx)) cand.push(start + i, approx);
      }
    }
    const d = this.dims;
    let kept = 0, rejected = 0;
    for (const c of cand.sorted()) {
      const r = c.docId; // row index in this partition
      const s = dotAt(p.rows, r * d, q, d);
      if (s < minScore) continue;
      const docId = p.docIds[r]!;
      if (filter && !filter(docId)) { rejected++; continue; }
      kept++;
      heap.push(docId, s);
    }
    if (kept < k && rejected > 0) this.scanExact(p, q, 0, p.count, heap, filter, minScore);
  }

  private writeRow(p: Partition, row: number, vec: Float32Array): void {
    p.rows.set(vec, row * this.dims);
    this.quantizeRow(p, row);
  }

  /** Appends a row from file bytes: floats at `src[off…]`, its int8 copy at `q8[qOff…]`. */
  private appendRaw(pi: number, docId: number, src: Float32Array, off: number, invScale: number, q8: Int8Array, qOff: number): void {
    const p = this.parts[pi]!;
    const d = this.dims;
    p.rows.set(src.subarray(off, off + d), p.count * d);
    if (p.scanner) {
      p.invScale[p.count] = invScale;
      p.scanner.setRow(p.count, q8.subarray(qOff, qOff + d));
    }
    p.docIds[p.count] = docId;
    this.slots.set(docId, pi * SLOT_BITS + p.count);
    p.count++;
  }

  /** Refreshes the int8 copy of a row from its float32 values. */
  private quantizeRow(p: Partition, row: number): void {
    if (!p.scanner) return;
    p.invScale[row] = 1 / quantizeAt(p.rows, row * this.dims, this.dims, this.qbuf);
    p.scanner.setRow(row, this.qbuf);
  }

  /** The file for this index under `vectorsDir`: `<embedder-id>.bin`. */
  fileIn(vectorsDir: string): string {
    return join(vectorsDir, `${this.embedderId}.bin`);
  }

  /**
   * Writes header (magic, version, dims, embedder id, partition labels) then fixed-width rows
   * [docId int32, partition int32, 1/scale float32, dims × int8 (padded to 4), dims × float32];
   * temp file + fsync + rename, so a crash leaves the old file or the new one, never half of each.
   */
  save(file: string, ext?: unknown): void {
    mkdirSync(dirname(file), { recursive: true });
    const labels = this.parts.map((p) => p.label);
    const meta = Buffer.from(JSON.stringify(ext === undefined ? { embedderId: this.embedderId, labels } : { embedderId: this.embedderId, labels, ext }), 'utf8');
    const metaPadded = (meta.length + 3) & ~3;
    const rowBytes = rowBytesFor(this.dims);
    const qInts = int8Ints(this.dims);
    const header = Buffer.alloc(20 + metaPadded);
    header.writeInt32LE(MAGIC, 0);
    header.writeInt32LE(FORMAT_VERSION, 4);
    header.writeInt32LE(this.dims, 8);
    header.writeInt32LE(this.size, 12);
    header.writeInt32LE(meta.length, 16);
    meta.copy(header, 20);
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, header);
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
          if (p.scanner) {
            floats[o + 2] = p.invScale[r]!;
            bytes.set(p.scanner.rowView(r), (o + 3) * 4);
          } else {
            floats[o + 2] = 1 / quantizeAt(p.rows, r * this.dims, this.dims, this.qbuf);
            bytes.set(this.qbuf, (o + 3) * 4);
          }
          floats.set(p.rows.subarray(r * this.dims, (r + 1) * this.dims), o + 3 + qInts);
          if (++inChunk === chunkRows) {
            writeSync(fd, chunk);
            inChunk = 0;
          }
        }
      }
      if (inChunk > 0) writeSync(fd, chunk, 0, inChunk * rowBytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  }

  /** Loads a file written by `save`; refuses a file of another embedder id or width. */
  static load(file: string, embedderId: string, dims: number): VectorIndex {
    const raw = readFileSync(file);
    const corrupt = (why: string) => new MemoryError('E_CORRUPT', `vector file: ${why}`);
    if (raw.length < 20 || raw.readInt32LE(0) !== MAGIC) throw corrupt('bad magic');
    if (raw.readInt32LE(4) !== FORMAT_VERSION) throw corrupt('unknown version');
    const fileDims = raw.readInt32LE(8);
    const count = raw.readInt32LE(12);
    const metaLen = raw.readInt32LE(16);
    if (metaLen < 0 || 20 + metaLen > raw.length) throw corrupt('bad header');
    let meta: { embedderId?: unknown; labels?: unknown; ext?: unknown };
    try {
      meta = JSON.parse(raw.toString('utf8', 20, 20 + metaLen));
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
    const start = 20 + ((metaLen + 3) & ~3);
    const rowBytes = rowBytesFor(dims);
    const qInts = int8Ints(dims);
    if (count < 0 || raw.length !== start + count * rowBytes) throw corrupt('size mismatch');
    // Typed views straight over the file bytes when aligned (readFileSync of a large file is);
    // otherwise one aligned copy.
    const bodyBytes = count * rowBytes;
    let base = raw.byteOffset + start;
    let buffer = raw.buffer;
    if (base % 4 !== 0) {
      const copy = new Uint8Array(bodyBytes);
      copy.set(raw.subarray(start));
      buffer = copy.buffer;
      base = 0;
    }
    const ints = new Int32Array(buffer, base, bodyBytes / 4);
    const floats = new Float32Array(buffer, base, bodyBytes / 4);
    const bytes = new Int8Array(buffer, base, bodyBytes);
    const idx = new VectorIndex(embedderId, dims);
    idx.ext = meta.ext;
    // Pre-size partitions so loading is one pass of copies.
    const perPart = new Int32Array(labels.length);
    const rowInts = rowBytes / 4;
    for (let r = 0; r < count; r++) {
      const pi = ints[r * rowInts + 1]!;
      if (pi < 0 || pi >= labels.length) throw corrupt('row partition out of range');
      perPart[pi]!++;
    }
    for (let pi = 0; pi < labels.length; pi++) {
      idx.parts.push(idx.newPartition(labels[pi] as string, Math.max(INITIAL_ROWS, perPart[pi]!)));
      idx.partByLabel.set(labels[pi] as string, pi);
    }
    for (let r = 0; r < count; r++) {
      const o = r * rowInts;
      const docId = ints[o]!;
      const pi = ints[o + 1]!;
      if (idx.slots.has(docId)) throw corrupt('duplicate doc id');
      idx.appendRaw(pi, docId, floats, o + 3 + qInts, floats[o + 2]!, bytes, (o + 3) * 4);
    }
    return idx;
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

  private growPartition(p: Partition): void {
    const cap = p.docIds.length * 2;
    const rows = new Float32Array(cap * this.dims);
    rows.set(p.rows.subarray(0, p.count * this.dims));
    const ids = new Int32Array(cap);
    ids.set(p.docIds.subarray(0, p.count));
    p.rows = rows;
    p.docIds = ids;
    const inv = new Float32Array(cap);
    inv.set(p.invScale.subarray(0, p.count));
    p.invScale = inv;
    p.scanner?.reserve(cap);
  }

  private newPartition(label: string, cap: number): Partition {
    return {
      label, rows: new Float32Array(cap * this.dims), docIds: new Int32Array(cap), count: 0,
      scanner: this.useInt8 ? createInt8Scanner(this.dims, cap) : null, invScale: new Float32Array(cap),
    };
  }
}

/** Int32 words holding a row's int8 copy (dims padded to 4 bytes). */
function int8Ints(dims: number): number {
  return Math.ceil(dims / 4);
}

function rowBytesFor(dims: number): number {
  return 12 + int8Ints(dims) * 4 + dims * 4;
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

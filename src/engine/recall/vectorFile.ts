// The vector file (`vectors/<embedder-id>.bin`) of a VectorIndex: its header, the owner's item map and
// the rows. Format 4 (written) is columnar per partition — [doc ids int32 × c][1/scale float32 × c]
// [int8 rows × c, padded to 4] — so a load reads each block straight into the partition's storage (at
// 1M rows: one read per block, no per-row copy). The item map (ids as NUL-separated UTF-8, text hashes
// as uint32) is binary too: as JSON it cost ~0.5 s to parse at 1M items. Formats 2 and 3 (row-wise:
// [docId, partition, 1/scale, int8 × dims padded to 4] (+ dims × float32 in 2)) are still read.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { writeAll, writeFileAtomicWith } from '../atomicWrite';
import { MemoryError } from '../errors';

export const VECTOR_MAGIC = 0x5645_4331; // "VEC1"
export const VECTOR_FORMAT = 4;

/**
 * The owner's per-doc item map saved with the vectors: id (null = none) and text hash per doc number. `ids`
 * may be given already encoded (NUL-separated UTF-8, one per hash, '' = none).
 */
export interface ItemMap {
  ids: readonly (string | null | undefined)[] | Buffer;
  hashes: ArrayLike<number>;
}

/**
 * An item map as loaded: '' for no id. `idBlob` is the ids as saved (format 4), so an owner holding the
 * same bytes can skip decoding them (`ids()` decodes on first call).
 */
export interface LoadedItemMap {
  ids(): string[];
  idBlob: Buffer | null;
  hashes: Uint32Array;
}

/** One partition as `writeVectorFile` needs it; `rows(start, n)` gives n packed int8 rows (a view or a scratch copy). */
export interface PartitionOut {
  label: string;
  count: number;
  docIds: Int32Array;
  invScale: Float32Array;
  rows(start: number, n: number): Int8Array;
}

/** What the header says; `dataStart` is where the first partition (format 4) or row (2, 3) begins. */
export interface VectorFileHead {
  version: number;
  count: number;
  labels: string[];
  /** Rows per partition (format ≥ 3; null in 2). */
  counts: number[] | null;
  map: LoadedItemMap | undefined;
  dataStart: number;
  size: number;
}

const corrupt = (why: string) => new MemoryError('E_CORRUPT', `vector file: ${why}`);
const pad4 = (n: number) => (n + 3) & ~3;
/** Bytes of one partition block in format 4. */
export const blockBytes = (count: number, dims: number) => count * 8 + pad4(count * dims);
/** Bytes of one row in the row-wise formats 2 and 3. */
export const rowBytesFor = (dims: number, version: number) => 12 + pad4(dims) + (version === 2 ? dims * 4 : 0);

/** Reads exactly `view.byteLength` bytes at `pos` into `view`, or throws E_CORRUPT (truncated). */
export function readExactly(fd: number, view: ArrayBufferView, pos: number): void {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let got = 0;
  while (got < bytes.length) {
    // ≤ 1 GB per call (readSync's limit is 2 GB).
    const m = readSync(fd, bytes, got, Math.min(bytes.length - got, 1 << 30), pos + got);
    if (m <= 0) throw corrupt('truncated');
    got += m;
  }
}

/** Opens `file`, checks its header against (embedderId, dims), and calls `body` with the fd and the header. */
export function withVectorFile<T>(file: string, embedderId: string, dims: number, body: (fd: number, head: VectorFileHead) => T): T {
  const fd = openSync(file, 'r');
  try {
    return body(fd, readHead(fd, embedderId, dims));
  } finally {
    closeSync(fd);
  }
}

function readHead(fd: number, embedderId: string, dims: number): VectorFileHead {
  const size = fstatSync(fd).size;
  const head = Buffer.alloc(20);
  if (size < 20 || readSync(fd, head, 0, 20, 0) !== 20 || head.readInt32LE(0) !== VECTOR_MAGIC) throw corrupt('bad magic');
  const version = head.readInt32LE(4);
  if (version < 2 || version > VECTOR_FORMAT) throw corrupt('unknown version');
  const fileDims = head.readInt32LE(8), count = head.readInt32LE(12), metaLen = head.readInt32LE(16);
  if (metaLen < 0 || count < 0 || 20 + metaLen > size) throw corrupt('bad header');
  const metaBuf = Buffer.alloc(metaLen);
  readExactly(fd, metaBuf, 20);
  let meta: { embedderId?: unknown; labels?: unknown; counts?: unknown; ext?: { ids?: unknown; hashes?: unknown }; map?: { docs?: unknown; idBytes?: unknown } };
  try {
    meta = JSON.parse(metaBuf.toString('utf8'));
  } catch {
    throw corrupt('bad header');
  }
  if (meta.embedderId !== embedderId || fileDims !== dims) {
    throw new MemoryError('E_REFUSED', 'vector file belongs to another embedder', { fileEmbedder: String(meta.embedderId), fileDims, embedder: embedderId, dims });
  }
  const labels = meta.labels;
  if (!Array.isArray(labels) || !labels.every((l) => typeof l === 'string')) throw corrupt('bad partition table');
  const countsOk = Array.isArray(meta.counts) && meta.counts.length === labels.length && meta.counts.every((c) => Number.isInteger(c) && c >= 0);
  const counts = countsOk ? (meta.counts as number[]) : null;
  if (version === VECTOR_FORMAT && (!counts || counts.reduce((a, b) => a + b, 0) !== count)) throw corrupt('bad partition table');
  let pos = 20 + pad4(metaLen);
  let map: LoadedItemMap | undefined;
  if (version === VECTOR_FORMAT && meta.map) {
    const docs = meta.map.docs, idBytes = meta.map.idBytes;
    if (!Number.isInteger(docs) || !Number.isInteger(idBytes) || (docs as number) < 0 || (idBytes as number) < 0) throw corrupt('bad item map');
    if (pos + (docs as number) * 4 + (idBytes as number) > size) throw corrupt('truncated');
    map = readMap(fd, pos, docs as number, idBytes as number);
    pos += (docs as number) * 4 + pad4(idBytes as number);
  } else if (meta.ext) {
    map = jsonMap(meta.ext);
  }
  const expected = version === VECTOR_FORMAT
    ? pos + counts!.reduce((a, c) => a + blockBytes(c, dims), 0)
    : pos + count * rowBytesFor(dims, version);
  if (size !== expected) throw corrupt('size mismatch');
  return { version, count, labels: labels as string[], counts, map, dataStart: pos, size };
}

function readMap(fd: number, pos: number, docs: number, idBytes: number): LoadedItemMap {
  const hashes = new Uint32Array(docs);
  readExactly(fd, hashes, pos);
  const blob = Buffer.allocUnsafe(idBytes);
  readExactly(fd, blob, pos + docs * 4);
  const nuls = docs === 0 ? 0 : countNuls(blob) + 1;
  if (nuls !== docs) throw corrupt('bad item map');
  let ids: string[] | undefined;
  return { ids: () => (ids ??= docs === 0 ? [] : blob.toString('utf8').split('\0')), idBlob: blob, hashes };
}

function countNuls(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(0); i >= 0; i = b.indexOf(0, i + 1)) n++;
  return n;
}

/** The item map of formats 2 and 3 (JSON in the header's `ext`). */
function jsonMap(ext: { ids?: unknown; hashes?: unknown }): LoadedItemMap | undefined {
  if (!Array.isArray(ext.ids) || !Array.isArray(ext.hashes) || ext.ids.length !== ext.hashes.length) return undefined;
  const ids = (ext.ids as unknown[]).map((x) => (typeof x === 'string' ? x : ''));
  return {
    ids: () => ids,
    idBlob: null,
    hashes: Uint32Array.from(ext.hashes as unknown[], (h) => (typeof h === 'number' ? h >>> 0 : 0)),
  };
}

/**
 * Writes format 4: header, JSON {embedderId, labels, counts, map?}, the item map, then each partition's
 * block. Temp file + fsync + rename, so a crash leaves the old file or the new one. An id holding a NUL
 * (never a valid memory id) is saved as none: its vector is simply re-made after the next load.
 */
export function writeVectorFile(file: string, embedderId: string, dims: number, parts: readonly PartitionOut[], map?: ItemMap): void {
  const labels = parts.map((p) => p.label);
  const counts = parts.map((p) => p.count);
  const count = counts.reduce((a, b) => a + b, 0);
  let idBlob: Buffer | undefined;
  if (map) idBlob = Buffer.isBuffer(map.ids) ? map.ids : Buffer.from(map.ids.map((x) => (typeof x === 'string' && !x.includes('\0') ? x : '')).join('\0'), 'utf8');
  const metaJson = { embedderId, labels, counts, ...(map ? { map: { docs: map.hashes.length, idBytes: idBlob!.length } } : {}) };
  const meta = Buffer.from(JSON.stringify(metaJson), 'utf8');
  const header = Buffer.alloc(20 + pad4(meta.length));
  header.writeInt32LE(VECTOR_MAGIC, 0);
  header.writeInt32LE(VECTOR_FORMAT, 4);
  header.writeInt32LE(dims, 8);
  header.writeInt32LE(count, 12);
  header.writeInt32LE(meta.length, 16);
  meta.copy(header, 20);
  const zeros = Buffer.alloc(4);
  writeFileAtomicWith(file, (fd) => {
    writeAll(fd, header);
    if (map) {
      const hashes = Uint32Array.from(map.hashes as ArrayLike<number>, (h) => h >>> 0);
      if (!Buffer.isBuffer(map.ids) && hashes.length !== map.ids.length) throw new MemoryError('E_BAD_INPUT', 'vector file: item map ids and hashes differ in length');
      writeAll(fd, new Uint8Array(hashes.buffer));
      writeAll(fd, idBlob!);
      writeAll(fd, zeros, pad4(idBlob!.length) - idBlob!.length);
    }
    for (const p of parts) {
      writeAll(fd, new Uint8Array(p.docIds.buffer, p.docIds.byteOffset, p.count * 4));
      writeAll(fd, new Uint8Array(p.invScale.buffer, p.invScale.byteOffset, p.count * 4));
      // Rows in slices of ≤ 4 MB (a view when the rows are int8 already, a quantised copy otherwise).
      const slice = Math.max(1, Math.floor((4 << 20) / dims));
      for (let r = 0; r < p.count; r += slice) {
        const rows = p.rows(r, Math.min(slice, p.count - r));
        writeAll(fd, new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength));
      }
      writeAll(fd, zeros, pad4(p.count * dims) - p.count * dims);
    }
  });
}

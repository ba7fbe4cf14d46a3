// The recall index image (`index/recall.idx`): everything of a RecallIndex but its vectors, so an open
// loads it instead of re-reading every item. Version 2 (written) is laid out so a load is views and
// block copies, with nothing built per item (at 1M items version 1 spent ~0.3 s parsing the ids as JSON
// and ~1.1 s building the id map):
//   head [magic, version, meta length, keyword length] (int32 × 4)
//   meta JSON {seq, docs, interned, idBytes, table: {hash, slots}}  (padded to 8)
//   ids: NUL-separated UTF-8, '' for a free doc                      (padded to 8)
//   id table: int32 × slots (see idTable.ts)                         (padded to 8)
//   per-doc columns (the index's order, 8-byte elements first)       (each padded to 8)
//   keyword index image (KeywordIndex.serialize)                     (padded to 8)
//   CRC-32 of all the above (uint32)
// Version 1 (still read): meta JSON {seq, docs, ids, interned}, no ids blob, no table.
import { fstatSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { writeAll, writeFileAtomicWith } from '../atomicWrite';
import { MemoryError } from '../errors';
import { TABLE_HASH } from './idTable';
import { readExactly } from './vectorFile';

const IMAGE_MAGIC = 0x5249_5831; // "RIX1"
export const IMAGE_VERSION = 2;
/** Bytes every doc takes in the columns at least (a bound for the header's doc count). */
const MIN_DOC_BYTES = 40;

export type Column = Uint8Array | Float64Array | Float32Array | Int32Array | Uint32Array;

/** What an image holds, as `encodeImage` takes it. */
export interface ImageOut {
  seq: number;
  /** Docs (the id slots, free ones included). */
  docs: number;
  /** The ids (undefined = a free doc), or already encoded as NUL-separated UTF-8 ('' = free). */
  ids: readonly (string | undefined)[] | Buffer;
  interned: readonly string[];
  /** The id table's slots (built for `ids`). */
  table: Int32Array;
  /** The per-doc columns, each at least `ids.length` long. */
  columns: readonly Column[];
  keyword: Uint8Array;
}

/** What `decodeImage` read. */
export interface ImageIn {
  version: number;
  seq: number;
  docs: number;
  /** Version 1: the ids (undefined = a free doc); null in version 2, whose ids are `idBlob`. */
  ids: (string | undefined)[] | null;
  interned: string[];
  /** Version 2: the ids as saved, NUL-separated UTF-8 ('' = a free doc), left encoded (see IdList). */
  idBlob: Buffer | null;
  /** Null in version 1 (or another hash): the caller builds the table. */
  table: Int32Array | null;
  keyword: Uint8Array;
}

const corrupt = (why: string) => new MemoryError('E_CORRUPT', `recall index image: ${why}`);
const pad8 = (n: number) => (n + 7) & ~7;

/** An image's pieces in file order — views of the index's own arrays, no copy — with its checksum last. */
function imageParts(img: ImageOut): Uint8Array[] {
  const n = img.docs;
  let idBlob: Buffer;
  if (Buffer.isBuffer(img.ids)) {
    idBlob = img.ids;
  } else {
    // A NUL cannot be in a memory id (parseMemoryId refuses it); the check keeps the blob's framing sound.
    const idList = img.ids.map((x) => x ?? '');
    if (idList.some((x) => x.includes('\0'))) throw new MemoryError('E_BAD_INPUT', 'recall index image: an id holds a NUL');
    idBlob = Buffer.from(idList.join('\0'), 'utf8');
  }
  const meta = Buffer.from(JSON.stringify({ seq: img.seq, docs: n, interned: img.interned, idBytes: idBlob.length, table: { hash: TABLE_HASH, slots: img.table.length } }), 'utf8');
  const head = Buffer.alloc(16);
  head.writeInt32LE(IMAGE_MAGIC, 0);
  head.writeInt32LE(IMAGE_VERSION, 4);
  head.writeInt32LE(meta.length, 8);
  head.writeInt32LE(img.keyword.length, 12);
  const parts: Uint8Array[] = [head];
  const add = (b: Uint8Array) => {
    parts.push(b);
    if (pad8(b.length) !== b.length) parts.push(Buffer.alloc(pad8(b.length) - b.length));
  };
  add(meta);
  add(idBlob);
  add(new Uint8Array(img.table.buffer, img.table.byteOffset, img.table.byteLength));
  for (const a of img.columns) add(new Uint8Array(a.buffer, a.byteOffset, n * a.BYTES_PER_ELEMENT));
  add(img.keyword);
  let crc = 0;
  for (const p of parts) crc = crc32(p, crc);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(crc, 0);
  parts.push(tail);
  return parts;
}

export function encodeImage(img: ImageOut): Buffer {
  return Buffer.concat(imageParts(img));
}

/**
 * Writes the image to `file` (temp + fsync + rename) piece by piece: the same bytes as {@link encodeImage}
 * without the image ever whole in memory (1M items: ~270 MB, twice over in a concatenation).
 */
export function writeImage(file: string, img: ImageOut): void {
  const parts = imageParts(img);
  writeFileAtomicWith(file, (fd) => { for (const p of parts) writeAll(fd, p); });
}

/** Where an image is read from: a buffer, or a file read piece by piece straight into its targets. */
export interface ImageSource {
  size: number;
  read(into: Uint8Array, pos: number): void;
}

export function bufferSource(image: Uint8Array): ImageSource {
  return { size: image.byteLength, read: (into, pos) => {
    if (pos + into.length > image.byteLength) throw corrupt('truncated');
    into.set(image.subarray(pos, pos + into.length));
  } };
}

export function fileSource(fd: number): ImageSource {
  return { size: fstatSync(fd).size, read: (into, pos) => readExactly(fd, into, pos) };
}

/**
 * Checks and decodes an image, reading each part straight into where it lives (nothing of the image is
 * kept beyond what the index holds). `columnsFor(n)` returns the caller's per-doc columns sized for n
 * docs; they are filled from the image. Throws E_CORRUPT for a damaged image or one of another version
 * (the CRC over everything read is checked at the end).
 */
export function decodeImage(src: ImageSource, columnsFor: (docs: number) => readonly Column[]): ImageIn {
  let crc = 0, off = 0;
  const scratch = new Uint8Array(8);
  const take = (into: Uint8Array) => {
    if (off + into.length > src.size - 4) throw corrupt('truncated');
    src.read(into, off);
    crc = crc32(into, crc);
    off += into.length;
    const pad = pad8(off) - off;
    if (pad && off + pad <= src.size - 4) take(scratch.subarray(0, pad));
  };
  if (src.size < 20) throw corrupt('bad magic');
  const head = Buffer.alloc(16);
  take(head);
  if (head.readInt32LE(0) !== IMAGE_MAGIC) throw corrupt('bad magic');
  const version = head.readInt32LE(4);
  if (version !== 1 && version !== IMAGE_VERSION) throw corrupt('unknown version');
  const metaLen = head.readInt32LE(8), kwLen = head.readInt32LE(12);
  if (metaLen < 0 || kwLen < 0 || 16 + metaLen > src.size) throw corrupt('bad header');
  const metaBuf = Buffer.alloc(metaLen);
  take(metaBuf);
  let meta: { seq: number; docs: number; ids?: (string | null)[]; interned: string[]; idBytes?: number; table?: { hash?: string; slots?: number } };
  try {
    meta = JSON.parse(metaBuf.toString('utf8'));
  } catch {
    throw corrupt('bad header');
  }
  const n = meta.docs;
  if (!Number.isInteger(meta.seq) || !Number.isInteger(n) || n < 0 || !Array.isArray(meta.interned) || meta.interned[0] !== '') throw corrupt('bad header');
  // Sizes within the file before anything is allocated for them (the CRC is only known at the end).
  if (n * MIN_DOC_BYTES > src.size || kwLen > src.size) throw corrupt('bad header');
  let ids: (string | undefined)[] | null = null;
  let table: Int32Array | null = null;
  let idBlob: Buffer | null = null;
  if (version === 1) {
    if (!Array.isArray(meta.ids) || meta.ids.length !== n) throw corrupt('bad header');
    ids = meta.ids.map((x) => (typeof x === 'string' ? x : undefined));
  } else {
    const idBytes = meta.idBytes, slots = meta.table?.slots;
    if (!Number.isInteger(idBytes) || idBytes! < 0 || !Number.isInteger(slots) || slots! < 0) throw corrupt('bad header');
    if (off + pad8(idBytes!) + slots! * 4 > src.size) throw corrupt('truncated');
    idBlob = Buffer.allocUnsafe(idBytes!);
    take(idBlob);
    const raw = new Int32Array(slots!);
    take(new Uint8Array(raw.buffer));
    if (meta.table?.hash === TABLE_HASH) table = raw;
  }
  for (const a of columnsFor(n)) take(new Uint8Array(a.buffer, a.byteOffset, n * a.BYTES_PER_ELEMENT));
  const keyword = new Uint8Array(kwLen); // its own (aligned) buffer: the keyword index keeps views into it
  take(keyword);
  if (off !== src.size - 4) throw corrupt('size mismatch');
  const tail = Buffer.alloc(4);
  src.read(tail, off);
  if (crc !== tail.readUInt32LE(0)) throw corrupt('checksum');
  return { version, seq: meta.seq, docs: n, ids, idBlob, interned: meta.interned.map(String), table, keyword };
}

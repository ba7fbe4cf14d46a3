// The append-only journal file: a 24-byte header (magic, base sequence = the last sequence the
// matching snapshot contains, crc) followed by records [magic u32 | len u32 | seq u64 | version u16 |
// flags u16 | crc32 u32 | payload]. The crc covers len..flags and the payload, so a torn or corrupt
// tail is found by the first record that does not check out. Only the lock holder appends or truncates.
// A payload is the JSON of one transaction, raw-deflated when that is smaller (most are: the statements'
// SQL text and row JSON repeat; ~4× on a LoCoMo import). Such a record carries VERSION_COMPRESSED in its
// version field, so an older version of the extension reads it as a newer schema and refuses the journal
// (read-only, nothing changed) instead of misreading it; uncompressed records from older versions read as
// before.
import * as fs from 'node:fs';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

const FILE_MAGIC = Buffer.from('MEMJRNL1', 'latin1');
export const JOURNAL_HEADER_BYTES = 24;
const RECORD_MAGIC = 0x4d4a_5231; // "MJR1"
export const RECORD_HEADER_BYTES = 24;
/** 64 MB: one logical batch never comes near this; a larger length field means corruption. */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** Set in a record's version field when its payload is raw-deflated. */
export const VERSION_COMPRESSED = 0x8000;
/** Payloads shorter than this stay as they are (deflate's framing would eat the gain). */
const COMPRESS_MIN_BYTES = 256;
/** 512 MB: the most a compressed payload may inflate to (a larger claim means corruption, never a batch). */
const MAX_INFLATED_BYTES = 512 * 1024 * 1024;

/** A transaction's JSON as stored: deflated (level 1: the ack path is timed) when that saves bytes. */
export function packPayload(json: Buffer, schemaVersion: number): { version: number; payload: Buffer } {
  if (json.length >= COMPRESS_MIN_BYTES) {
    const z = deflateRawSync(json, { level: 1 });
    if (z.length < json.length) return { version: schemaVersion | VERSION_COMPRESSED, payload: z };
  }
  return { version: schemaVersion, payload: json };
}

/** The schema version a record was written under (the compression bit removed). */
export function recordSchema(r: Pick<RawRecord, 'version'>): number {
  return r.version & ~VERSION_COMPRESSED & 0xffff;
}

/** A record's JSON text (inflated when it was stored deflated). Throws on a payload that does not inflate. */
export function recordJson(r: Pick<RawRecord, 'version' | 'payload'>): string {
  const b = (r.version & VERSION_COMPRESSED) !== 0 ? inflateRawSync(r.payload, { maxOutputLength: MAX_INFLATED_BYTES }) : r.payload;
  return b.toString('utf8');
}

/**
 * The ids a journal record touched that caches of the recall index must re-read: its touched ids (`t`) less
 * those the record marked index-neutral (`n`: a text moved into the raw record, an access count).
 */
export function idsForIndex(p: { t: string[]; n?: string[] }): string[] {
  if (!p.n?.length) return p.t;
  const neutral = new Set(p.n);
  return p.t.filter((id) => !neutral.has(id));
}

export interface JournalHeader {
  baseSeq: number;
}

export interface RawRecord {
  seq: number;
  version: number;
  payload: Buffer;
  /** Byte offset of the record's end in the file. */
  end: number;
}

export interface ScanResult {
  records: RawRecord[];
  /** Offset just past the last valid record. */
  validEnd: number;
  /** Bytes after validEnd that do not form a valid record (a torn or corrupt tail, or an append in flight). */
  badBytes: number;
}

export function encodeHeader(baseSeq: number): Buffer {
  const b = Buffer.alloc(JOURNAL_HEADER_BYTES);
  FILE_MAGIC.copy(b, 0);
  b.writeBigUInt64LE(BigInt(baseSeq), 8);
  b.writeUInt32LE(0, 16);
  b.writeUInt32LE(crc32(b.subarray(0, 20)), 20);
  return b;
}

export function decodeHeader(b: Buffer): JournalHeader | undefined {
  if (b.length < JOURNAL_HEADER_BYTES || !b.subarray(0, 8).equals(FILE_MAGIC)) return undefined;
  if (crc32(b.subarray(0, 20)) !== b.readUInt32LE(20)) return undefined;
  return { baseSeq: Number(b.readBigUInt64LE(8)) };
}

export function encodeRecord(seq: number, version: number, payload: Buffer): Buffer {
  const b = Buffer.alloc(RECORD_HEADER_BYTES + payload.length);
  b.writeUInt32LE(RECORD_MAGIC, 0);
  b.writeUInt32LE(payload.length, 4);
  b.writeBigUInt64LE(BigInt(seq), 8);
  b.writeUInt16LE(version, 16);
  b.writeUInt16LE(0, 18);
  payload.copy(b, RECORD_HEADER_BYTES);
  b.writeUInt32LE(crc32(payload, crc32(b.subarray(4, 20))), 20);
  return b;
}

/** Parses records from `buf` (which starts at file offset `start`) until the first invalid one. */
export function scanRecords(buf: Buffer, start: number): ScanResult {
  const records: RawRecord[] = [];
  let at = 0;
  while (buf.length - at >= RECORD_HEADER_BYTES) {
    if (buf.readUInt32LE(at) !== RECORD_MAGIC) break;
    const len = buf.readUInt32LE(at + 4);
    if (len > MAX_RECORD_BYTES || buf.length - at - RECORD_HEADER_BYTES < len) break;
    const payload = buf.subarray(at + RECORD_HEADER_BYTES, at + RECORD_HEADER_BYTES + len);
    if (crc32(payload, crc32(buf.subarray(at + 4, at + 20))) !== buf.readUInt32LE(at + 20)) break;
    const seq = Number(buf.readBigUInt64LE(at + 8));
    const version = buf.readUInt16LE(at + 16);
    at += RECORD_HEADER_BYTES + len;
    records.push({ seq, version, payload, end: start + at });
  }
  return { records, validEnd: start + at, badBytes: buf.length - at };
}

/** Reads `path` from `offset` to its current end (empty when missing). */
export function readTail(file: string, offset: number): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size <= offset) return Buffer.alloc(0);
    const b = Buffer.alloc(size - offset);
    let got = 0;
    while (got < b.length) {
      const n = fs.readSync(fd, b, got, b.length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return got === b.length ? b : b.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}

/** Appends `data` at the end of `file` and (unless `sync` is false: journalSync.ts) flushes it to disk before returning (the ack point). */
export function appendDurable(file: string, data: Buffer, sync = true): void {
  const fd = fs.openSync(file, 'a');
  try {
    let off = 0;
    while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
    if (sync) fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function truncateDurable(file: string, length: number): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.ftruncateSync(fd, length);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

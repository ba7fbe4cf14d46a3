// The recall index files as earlier versions wrote them (image version 1, vector file format 3, keyword index
// format 1), made from current files, for the tests that check they still load (and are rewritten).
import { strict as assert } from 'node:assert';
import { crc32 } from 'node:zlib';

/**
 * A keyword index image (KeywordIndex.serialize) in format 1: [ordinal, tf] int32 pairs instead of packed
 * postings (ordinal << 5 | tf); lengths count int32s, two per posting.
 */
export function keywordToV1(kw: Uint8Array): Buffer {
  const b = Buffer.from(kw);
  assert.equal(b.readInt32LE(4), 2, 'a format 2 keyword image');
  const T = b.readInt32LE(8), vocabBytes = b.readInt32LE(12), posts = b.readInt32LE(16);
  const at = 32 + ((vocabBytes + 3) & ~3);
  const out = Buffer.alloc(b.length + posts * 4);
  b.copy(out, 0, 0, at);
  out.writeInt32LE(1, 4);
  out.writeInt32LE(posts * 2, 16);
  for (let t = 0; t < T; t++) out.writeInt32LE(b.readInt32LE(at + t * 4) * 2, at + t * 4);
  const p0 = at + T * 4;
  for (let i = 0; i < posts; i++) {
    const v = b.readInt32LE(p0 + i * 4);
    out.writeInt32LE(v >>> 5, p0 + i * 8);
    out.writeInt32LE(v & 31, p0 + i * 8 + 4);
  }
  b.copy(out, p0 + posts * 8, p0 + posts * 4);
  return out;
}

/** A recall index image (version 2) with its keyword part in format 1 — what stop 33 and before wrote. */
export function withKeywordV1(img: Buffer): Buffer {
  const pad8 = (n: number) => (n + 7) & ~7;
  const kwLen = img.readInt32LE(12);
  const start = img.length - 4 - pad8(kwLen);
  const kw = keywordToV1(img.subarray(start, start + kwLen));
  const body = Buffer.concat([img.subarray(0, start), kw, Buffer.alloc(pad8(kw.length) - kw.length)]);
  body.writeInt32LE(kw.length, 12);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(crc32(body), 0);
  return Buffer.concat([body, tail]);
}

/** The keyword index image inside a recall index image. */
export function keywordPartOf(img: Buffer): Buffer {
  const kwLen = img.readInt32LE(12);
  const start = img.length - 4 - ((kwLen + 7) & ~7);
  return img.subarray(start, start + kwLen);
}

/** The keyword index format inside a recall index image. */
export function keywordFormatOf(img: Buffer): number {
  return keywordPartOf(img).readInt32LE(4);
}

/** The same image in version 1: ids as JSON in the header, no ids blob and no id table, keyword index format 1. */
export function toV1(current: Buffer): Buffer {
  const v2 = withKeywordV1(current);
  const metaLen = v2.readInt32LE(8), kwLen = v2.readInt32LE(12);
  const pad8 = (n: number) => (n + 7) & ~7;
  const meta = JSON.parse(v2.toString('utf8', 16, 16 + metaLen)) as { seq: number; docs: number; interned: string[]; idBytes: number; table: { slots: number } };
  let off = 16 + pad8(metaLen);
  const ids = v2.toString('utf8', off, off + meta.idBytes).split('\0').map((x) => x || null);
  off += pad8(meta.idBytes) + pad8(meta.table.slots * 4);
  const rest = v2.subarray(off, v2.length - 4); // columns + keyword image (same layout in both versions)
  assert.equal(rest.length >= pad8(kwLen), true);
  const m = Buffer.from(JSON.stringify({ seq: meta.seq, docs: meta.docs, ids, interned: meta.interned }), 'utf8');
  const head = Buffer.alloc(16);
  head.writeInt32LE(0x5249_5831, 0);
  head.writeInt32LE(1, 4);
  head.writeInt32LE(m.length, 8);
  head.writeInt32LE(kwLen, 12);
  const body = Buffer.concat([head, m, Buffer.alloc(pad8(m.length) - m.length), rest]);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(crc32(body), 0);
  return Buffer.concat([body, tail]);
}

/** The format 3 file (row-wise rows, the item map as JSON `ext`: what earlier versions wrote) with the rows of a format 4 file. */
export function toV3(v4: Buffer, D: number, given?: { ids: (string | null)[]; hashes: number[] }): Buffer {
  const pad4 = (n: number) => (n + 3) & ~3;
  const metaLen = v4.readInt32LE(16);
  const meta = JSON.parse(v4.toString('utf8', 20, 20 + metaLen)) as { embedderId: string; labels: string[]; counts: number[]; map: { docs: number; idBytes: number } };
  const mapAt = 20 + pad4(metaLen);
  const map = given ?? {
    hashes: Array.from({ length: meta.map.docs }, (_, d) => v4.readUInt32LE(mapAt + d * 4)),
    ids: v4.toString('utf8', mapAt + meta.map.docs * 4, mapAt + meta.map.docs * 4 + meta.map.idBytes).split('\0').map((x) => x || null),
  };
  let off = mapAt + meta.map.docs * 4 + pad4(meta.map.idBytes);
  const rows: Buffer[] = [];
  meta.counts.forEach((c, pi) => {
    for (let r = 0; r < c; r++) {
      const row = Buffer.alloc(12 + pad4(D));
      row.writeInt32LE(v4.readInt32LE(off + r * 4), 0);
      row.writeInt32LE(pi, 4);
      row.writeFloatLE(v4.readFloatLE(off + c * 4 + r * 4), 8);
      v4.copy(row, 12, off + c * 8 + r * D, off + c * 8 + (r + 1) * D);
      rows.push(row);
    }
    off += c * 8 + pad4(c * D);
  });
  const m = Buffer.from(JSON.stringify({ embedderId: meta.embedderId, labels: meta.labels, counts: meta.counts, ext: map }), 'utf8');
  const head = Buffer.alloc(20 + pad4(m.length));
  head.writeInt32LE(0x5645_4331, 0);
  head.writeInt32LE(3, 4);
  head.writeInt32LE(D, 8);
  head.writeInt32LE(rows.length, 12);
  head.writeInt32LE(m.length, 16);
  m.copy(head, 20);
  return Buffer.concat([head, ...rows]);
}

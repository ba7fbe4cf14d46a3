// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
// raw_blobs + raw_chunks: the raw record (R-WRITE-3). Each message is addressed by the sha256 of its
// bytes (the first 128 bits; stored once, `seen` counts repeats) and lives in a slot of a chunk compressed per flush with
// rawCodec's batch codec (~2.8× vs ~1.6× per message). A small flush (a short chat session) is merged
// with the newest chunk while that stays ≤ 32 KiB of text — written as a NEW chunk that the old chunk's
// rows move to, never appended in place, so a writer working from a stale read can duplicate bytes but
// never lose a message. Forgetting a message drops its row at once and rewrites its chunk without it
// (slot blanked, chunk re-compressed; a chunk with no live slot is deleted), so forgotten text really
// leaves the database. (Two forgets racing from stale reads can leave a forgotten slot's bytes until the
// chunk's next rewrite, which blanks every slot without a row.)
import { MemoryError } from '../../errors';
import { compressBatch, contentAddress, decompressBatch, encodeText } from '../../write/rawCodec';
import { newRowId } from './ledgerRepo';
import { Repo, SqlReader, badInput, checkTime, placeholders, slices, str } from './repoBase';

export interface RawBlob {
  hash: string;
  text: string;
  /** Codec of the chunk holding the message. */
  codec: string;
  rawBytes: number;
  seen: number;
  created: number;
  chunkId: string;
  index: number;
}

/** Hex characters of a content address: 128 bits (schema v4; the first half of what v1–v3 stored). */
export { CONTENT_ADDRESS_HEX as BLOB_HASH_HEX } from '../../write/rawCodec';

/** The content address of a raw message (rawCodec.contentAddress: the first 128 bits of its sha256, hex). */
export const blobHash = contentAddress;

const CHUNK_CODEC = 'batch-deflate-dict-v1';
// 32 KiB of message bytes per chunk = deflate's window (beyond it the ratio stops improving) and about
// one R-WRITE-3 flush (~8,000 tokens); reading one message never inflates more than that. A single
// larger flush still goes into as many chunks as it needs.
const CHUNK_MAX_RAW_BYTES = 32 * 1024;
// Decompressed chunks kept per open store: a conversation's messages sit in a few chunks, so 8 covers
// reading one conversation (expand, summary rebuild) without inflating the same chunk per message.
const CHUNK_CACHE_ENTRIES = 8;

/** Small LRU of decompressed chunks keyed by `${id}:${gen}` (a rewrite bumps gen, so stale entries never match). */
class ChunkCache {
  private readonly map = new Map<string, string[]>();
  get(key: string): string[] | undefined {
    const v = this.map.get(key);
    if (v) { this.map.delete(key); this.map.set(key, v); }
    return v;
  }
  set(key: string, v: string[]): void {
    this.map.delete(key);
    this.map.set(key, v);
    while (this.map.size > CHUNK_CACHE_ENTRIES) this.map.delete(this.map.keys().next().value!);
  }
  /** Drops every cached generation of a chunk (a forget must not leave its text in memory). */
  evict(chunkId: string): void {
    for (const k of [...this.map.keys()]) if (k.startsWith(`${chunkId}:`)) this.map.delete(k);
  }
}
// One cache per store reader: the read repo and every transaction's repo share it.
const chunkCaches = new WeakMap<SqlReader, ChunkCache>();

export class RawBlobsRepo extends Repo {
  // Within one transaction (reads see the committed database, not this batch): rows added or removed so
  // far and the chunk contents as this batch leaves them, so several puts/deletes in one tx compose.
  private readonly addedRows = new Map<string, { chunkId: string; index: number }>();
  private readonly goneRows = new Set<string>();
  private readonly pendingChunks = new Map<string, { texts: string[]; live: Set<number> }>();
  /** Chunks this transaction merged into a new one: old id → new id. */
  private readonly moved = new Map<string, string>();
  private lastChunk: string | undefined;
  private tailFull = false;

  private get cache(): ChunkCache {
    let c = chunkCaches.get(this.q);
    if (!c) { c = new ChunkCache(); chunkCaches.set(this.q, c); }
    return c;
  }

  /** Stores one message (a chunk of its own); a repeat only counts `seen`. Returns the hash. */
  put(text: string, at: number): string {
    return this.putMany([text], at)[0]!;
  }

  /**
   * Stores a flush's messages: new contents go into chunks compressed together (≤ 64 KiB of text each),
   * contents already stored (or repeated within `texts`) only count `seen`. Returns the hashes in order.
   */
  putMany(texts: readonly string[], at: number): string[] {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) throw badInput('raw text must be a string');
    checkTime('at', at);
    const hashes = texts.map(blobHash);
    const fresh: { hash: string; text: string; bytes: number }[] = [];
    const freshSet = new Set<string>();
    const repeats: string[] = [];
    const stored = this.storedOf(hashes);
    texts.forEach((text, i) => {
      const hash = hashes[i]!;
      if (freshSet.has(hash) || this.addedRows.has(hash) || (stored.has(hash) && !this.goneRows.has(hash))) repeats.push(hash);
      else { freshSet.add(hash); fresh.push({ hash, text, bytes: encodeText(text).length }); }
    });
    for (let i = 0; i < fresh.length; ) {
      // The newest chunk is the base when this group still fits beside its live messages.
      const base = i === 0 ? this.tailChunk() : undefined;
      const texts0 = base ? base.chunk.texts.map((t, k) => (base.chunk.live.has(k) ? t : '')) : [];
      let bytes = base ? base.bytes : 0;
      const group: typeof fresh = [];
      while (i < fresh.length && (bytes === 0 || bytes + fresh[i]!.bytes <= CHUNK_MAX_RAW_BYTES)) { bytes += fresh[i]!.bytes; group.push(fresh[i++]!); }
      if (base && group.length === 0) { i = 0; this.tailFull = true; continue; }
      const chunkId = newRowId(at);
      const all = [...texts0, ...group.map((g) => g.text)];
      this.write('INSERT INTO raw_chunks (id, data, codec, raw_bytes, messages, gen, created) VALUES (?, ?, ?, ?, ?, 0, ?)',
        [chunkId, new Uint8Array(compressBatch(all)), CHUNK_CODEC, bytes, all.length, at]);
      const live = new Set(base ? base.chunk.live : []);
      if (base) {
        // Move the base's rows (whatever rows it has when applied) and drop it once nothing points at it.
        this.write('UPDATE raw_blobs SET chunk_id = ? WHERE chunk_id = ?', [chunkId, base.id]);
        this.write('DELETE FROM raw_chunks WHERE id = ? AND NOT EXISTS (SELECT 1 FROM raw_blobs WHERE chunk_id = ?)', [base.id, base.id]);
        this.moved.set(base.id, chunkId);
        for (const [h, r] of this.addedRows) if (r.chunkId === base.id) this.addedRows.set(h, { chunkId, index: r.index });
        this.pendingChunks.delete(base.id);
        this.cache.evict(base.id);
      }
      group.forEach((g, k) => {
        const index = texts0.length + k;
        live.add(index);
        this.addedRows.set(g.hash, { chunkId, index });
        this.goneRows.delete(g.hash);
      });
      // A statement per 100 rows, not per message. ON CONFLICT: another window stored the same content meanwhile;
      // its row wins and this slot is orphaned (blanked at the chunk's next rewrite).
      for (const rows of slices(group, 100)) {
        this.write(`INSERT INTO raw_blobs (hash, chunk_id, idx, raw_bytes, seen, created) VALUES ${placeholders(rows.length, '(?, ?, ?, ?, 1, ?)')} ON CONFLICT(hash) DO UPDATE SET seen = seen + 1`,
          rows.flatMap((g) => [g.hash, chunkId, this.addedRows.get(g.hash)!.index, g.bytes, at]));
      }
      this.pendingChunks.set(chunkId, { texts: all, live });
      this.lastChunk = chunkId;
    }
    for (const hash of repeats) this.write('UPDATE raw_blobs SET seen = seen + 1 WHERE hash = ?', [hash]);
    return hashes;
  }

  /**
   * The newest chunk (this transaction's last one, else the last inserted: rowid order, since `created`
   * ties under a fixed clock) with its live bytes, unless full. Any chunk with room would be correct.
   */
  private tailChunk(): { id: string; chunk: { texts: string[]; live: Set<number> }; bytes: number } | undefined {
    if (this.tailFull) return undefined;
    const id = this.lastChunk ?? str(this.q.get('SELECT id FROM raw_chunks ORDER BY rowid DESC LIMIT 1')?.id);
    if (!id) return undefined;
    const chunk = this.pendingChunk(id);
    if (!chunk || chunk.live.size === 0) return undefined;
    let bytes = 0;
    for (const k of chunk.live) bytes += encodeText(chunk.texts[k] ?? '').length;
    if (bytes >= CHUNK_MAX_RAW_BYTES) { this.tailFull = true; return undefined; }
    return { id, chunk, bytes };
  }

  get(hash: string): RawBlob | undefined {
    const r = this.q.get('SELECT b.*, c.gen, c.codec FROM raw_blobs b JOIN raw_chunks c ON c.id = b.chunk_id WHERE b.hash = ?', [hash]);
    if (!r) return undefined;
    const chunkId = String(r.chunk_id);
    const index = Number(r.idx);
    const texts = this.chunkTexts(chunkId, Number(r.gen));
    if (!texts || index >= texts.length) throw new MemoryError('E_CORRUPT', 'raw record chunk is missing a message', { chunk: chunkId, index });
    return {
      hash, text: texts[index]!, codec: String(r.codec), rawBytes: Number(r.raw_bytes), seen: Number(r.seen), created: Number(r.created),
      chunkId, index,
    };
  }

  /**
   * The texts of these content addresses (those not stored are left out): one query per 500 addresses, each chunk
   * inflated once whatever order its rows come in — a flush reads a conversation's messages this way, not one by one.
   */
  textsOf(hashes: readonly string[]): Map<string, string> {
    const out = new Map<string, string>();
    const byChunk = new Map<string, { id: string; gen: number; slots: [string, number][] }>();
    for (const part of slices([...new Set(hashes)], 500)) {
      for (const r of this.q.all(`SELECT b.hash, b.chunk_id, b.idx, c.gen FROM raw_blobs b JOIN raw_chunks c ON c.id = b.chunk_id WHERE b.hash IN (${placeholders(part.length)})`, part)) {
        const key = `${String(r.chunk_id)}:${Number(r.gen)}`;
        let g = byChunk.get(key);
        if (!g) byChunk.set(key, (g = { id: String(r.chunk_id), gen: Number(r.gen), slots: [] }));
        g.slots.push([String(r.hash), Number(r.idx)]);
      }
    }
    for (const g of byChunk.values()) {
      const texts = this.chunkTexts(g.id, g.gen);
      for (const [hash, index] of g.slots) {
        if (!texts || index >= texts.length) throw new MemoryError('E_CORRUPT', 'raw record chunk is missing a message', { chunk: g.id, index });
        out.set(hash, texts[index]!);
      }
    }
    return out;
  }

  has(hash: string): boolean {
    return this.q.get('SELECT 1 AS x FROM raw_blobs WHERE hash = ?', [hash]) !== undefined;
  }

  /** Totals for the dashboard: distinct messages and their raw bytes vs the chunks' stored (compressed) bytes. */
  stats(): { blobs: number; rawBytes: number; storedBytes: number; seen: number; chunks: number } {
    // The totals the store keeps (store_totals, schema v2; triggers on raw_blobs and raw_chunks): no row is read.
    const t = new Map(this.q.all('SELECT name, value FROM store_totals').map((r) => [String(r.name), Number(r.value)]));
    return {
      blobs: t.get('raw_blobs') ?? 0, rawBytes: t.get('raw_blobs.raw_bytes') ?? 0, storedBytes: t.get('raw_chunks.bytes') ?? 0,
      seen: t.get('raw_blobs.seen') ?? 0, chunks: t.get('raw_chunks') ?? 0,
    };
  }

  /**
   * Forgets a message: its row goes, and its chunk is rewritten without it (or deleted when no message
   * in it is still live), in the same transaction.
   */
  delete(hash: string): void {
    const row = this.rowOf(hash);
    if (!row) return;
    this.write('DELETE FROM raw_blobs WHERE hash = ?', [hash]);
    this.addedRows.delete(hash);
    this.goneRows.add(hash);
    const chunk = this.pendingChunk(row.chunkId);
    this.cache.evict(row.chunkId);
    if (!chunk) return;
    chunk.live.delete(row.index);
    if (chunk.live.size === 0) {
      this.write('DELETE FROM raw_chunks WHERE id = ?', [row.chunkId]);
      this.pendingChunks.delete(row.chunkId);
      return;
    }
    chunk.texts = chunk.texts.map((t, i) => (chunk.live.has(i) ? t : ''));
    const rawBytes = chunk.texts.reduce((n, t) => n + encodeText(t).length, 0);
    this.write('UPDATE raw_chunks SET data = ?, raw_bytes = ?, gen = gen + 1 WHERE id = ?',
      [new Uint8Array(compressBatch(chunk.texts)), rawBytes, row.chunkId]);
  }

  /** Every chunk's decompressed slots (blanked ones included), for integrity checks and tests; return false to stop. */
  forEachChunk(cb: (chunk: { id: string; gen: number; texts: string[]; storedBytes: number }) => boolean | void): void {
    this.q.each('SELECT id, gen, data FROM raw_chunks ORDER BY created, id', [], (r) => {
      const data = r.data as Uint8Array;
      return cb({ id: String(r.id), gen: Number(r.gen), texts: decompressBatch(data), storedBytes: data.byteLength });
    });
  }

  /** Which of `hashes` the committed database holds (one query per 500, not one per message). */
  private storedOf(hashes: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const part of slices([...new Set(hashes)], 500)) {
      for (const r of this.q.all(`SELECT hash FROM raw_blobs WHERE hash IN (${placeholders(part.length)})`, part)) out.add(String(r.hash));
    }
    return out;
  }

  /** Where a message lives as this transaction sees it (its own puts and deletes included). */
  private rowOf(hash: string): { chunkId: string; index: number } | undefined {
    const added = this.addedRows.get(hash);
    if (added) return added;
    if (this.goneRows.has(hash)) return undefined;
    const r = this.q.get('SELECT chunk_id, idx FROM raw_blobs WHERE hash = ?', [hash]);
    if (!r) return undefined;
    let chunkId = String(r.chunk_id);
    for (let next = this.moved.get(chunkId); next; next = this.moved.get(chunkId)) chunkId = next;
    return { chunkId, index: Number(r.idx) };
  }

  private pendingChunk(chunkId: string): { texts: string[]; live: Set<number> } | undefined {
    let p = this.pendingChunks.get(chunkId);
    if (p) return p;
    const r = this.q.get('SELECT data FROM raw_chunks WHERE id = ?', [chunkId]);
    if (!r) return undefined;
    const texts = decompressBatch(r.data as Uint8Array);
    const live = new Set<number>();
    for (const x of this.q.all('SELECT hash, idx FROM raw_blobs WHERE chunk_id = ?', [chunkId])) {
      if (!this.goneRows.has(String(x.hash))) live.add(Number(x.idx));
    }
    for (const a of this.addedRows.values()) if (a.chunkId === chunkId) live.add(a.index);
    p = { texts, live };
    this.pendingChunks.set(chunkId, p);
    return p;
  }

  private chunkTexts(chunkId: string, gen: number): string[] | undefined {
    const key = `${chunkId}:${gen}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const r = this.q.get('SELECT data FROM raw_chunks WHERE id = ?', [chunkId]);
    if (!r) return undefined;
    const texts = decompressBatch(r.data as Uint8Array);
    this.cache.set(key, texts);
    return texts;
  }
}

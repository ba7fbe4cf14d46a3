// Item id → doc number for the recall index: an open-addressing hash table over one Int32Array of doc
// numbers (the ids themselves stay in the index's `ids` array; a slot matches when `idOf(doc) === id`).
// Why not a Map<string, number>: at 1M items building the Map cost ~1.1 s at every open; this table
// is saved in the index image and adopted as it is (a view), so an open builds nothing. Invariants:
// slot values are EMPTY, DELETED or a doc whose id hashes to a probe chain through that slot; at most
// half the slots are used (live + deleted), so probes stay short. The hash (FNV-1a over UTF-16 code
// units) is part of the image format: changing it means a new `TABLE_HASH` name.

export const TABLE_HASH = 'fnv1a32-linear';
const EMPTY = -1;
const DELETED = -2;
const MIN_SLOTS = 1024;

export class IdTable {
  private slots: Int32Array;
  private mask: number;
  /** Live entries. */
  size = 0;
  /** Live + deleted slots (what bounds the probe length). */
  private used = 0;

  /**
   * `idOf` names a doc's id; `is` (default: `idOf(doc) === id`) says whether a doc holds an id — the index passes
   * IdList.is, which compares bytes, so a probe decodes nothing.
   */
  constructor(
    private readonly idOf: (doc: number) => string | undefined, slots?: Int32Array, size = 0,
    private readonly is: (doc: number, id: string) => boolean = (doc, id) => idOf(doc) === id,
  ) {
    this.slots = slots ?? new Int32Array(MIN_SLOTS).fill(EMPTY);
    this.mask = this.slots.length - 1;
    this.size = size;
    this.used = size;
    if (slots) for (let i = 0; i < slots.length; i++) if (slots[i] === DELETED) this.used++;
  }

  /** Slots this many entries need (a power of two, at most half full). */
  static slotsFor(entries: number): number {
    let n = MIN_SLOTS;
    while (n < entries * 2) n *= 2;
    return n;
  }

  /**
   * A table over saved `slots` (from an image), after a structural check: a power-of-two length, every
   * live slot a doc number below `docs`, and exactly `live` of them. Null when the slots do not pass.
   * The table then reads ids through `idOf` (as the constructor's).
   */
  static adopt(slots: Int32Array, docs: number, live: number, idOf: (doc: number) => string | undefined, is?: (doc: number, id: string) => boolean): IdTable | null {
    if (slots.length < MIN_SLOTS || (slots.length & (slots.length - 1)) !== 0) return null;
    let n = 0;
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i]!;
      if (s >= 0) {
        // In range only (the image's CRC vouches for the rest; a lookup compares the id anyway).
        if (s >= docs) return null;
        n++;
      } else if (s !== EMPTY && s !== DELETED) {
        return null;
      }
    }
    return n === live && n * 2 <= slots.length ? new IdTable(idOf, slots, n, is) : null;
  }

  /** The slots as saved in an image (a view: copy before changing the table). */
  get raw(): Int32Array { return this.slots; }

  get(id: string): number | undefined {
    const slots = this.slots, mask = this.mask;
    for (let i = hashId(id) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === EMPTY) return undefined;
      if (s >= 0 && this.is(s, id)) return s;
    }
  }

  has(id: string): boolean { return this.get(id) !== undefined; }

  /** Maps `id` (whose doc's `idOf` must already return it) to `doc`. */
  set(id: string, doc: number): void {
    const slots = this.slots, mask = this.mask;
    let free = -1;
    for (let i = hashId(id) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === EMPTY) {
        if (free < 0) {
          free = i;
          this.used++;
        }
        break;
      }
      if (s === DELETED) {
        if (free < 0) free = i;
      } else if (this.is(s, id)) {
        slots[i] = doc;
        return;
      }
    }
    slots[free] = doc;
    this.size++;
    if (this.used * 2 > slots.length) this.rehash(IdTable.slotsFor(this.size + 1));
  }

  delete(id: string): boolean {
    const slots = this.slots, mask = this.mask;
    for (let i = hashId(id) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === EMPTY) return false;
      if (s >= 0 && this.is(s, id)) {
        slots[i] = DELETED;
        this.size--;
        return true;
      }
    }
  }

  clear(): void {
    this.slots = new Int32Array(MIN_SLOTS).fill(EMPTY);
    this.mask = this.slots.length - 1;
    this.size = 0;
    this.used = 0;
  }

  /** Rebuilds into `n` slots (drops the deleted ones); also detaches the table from an image's buffer. */
  rehash(n: number): void {
    const old = this.slots;
    this.slots = new Int32Array(n).fill(EMPTY);
    this.mask = n - 1;
    this.used = 0;
    for (let j = 0; j < old.length; j++) {
      const doc = old[j]!;
      if (doc < 0) continue;
      let i = hashId(this.idOf(doc)!) & this.mask;
      while (this.slots[i] !== EMPTY) i = (i + 1) & this.mask;
      this.slots[i] = doc;
      this.used++;
    }
  }
}

/** FNV-1a (32-bit) over the id's UTF-16 code units. */
export function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The index's ids by doc number ('' never an id: undefined = a free doc), kept encoded as UTF-8 and decoded one at a
 * time when asked for (search results; table probes compare bytes without decoding, `is`). Loaded from an image, the
 * ids stay the image's NUL-separated blob (`base`): at 1M items, splitting them into 1M strings cost ~0.2 s at open and
 * made every garbage collection dearer. Docs appended since (a new doc takes the next number) go to an append-only
 * byte arena (`tail`, with their offsets), so an import of 1M items holds ~30 MB of bytes rather than 1M strings in a
 * Map on V8's heap (~130 MB live, which V8 then let grow to about four times that in garbage between its full
 * collections; issue #16). A doc changed after it was written (freed or reused) lives in `changed`. `blob` is the
 * whole list's saved encoding while no doc changed, so a save or a vector file writes it as it is.
 */
export class IdList {
  private base: Buffer = Buffer.alloc(0);
  /** Per base doc the offset of its id in `base`; the id ends at the next offset − 1 (the NUL). */
  private starts = new Int32Array(1);
  private baseLen = 0;
  /** Ids appended after the base (doc baseLen + k): bytes `tail[tailStarts[k], tailStarts[k + 1])`, '' for a free doc. */
  private tail: Buffer = Buffer.alloc(0);
  private tailStarts = new Int32Array(1024);
  private tailLen = 0;
  private readonly changed = new Map<number, string | undefined>();
  // Where `locate` found a doc's bytes: `spanBuf[spanStart, spanEnd)` (no tuple per table probe).
  private spanBuf: Buffer = this.base;
  private spanStart = 0;
  private spanEnd = 0;
  length = 0;

  /** Adopts a NUL-separated blob of `n` ids ('' = none); false when it does not hold exactly `n`. */
  load(blob: Buffer, n: number): boolean {
    const starts = new Int32Array(n + 1);
    let d = 1;
    if (n > 0) {
      for (let i = 0; i < blob.length; i++) {
        if (blob[i] === 0) {
          if (d >= n) return false;
          starts[d++] = i + 1;
        }
      }
      if (d !== n) return false;
    }
    starts[n] = blob.length + 1;
    this.base = this.spanBuf = blob; // (the span never holds on to a replaced blob)
    this.starts = starts;
    this.baseLen = n;
    this.tail = Buffer.alloc(0);
    this.tailStarts = new Int32Array(1024);
    this.tailLen = 0;
    this.changed.clear();
    this.length = n;
    return true;
  }

  /** From plain ids (an image of version 1). */
  static of(ids: readonly (string | undefined)[]): IdList {
    const list = new IdList();
    ids.forEach((id, d) => list.set(d, id));
    return list;
  }

  get(doc: number): string | undefined {
    if (this.changed.size > 0) {
      const c = this.changed.get(doc);
      if (c !== undefined || this.changed.has(doc)) return c;
    }
    return this.locate(doc) ? this.spanBuf.toString('utf8', this.spanStart, this.spanEnd) : undefined;
  }

  /** Finds `doc`'s bytes in the base or the arena (its `changed` entry aside): false for a free doc or none. */
  private locate(doc: number): boolean {
    if (doc < 0) return false;
    if (doc < this.baseLen) {
      this.spanBuf = this.base;
      this.spanStart = this.starts[doc]!;
      this.spanEnd = this.starts[doc + 1]! - 1;
    } else {
      const k = doc - this.baseLen;
      if (k >= this.tailLen) return false;
      this.spanBuf = this.tail;
      this.spanStart = this.tailStarts[k]!;
      this.spanEnd = this.tailStarts[k + 1]!;
    }
    return this.spanEnd > this.spanStart;
  }

  /** Whether `doc` holds `id` — for table probes: the bytes are compared, nothing is decoded for an ASCII id. */
  is(doc: number, id: string): boolean {
    if (this.changed.size > 0 && this.changed.has(doc)) return this.changed.get(doc) === id;
    if (!this.locate(doc)) return false;
    const buf = this.spanBuf, s = this.spanStart, e = this.spanEnd;
    if (e - s !== id.length) return /[^\0-\x7f]/.test(id) && buf.toString('utf8', s, e) === id; // only a non-ASCII id differs in length
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      if (c >= 0x80) return buf.toString('utf8', s, e) === id;
      if (buf[s + i] !== c) return false;
    }
    return true;
  }

  /** Whether `doc` holds an id (no decoding). */
  has(doc: number): boolean {
    if (this.changed.size > 0 && this.changed.has(doc)) return this.changed.get(doc) !== undefined;
    return this.locate(doc);
  }

  /** The loaded blob's id for `doc`, whatever changed since (undefined past the blob or for a free doc). */
  baseGet(doc: number): string | undefined {
    return doc < this.baseLen && this.locate(doc) ? this.spanBuf.toString('utf8', this.spanStart, this.spanEnd) : undefined;
  }

  /** The blob `load` adopted (empty when none). */
  get baseBlob(): Buffer { return this.base; }

  /** Whether `doc`'s id is still the loaded blob's (unchanged since `load`). */
  isBase(doc: number): boolean {
    return doc < this.baseLen && (this.changed.size === 0 || !this.changed.has(doc));
  }

  set(doc: number, id: string | undefined): void {
    if (doc < this.length) {
      this.changed.set(doc, id);
      return;
    }
    while (this.length < doc) this.append(undefined); // a gap: free docs
    this.append(id);
  }

  private append(id: string | undefined): void {
    const at = this.tailStarts[this.tailLen]!;
    let end = at;
    if (id) {
      if (at + id.length * 3 > this.tail.length) {
        const next = Buffer.allocUnsafe(Math.max(4096, this.tail.length * 2, at + id.length * 3));
        this.tail.copy(next, 0, 0, at);
        this.tail = next;
      }
      end = at + this.tail.write(id, at, 'utf8');
    }
    if (this.tailLen + 2 > this.tailStarts.length) {
      const next = new Int32Array(this.tailStarts.length * 2);
      next.set(this.tailStarts);
      this.tailStarts = next;
    }
    this.tailStarts[++this.tailLen] = end;
    this.length++;
  }

  /** The whole list's encoding (NUL-separated UTF-8, '' for a free doc) while no doc changed since it was written, else null. */
  get blob(): Buffer | null {
    if (this.changed.size > 0) return null;
    if (this.tailLen === 0) return this.base;
    const tailBytes = this.tailStarts[this.tailLen]!;
    const out = Buffer.allocUnsafe(this.base.length + (this.baseLen > 0 ? 1 : 0) + tailBytes + this.tailLen - 1);
    let o = this.base.copy(out, 0);
    if (this.baseLen > 0) out[o++] = 0;
    for (let k = 0; k < this.tailLen; k++) {
      if (k > 0) out[o++] = 0;
      o += this.tail.copy(out, o, this.tailStarts[k]!, this.tailStarts[k + 1]!);
    }
    return out;
  }

  /** Every slot decoded (undefined for free docs): for saves and whole-index passes, not per query. */
  toArray(): (string | undefined)[] {
    const out: (string | undefined)[] = new Array(this.length);
    for (let d = 0; d < this.length; d++) out[d] = this.get(d);
    return out;
  }

  /** Bytes held: the blob and offsets, the appended ids' arena and offsets, plus the changed ids (UTF-16 + a Map entry each). */
  get approxBytes(): number {
    let n = this.base.byteLength + this.starts.byteLength + this.tail.byteLength + this.tailStarts.byteLength;
    for (const id of this.changed.values()) n += (id?.length ?? 0) * 2 + 48;
    return n;
  }
}

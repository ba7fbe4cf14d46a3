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

  constructor(private readonly idOf: (doc: number) => string | undefined, slots?: Int32Array, size = 0) {
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
   * live slot a doc number within `ids`, and exactly `live` of them. Null when the slots do not pass.
   * The table then reads ids through `idOf` (as the constructor's).
   */
  static adopt(slots: Int32Array, ids: readonly (string | undefined)[], live: number, idOf: (doc: number) => string | undefined): IdTable | null {
    if (slots.length < MIN_SLOTS || (slots.length & (slots.length - 1)) !== 0) return null;
    let n = 0;
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i]!;
      if (s >= 0) {
        // In range only (the image's CRC vouches for the rest; a lookup compares the id anyway).
        if (s >= ids.length) return null;
        n++;
      } else if (s !== EMPTY && s !== DELETED) {
        return null;
      }
    }
    return n === live && n * 2 <= slots.length ? new IdTable(idOf, slots, n) : null;
  }

  /** The slots as saved in an image (a view: copy before changing the table). */
  get raw(): Int32Array { return this.slots; }

  get(id: string): number | undefined {
    const slots = this.slots, mask = this.mask;
    for (let i = hashId(id) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === EMPTY) return undefined;
      if (s >= 0 && this.idOf(s) === id) return s;
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
      } else if (this.idOf(s) === id) {
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
      if (s >= 0 && this.idOf(s) === id) {
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

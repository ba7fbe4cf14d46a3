// docId → keyword index ordinal, dense below 2^22 (see the class).
/** Estimated per-entry cost of a Map / array slot in V8 (for `approxBytes`, not exact). */
export const MAP_ENTRY_BYTES = 48;

/**
 * docId → ordinal (-1 = none). Doc ids are small and dense in practice (the recall index reuses
 * freed ones), so ids below 2^22 live in a typed array — a Map lookup per context link was the
 * largest cost of an expanded search at 100k docs; larger ids fall back to a Map.
 */
export class DocOrdMap {
  private static readonly DENSE_LIMIT = 1 << 22; // 16 MB of Int32 at most
  private dense = new Int32Array(0);
  private sparse: Map<number, number> | null = null;
  size = 0;

  get approxBytes(): number {
    return this.dense.byteLength + (this.sparse?.size ?? 0) * MAP_ENTRY_BYTES;
  }

  get(docId: number): number {
    if (docId < this.dense.length) return this.dense[docId]!;
    if (docId < DocOrdMap.DENSE_LIMIT || !this.sparse) return -1;
    return this.sparse.get(docId) ?? -1;
  }

  has(docId: number): boolean {
    return this.get(docId) >= 0;
  }

  set(docId: number, ord: number): void {
    if (docId < DocOrdMap.DENSE_LIMIT) {
      if (docId >= this.dense.length) {
        const next = new Int32Array(Math.min(DocOrdMap.DENSE_LIMIT, Math.max(1024, docId + 1, this.dense.length * 2))).fill(-1);
        next.set(this.dense);
        this.dense = next;
      }
      if (this.dense[docId]! < 0) this.size++;
      this.dense[docId] = ord;
      return;
    }
    this.sparse ??= new Map();
    if (!this.sparse.has(docId)) this.size++;
    this.sparse.set(docId, ord);
  }

  delete(docId: number): void {
    if (docId < this.dense.length) {
      if (this.dense[docId]! >= 0) this.size--;
      this.dense[docId] = -1;
    } else if (this.sparse?.delete(docId)) {
      this.size--;
    }
  }
}

// The vector index's doc → slot map (vectorIndex.ts).
import { MAP_ENTRY_BYTES } from './keywordIndex';

/**
 * docId → slot (partition · 2^32 + row; -1 = none). Doc ids are dense in practice (the recall index reuses
 * freed ones), so ids below 2^22 live in a typed array — 1M Map entries cost ~0.2 s to build at load;
 * larger ids fall back to a Map.
 */
export class DocSlots {
  private static readonly DENSE_LIMIT = 1 << 22; // 32 MB of float64 at most
  private dense = new Float64Array(0);
  private sparse: Map<number, number> | null = null;
  size = 0;

  get approxBytes(): number { return this.dense.byteLength + (this.sparse?.size ?? 0) * MAP_ENTRY_BYTES; }
  has(docId: number): boolean { return this.get(docId) >= 0; }

  get(docId: number): number {
    if (docId < this.dense.length) return this.dense[docId]!;
    return this.sparse?.get(docId) ?? -1;
  }

  set(docId: number, slot: number): void {
    if (this.get(docId) < 0) this.size++;
    if (docId < DocSlots.DENSE_LIMIT) {
      if (docId >= this.dense.length) {
        const next = new Float64Array(Math.min(DocSlots.DENSE_LIMIT, Math.max(docId + 1, this.dense.length * 2, 1024))).fill(-1);
        next.set(this.dense);
        this.dense = next;
      }
      this.dense[docId] = slot;
    } else {
      (this.sparse ??= new Map()).set(docId, slot);
    }
  }

  /** Sets a new entry; false (and nothing changed) when `docId` has one already. */
  add(docId: number, slot: number): boolean {
    if (this.get(docId) >= 0) return false;
    this.set(docId, slot);
    return true;
  }

  delete(docId: number): boolean {
    if (this.get(docId) < 0) return false;
    this.size--;
    if (docId < this.dense.length) this.dense[docId] = -1;
    else this.sparse!.delete(docId);
    return true;
  }
}

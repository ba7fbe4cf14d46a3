// What a journal compacted away by a schema migration at open touched (ids per record), so that caches
// persisted at an earlier sequence (the recall index image) can still catch up instead of rebuilding.
// Kept in memory only, for the life of the open store (Store.touchedIdsSince falls back to it).
import { idsForIndex, recordJson, type RawRecord } from './journal';

export class MigratedJournal {
  private constructor(private readonly base: number, private readonly last: number, private readonly records: [number, string[]][]) {}

  /** From the journal's records up to `last` (the sequence it was compacted at); undefined when one is unreadable. */
  static of(base: number, last: number, records: readonly RawRecord[]): MigratedJournal | undefined {
    const out: [number, string[]][] = [];
    try {
      for (const r of records) if (r.seq <= last) out.push([r.seq, idsForIndex(JSON.parse(recordJson(r)) as { t: string[]; n?: string[] })]);
    } catch {
      return undefined;
    }
    return new MigratedJournal(base, last, out);
  }

  /**
   * Ids touched after `seq` (less index-neutral ones, see `idsForIndex`): this journal's records after it plus `later(last)` (the fresh journal's, after
   * the compaction). null when `seq` is outside it, a record is missing or `later` cannot answer.
   */
  touchedSince(seq: number, later: (seq: number) => string[] | null): string[] | null {
    if (seq < this.base || seq >= this.last) return null;
    const after = later(this.last);
    if (!after) return null;
    const ids = new Set<string>();
    let expect = seq + 1;
    for (const [s, t] of this.records) {
      if (s <= seq) continue;
      if (s !== expect) return null;
      expect++;
      for (const id of t) ids.add(id);
    }
    if (expect !== this.last + 1) return null;
    for (const id of after) ids.add(id);
    return [...ids];
  }
}

// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
// item_sources: derived item → the items it came from (trust/secret/project propagation, forget)
import { ID_PREFIX, PROJECT_NOTE_PREFIX, type ItemKind } from '../../types';
import { Repo, jsonRows, placeholders, slices } from './repoBase';

export class ItemSourcesRepo extends Repo {
  add(itemId: string, sourceIds: readonly string[]): void {
    this.addPairs(sourceIds.map((s) => [itemId, s] as const)); // a statement per 200 sources (a summary has up to 400)
  }
  /** `add` for many items at once: (item, source) pairs, 200 to a statement (a flush's facts and entities: mostly one source each). */
  addPairs(pairs: readonly (readonly [itemId: string, sourceId: string])[]): void {
    for (const part of slices(pairs, 200)) {
      this.write(`INSERT OR IGNORE INTO item_sources (item_id, source_id) VALUES ${placeholders(part.length, '(?, ?)')}`, part.flat(), ...new Set(part.map((p) => p[0])));
    }
  }
  sourcesOf(itemId: string): string[] {
    return this.q.all('SELECT source_id FROM item_sources WHERE item_id = ? ORDER BY source_id', [itemId]).map((r) => String(r.source_id));
  }
  /**
   * Per item of these kinds that has sources: how many, and the newest existing source's `created` (salience
   * input, R-MAINT-2), as the store keeps them (item_source_stats, schema v2; kept by triggers on item_sources
   * and items). The kind is the id's prefix (ItemsRepo.put enforces it), so no item row is read.
   */
  sourceStats(kinds: readonly ItemKind[]): Map<string, { count: number; lastCreated: number | null }> {
    const out = new Map<string, { count: number; lastCreated: number | null }>();
    if (!kinds.length) return out;
    const prefixes = [...new Set(kinds.flatMap((k) => (k === 'note' ? [ID_PREFIX.note, PROJECT_NOTE_PREFIX] : [ID_PREFIX[k]])))];
    const r = this.q.get(
      `SELECT json_group_array(json_array(item_id, sources, last_source_at)) AS j FROM item_source_stats
       WHERE substr(item_id, 1, 3) IN (${prefixes.map(() => '?').join(', ')})`, prefixes);
    for (const [id, n, last] of jsonRows<[string, number, number | null]>(r?.j)) out.set(id, { count: Number(n), lastCreated: last === null ? null : Number(last) });
    return out;
  }
  derivedFrom(sourceId: string): string[] {
    return this.q.all('SELECT item_id FROM item_sources WHERE source_id = ? ORDER BY item_id', [sourceId]).map((r) => String(r.item_id));
  }
  remove(itemId: string, sourceId?: string): void {
    if (sourceId === undefined) this.write('DELETE FROM item_sources WHERE item_id = ?', [itemId], itemId);
    else this.write('DELETE FROM item_sources WHERE item_id = ? AND source_id = ?', [itemId, sourceId], itemId);
  }
}

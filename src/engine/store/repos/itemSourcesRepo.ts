// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
// item_sources: derived item → the items it came from (trust/secret/project propagation, forget)
import { type ItemKind } from '../../types';
import { Repo, jsonRows } from './repoBase';

export class ItemSourcesRepo extends Repo {
  add(itemId: string, sourceIds: readonly string[]): void {
    for (const s of sourceIds) this.write('INSERT OR IGNORE INTO item_sources (item_id, source_id) VALUES (?, ?)', [itemId, s], itemId);
  }
  sourcesOf(itemId: string): string[] {
    return this.q.all('SELECT source_id FROM item_sources WHERE item_id = ? ORDER BY source_id', [itemId]).map((r) => String(r.source_id));
  }
  /**
   * Per item of these kinds that has sources: how many, and the newest source's `created` (salience input,
   * R-MAINT-2). One grouped query, not one per item.
   */
  sourceStats(kinds: readonly ItemKind[]): Map<string, { count: number; lastCreated: number | null }> {
    const out = new Map<string, { count: number; lastCreated: number | null }>();
    if (!kinds.length) return out;
    const r = this.q.get(
      `SELECT json_group_array(json_array(id, n, last)) AS j FROM (
         SELECT s.item_id AS id, count(*) AS n, max(src.created) AS last FROM item_sources s
         JOIN items it ON it.id = s.item_id LEFT JOIN items src ON src.id = s.source_id
         WHERE it.kind IN (${kinds.map(() => '?').join(', ')}) GROUP BY s.item_id)`, [...kinds]);
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

// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
import { Repo, num } from './repoBase';

export interface VectorStateRow {
  embedder: string;
  itemId: string;
  done: boolean;
  slot: number | null;
  updated: number | null;
}

export class VectorStateRepo extends Repo {
  mark(embedder: string, itemId: string, done: boolean, slot: number | null = null, updated: number | null = null): void {
    this.write('INSERT OR REPLACE INTO vector_state (embedder, item_id, done, slot, updated) VALUES (?, ?, ?, ?, ?)',
      [embedder, itemId, done ? 1 : 0, slot, updated]);
  }
  get(embedder: string, itemId: string): VectorStateRow | undefined {
    const r = this.q.get('SELECT * FROM vector_state WHERE embedder = ? AND item_id = ?', [embedder, itemId]);
    return r ? { embedder, itemId, done: r.done === 1, slot: num(r.slot), updated: num(r.updated) } : undefined;
  }
  /** Recallable-candidate items (not archived) that this embedder has not done yet. */
  pending(embedder: string, limit = 1000): string[] {
    return this.q.all(
      `SELECT i.id FROM items i LEFT JOIN vector_state v ON v.item_id = i.id AND v.embedder = ?
       WHERE i.archived_at IS NULL AND (v.item_id IS NULL OR v.done = 0) ORDER BY i.created, i.id LIMIT ?`, [embedder, limit],
    ).map((r) => String(r.id));
  }
  count(embedder: string): number {
    return Number(this.q.get('SELECT count(*) AS n FROM vector_state WHERE embedder = ? AND done = 1', [embedder])?.n ?? 0);
  }
  remove(embedder: string, itemId: string): void {
    this.write('DELETE FROM vector_state WHERE embedder = ? AND item_id = ?', [embedder, itemId]);
  }
  clear(embedder: string): void {
    this.write('DELETE FROM vector_state WHERE embedder = ?', [embedder]);
  }
}

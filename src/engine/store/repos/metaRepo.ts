// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
import { Repo, badInput } from './repoBase';

/** Keys the store itself owns; repositories refuse to write them. */
export const RESERVED_META = new Set(['schema_version', 'snapshot_seq']);

export class MetaRepo extends Repo {
  get(key: string): string | undefined {
    const v = this.q.get('SELECT value FROM meta WHERE key = ?', [key])?.value;
    return v === null || v === undefined ? undefined : String(v);
  }
  set(key: string, value: string): void {
    if (RESERVED_META.has(key)) throw badInput(`meta key ${key} belongs to the store`);
    this.write('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]);
  }
  delete(key: string): void {
    if (RESERVED_META.has(key)) throw badInput(`meta key ${key} belongs to the store`);
    this.write('DELETE FROM meta WHERE key = ?', [key]);
  }
}

// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
// counters, vector_state, meta
import { Repo, badInput } from './repoBase';

export class CountersRepo extends Repo {
  add(name: string, by = 1): void {
    if (!Number.isInteger(by)) throw badInput('counter increments are integers');
    this.write('INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value', [name, by]);
  }
  set(name: string, value: number): void {
    if (!Number.isInteger(value)) throw badInput('counter values are integers');
    this.write('INSERT OR REPLACE INTO counters (name, value) VALUES (?, ?)', [name, value]);
  }
  get(name: string): number {
    return Number(this.q.get('SELECT value FROM counters WHERE name = ?', [name])?.value ?? 0);
  }
  /** All counters whose name starts with `prefix` (e.g. 'saveFilter.'). */
  all(prefix = ''): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.q.all("SELECT name, value FROM counters WHERE substr(name, 1, ?) = ? ORDER BY name", [prefix.length, prefix])) out[String(r.name)] = Number(r.value);
    return out;
  }
}

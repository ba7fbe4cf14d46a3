// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
import { newRowId } from './ledgerRepo';
import { Repo, checkTime, json, str } from './repoBase';

export interface PurgeRow {
  id: string;
  at: number;
  action: string;
  ref: string | null;
  record: Record<string, unknown>;
}

export class PurgeLogRepo extends Repo {
  add(r: { id?: string; at: number; action: string; ref?: string | null; record: Record<string, unknown> }): string {
    checkTime('at', r.at);
    const id = r.id ?? newRowId(r.at);
    this.write('INSERT OR REPLACE INTO purge_log (id, at, action, ref, record) VALUES (?, ?, ?, ?, ?)',
      [id, r.at, r.action, r.ref ?? null, JSON.stringify(r.record)]);
    return id;
  }
  list(ref?: string): PurgeRow[] {
    const rows = ref === undefined ? this.q.all('SELECT * FROM purge_log ORDER BY at, id') : this.q.all('SELECT * FROM purge_log WHERE ref = ? ORDER BY at, id', [ref]);
    return rows.map((r) => ({ id: String(r.id), at: Number(r.at), action: String(r.action), ref: str(r.ref), record: json(r.record, {}) }));
  }
}

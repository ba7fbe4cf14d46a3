// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
import { newRowId } from './ledgerRepo';
import { Repo, SqlParam, checkTime, json, str } from './repoBase';

export interface AuditRow {
  id: string;
  at: number;
  action: string;
  actor: string | null;
  itemId: string | null;
  detail: Record<string, unknown>;
}

export class AuditRepo extends Repo {
  add(r: { id?: string; at: number; action: string; actor?: string | null; itemId?: string | null; detail?: Record<string, unknown> }): string {
    checkTime('at', r.at);
    const id = r.id ?? newRowId(r.at);
    this.write('INSERT OR REPLACE INTO audit_log (id, at, action, actor, item_id, detail) VALUES (?, ?, ?, ?, ?, ?)',
      [id, r.at, r.action, r.actor ?? null, r.itemId ?? null, JSON.stringify(r.detail ?? {})]);
    return id;
  }
  list(opts: { since?: number; action?: string; limit?: number } = {}): AuditRow[] {
    const w: string[] = [];
    const p: SqlParam[] = [];
    if (opts.since !== undefined) { w.push('at >= ?'); p.push(opts.since); }
    if (opts.action !== undefined) { w.push('action = ?'); p.push(opts.action); }
    let sql = `SELECT * FROM audit_log${w.length ? ` WHERE ${w.join(' AND ')}` : ''} ORDER BY at, id`;
    if (opts.limit !== undefined) { sql += ' LIMIT ?'; p.push(opts.limit); }
    return this.q.all(sql, p).map((r) => ({
      id: String(r.id), at: Number(r.at), action: String(r.action), actor: str(r.actor), itemId: str(r.item_id), detail: json(r.detail, {}),
    }));
  }
}

// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
// quarantines (SPEC §7)
import { type Trust } from '../../types';
import { Repo, Row, checkTime, json, num, str } from './repoBase';

export interface Quarantine {
  id: string;
  created: number;
  provider: string | null;
  model: string | null;
  rangeFrom: number | null;
  rangeTo: number | null;
  reason: string | null;
  status: 'active' | 'released';
  releasedAt: number | null;
  counts: Record<string, number>;
  detail: Record<string, unknown>;
}

export interface QuarantineRow {
  quarantineId: string;
  itemId: string;
  prevTrust: Trust | null;
  /** Vault paths of a moved note: where it was and where it went. */
  noteFrom: string | null;
  noteTo: string | null;
}

export class QuarantinesRepo extends Repo {
  put(q: Omit<Quarantine, 'status' | 'releasedAt'> & Partial<Pick<Quarantine, 'status' | 'releasedAt'>>): void {
    checkTime('created', q.created);
    this.write(
      'INSERT OR REPLACE INTO quarantines (id, created, provider, model, range_from, range_to, reason, status, released_at, counts, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [q.id, q.created, q.provider ?? null, q.model ?? null, q.rangeFrom ?? null, q.rangeTo ?? null, q.reason ?? null, q.status ?? 'active',
        q.releasedAt ?? null, JSON.stringify(q.counts ?? {}), JSON.stringify(q.detail ?? {})],
    );
  }
  get(id: string): Quarantine | undefined {
    const r = this.q.get('SELECT * FROM quarantines WHERE id = ?', [id]);
    return r ? toQuarantine(r) : undefined;
  }
  list(): Quarantine[] {
    return this.q.all('SELECT * FROM quarantines ORDER BY created, id').map(toQuarantine);
  }
  markReleased(id: string, at: number): void {
    checkTime('at', at);
    this.write("UPDATE quarantines SET status = 'released', released_at = ? WHERE id = ?", [at, id]);
  }
  addRows(rows: readonly QuarantineRow[]): void {
    for (const r of rows) {
      this.write('INSERT OR REPLACE INTO quarantine_rows (quarantine_id, item_id, prev_trust, note_from, note_to) VALUES (?, ?, ?, ?, ?)',
        [r.quarantineId, r.itemId, r.prevTrust, r.noteFrom, r.noteTo]);
    }
  }
  rows(quarantineId: string): QuarantineRow[] {
    return this.q.all('SELECT * FROM quarantine_rows WHERE quarantine_id = ? ORDER BY item_id', [quarantineId]).map((r) => ({
      quarantineId: String(r.quarantine_id), itemId: String(r.item_id), prevTrust: str(r.prev_trust) as Trust | null,
      noteFrom: str(r.note_from), noteTo: str(r.note_to),
    }));
  }
  /** Quarantine ids holding this item (overlapping quarantines release independently). */
  holding(itemId: string): string[] {
    return this.q.all('SELECT quarantine_id FROM quarantine_rows WHERE item_id = ? ORDER BY quarantine_id', [itemId]).map((r) => String(r.quarantine_id));
  }
}
const toQuarantine = (r: Row): Quarantine => ({
  id: String(r.id), created: Number(r.created), provider: str(r.provider), model: str(r.model), rangeFrom: num(r.range_from),
  rangeTo: num(r.range_to), reason: str(r.reason), status: r.status === 'released' ? 'released' : 'active', releasedAt: num(r.released_at),
  counts: json(r.counts, {}), detail: json(r.detail, {}),
});

// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
// capture ledger, audit log, purge log: append-only records with JS-generated ids
import * as crypto from 'node:crypto';
import { Repo, SqlParam, checkTime, json, str } from './repoBase';

// Random bytes for row ids, drawn 4 KiB at a time (one crypto call per 1,024 ids, not one per id: an import makes
// two ids per message). The same generator as before, read in larger pieces.
const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let randomAt = 0;

/** A sortable, unique row id: time (base36 ms) + 8 random hex digits. */
export function newRowId(at: number): string {
  if (randomAt + 4 > randomPool.length) {
    randomPool = crypto.randomBytes(RANDOM_POOL_BYTES);
    randomAt = 0;
  }
  const r = randomPool.toString('hex', randomAt, randomAt + 4);
  randomAt += 4;
  return `${Math.floor(at).toString(36).padStart(9, '0')}-${r}`;
}

export interface LedgerRow {
  id: string;
  at: number;
  conversation: string | null;
  /** A skip reason (too_short, cap_reached, …) or 'extracted'. */
  outcome: string;
  kinds: string[];
  provider: string | null;
  model: string | null;
  entryPath: string | null;
  itemIds: string[];
  detail: Record<string, unknown>;
}

export class LedgerRepo extends Repo {
  add(r: Omit<LedgerRow, 'id' | 'kinds' | 'itemIds' | 'detail' | 'provider' | 'model' | 'entryPath' | 'conversation'> & Partial<LedgerRow>): string {
    checkTime('at', r.at);
    const id = r.id ?? newRowId(r.at);
    this.write(
      'INSERT OR REPLACE INTO capture_ledger (id, at, conversation, outcome, kinds, provider, model, entry_path, item_ids, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [id, r.at, r.conversation ?? null, r.outcome, JSON.stringify(r.kinds ?? []), r.provider ?? null, r.model ?? null, r.entryPath ?? null,
        JSON.stringify(r.itemIds ?? []), JSON.stringify(r.detail ?? {})],
    );
    return id;
  }
  list(opts: { since?: number; conversation?: string; limit?: number } = {}): LedgerRow[] {
    const w: string[] = [];
    const p: SqlParam[] = [];
    if (opts.since !== undefined) { w.push('at >= ?'); p.push(opts.since); }
    if (opts.conversation !== undefined) { w.push('conversation = ?'); p.push(opts.conversation); }
    let sql = `SELECT * FROM capture_ledger${w.length ? ` WHERE ${w.join(' AND ')}` : ''} ORDER BY at, id`;
    if (opts.limit !== undefined) { sql += ' LIMIT ?'; p.push(opts.limit); }
    return this.q.all(sql, p).map((r) => ({
      id: String(r.id), at: Number(r.at), conversation: str(r.conversation), outcome: String(r.outcome), kinds: json(r.kinds, []),
      provider: str(r.provider), model: str(r.model), entryPath: str(r.entry_path), itemIds: json(r.item_ids, []), detail: json(r.detail, {}),
    }));
  }
}

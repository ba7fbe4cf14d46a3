// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
// links: wikilinks (target text as written) and their resolved item ids, for backlinks
import { Repo, Row, badInput, jsonRows, str } from './repoBase';

export interface Link {
  fromId: string;
  target: string;
  toId: string | null;
}

export class LinksRepo extends Repo {
  /** Replaces every outgoing link of `fromId`. */
  set(fromId: string, links: readonly { target: string; toId?: string | null }[]): void {
    this.write('DELETE FROM links WHERE from_id = ?', [fromId], fromId);
    for (const l of links) this.write('INSERT OR REPLACE INTO links (from_id, target, to_id) VALUES (?, ?, ?)', [fromId, l.target, l.toId ?? null]);
  }
  from(fromId: string): Link[] {
    return this.q.all('SELECT * FROM links WHERE from_id = ? ORDER BY target', [fromId]).map(toLink);
  }
  /** Every link whose source id starts with `idPrefix` (an ASCII id prefix such as 'vt:'; '' = all), by source then
   *  target: one query for the whole graph. */
  allFrom(idPrefix: string): Link[] {
    // A range on the primary key (from_id, target) rather than LIKE, which SQLite would not index here; one JSON
    // row built inside SQLite rather than a row object per link through sql.js.
    if (!/^[\x21-\x7e]*$/.test(idPrefix)) throw badInput('link id prefix must be printable ASCII');
    const range = idPrefix ? 'WHERE from_id >= ? AND from_id < ?' : '';
    const end = idPrefix.slice(0, -1) + String.fromCharCode(idPrefix.charCodeAt(idPrefix.length - 1) + 1);
    const r = this.q.get(
      `SELECT json_group_array(json_array(from_id, target, to_id)) AS j
       FROM (SELECT from_id, target, to_id FROM links ${range} ORDER BY from_id, target)`, idPrefix ? [idPrefix, end] : []);
    return jsonRows<[string, string, string | null]>(r?.j).map(([fromId, target, toId]) => ({ fromId, target, toId }));
  }
  /** Points one link (`fromId` → `target` as written) at `toId`, or unresolves it with null. The source item is not
   *  reported as changed (its text is the same; re-indexing it for recall would be wasted work). */
  setTo(fromId: string, target: string, toId: string | null): void {
    this.write('UPDATE links SET to_id = ? WHERE from_id = ? AND target = ?', [toId, fromId, target]);
  }
  backlinks(toId: string): Link[] {
    return this.q.all('SELECT * FROM links WHERE to_id = ? ORDER BY from_id', [toId]).map(toLink);
  }
  unresolved(): Link[] {
    return this.q.all('SELECT * FROM links WHERE to_id IS NULL ORDER BY from_id, target').map(toLink);
  }
  /** Points every link written as `target` at `toId` (or unresolves them with null). */
  resolve(target: string, toId: string | null): void {
    this.write('UPDATE links SET to_id = ? WHERE target = ?', [toId, target]);
  }
}
const toLink = (r: Row): Link => ({ fromId: String(r.from_id), target: String(r.target), toId: str(r.to_id) });

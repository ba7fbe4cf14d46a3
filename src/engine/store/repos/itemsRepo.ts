// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
// items
import { ID_PREFIX, kindOfId, type ItemKind, type Trust } from '../../types';
import { COL_BY_PROP, colsOf, INDEX_COLS, ITEM_COLS, ITEM_DEFAULTS, ITEM_INSERT, rowToItem, toParam, type FileStamp, type IndexRow, type Item, type ItemInput, type ItemPatch } from './itemRow';
import { Repo, Row, SqlParam, badInput, checkTime, jsonRows, num, placeholders, slices } from './repoBase';

export type { FileStamp, IndexRow, Item, ItemInput, ItemPatch } from './itemRow';


export interface ItemFilter {
  kind?: ItemKind | ItemKind[];
  project?: string | null;
  projectType?: string | null;
  conversation?: string;
  trust?: Trust | Trust[];
  provider?: string;
  /** created >= since (ms) */
  since?: number;
  /** created < until (ms) */
  until?: number;
  /** Current, not archived, not invalidated, not quarantined, not secret, not expired at `now`. */
  recallable?: boolean;
  /** Dashboard listing (read-only): leave out quarantined items, and secret ones unless `withSecrets`. */
  shown?: { withSecrets: boolean };
  /** true: only archived items; false: only items not archived. */
  archived?: boolean;
  now?: number;
  /** Default order: created ascending, then id. */
  order?: 'created' | 'createdDesc' | 'id';
  limit?: number;
  offset?: number;
}

function whereOf(f: ItemFilter, ordered = true): { where: string; params: SqlParam[] } {
  const w: string[] = [];
  const p: SqlParam[] = [];
  const inList = (col: string, v: string | string[]) => {
    const list = Array.isArray(v) ? v : [v];
    w.push(`${col} IN (${list.map(() => '?').join(', ')})`);
    p.push(...list);
  };
  if (f.kind !== undefined) inList('kind', f.kind);
  if (f.trust !== undefined) inList('trust', f.trust);
  if (f.project === null) w.push('project IS NULL');
  else if (f.project !== undefined) { w.push('project = ?'); p.push(f.project); }
  if (f.projectType === null) w.push('project_type IS NULL');
  else if (f.projectType !== undefined) { w.push('project_type = ?'); p.push(f.projectType); }
  if (f.conversation !== undefined) { w.push('conversation = ?'); p.push(f.conversation); }
  if (f.provider !== undefined) { w.push('provider = ?'); p.push(f.provider); }
  if (f.since !== undefined) { w.push('created >= ?'); p.push(f.since); }
  if (f.until !== undefined) { w.push('created < ?'); p.push(f.until); }
  if (f.shown) w.push(f.shown.withSecrets ? "trust <> 'quarantined'" : "trust <> 'quarantined' AND secret = 0");
  if (f.archived !== undefined) w.push(f.archived ? 'archived_at IS NOT NULL' : 'archived_at IS NULL');
  if (f.recallable) {
    w.push("archived_at IS NULL AND invalidated_at IS NULL AND trust <> 'quarantined' AND secret = 0");
    if (f.now !== undefined) { w.push('(expires_at IS NULL OR expires_at > ?)'); p.push(f.now); }
  }
  let sql = w.length ? ` WHERE ${w.join(' AND ')}` : '';
  if (!ordered) return { where: sql, params: p };
  sql += f.order === 'id' ? ' ORDER BY id' : f.order === 'createdDesc' ? ' ORDER BY created DESC, id DESC' : ' ORDER BY created, id';
  if (f.limit !== undefined) { sql += ' LIMIT ?'; p.push(f.limit); }
  if (f.offset !== undefined) { sql += (f.limit === undefined ? ' LIMIT -1' : '') + ' OFFSET ?'; p.push(f.offset); }
  return { where: sql, params: p };
}

/**
 * Which rows ItemsRepo.scoreRows may leave out because they cannot be near a review threshold (built by the
 * review queue from its thresholds; see reviewBounds in maintain/consolidate.ts for why each bound is safe).
 * Only episodic items (fact, summary, entity) are read with bounds.
 * A row is kept when: it is an invalidated fact; or its stored salience is within `margin` of `promote` or
 * `demote`; or it has no stored salience and is pinned, or may be near promotion (a `promotable` kind, last
 * active at or after `now − promoteMaxAgeMs[kind]`, and an upper bound of its undecayed score ≥ `promoteFloor`),
 * or may be near demotion (a lower bound of its live score ≤ `demoteCeil`).
 */
export interface ReviewBounds {
  now: number;
  promote: number;
  demote: number;
  margin: number;
  promotable: ItemKind[];
  promoteFloor: number;
  demoteCeil: number;
  /** Per episodic kind: its recency half-life (ms) and the oldest last activity (ms before now) a promotion needs. */
  halfLifeMs: Partial<Record<ItemKind, number>>;
  promoteMaxAgeMs: Partial<Record<ItemKind, number>>;
}

/** A page of ItemsRepo.scoreRows: rows after (created, id), at most `limit` (one kind at a time reads an index range). */
export interface ScorePage {
  after?: { created: number; id: string };
  limit: number;
}

/** One row of ItemsRepo.scoreRows. */
export interface ScoreRow {
  id: string;
  kind: ItemKind;
  created: number;
  lastAccessed: number | null;
  accessCount: number;
  importance: number | null;
  pinned: boolean;
  salience: number | null;
  invalidatedAt: number | null;
  mentions: number | undefined;
  supersededBy: string | null;
  /** item_sources rows of the item (0 without), and the newest existing source's `created` (kept by the store). */
  sources: number;
  lastSourceAt: number | null;
}

/** One group of ItemsRepo.overviewGroups. */
export interface OverviewGroup {
  kind: ItemKind;
  state: 'quarantined' | 'secret' | 'archived' | 'shown';
  source: string;
  bin: number | null;
  n: number;
  invalidated: number;
  bySalience: number;
  byImportance: number;
  scored: number;
  min: number | null;
  max: number | null;
  sum: number;
  promote: number;
  demote: number;
}

const INDEX_SELECT = INDEX_COLS.map((c) => c[1]).join(', ');

export class ItemsRepo extends Repo {
  get(id: string): Item | undefined {
    const r = this.q.get('SELECT * FROM items WHERE id = ?', [id]);
    return r ? rowToItem(r) : undefined;
  }

  /** Items in the order of `ids`; missing ids are left out. */
  getMany(ids: readonly string[]): Item[] {
    return this.readMany(ids, '*', (r) => rowToItem(r));
  }

  /** `getMany` with only the recall index's columns (IndexRow). */
  indexRows(ids: readonly string[]): IndexRow[] {
    return this.readMany(ids, INDEX_SELECT, (r) => rowToItem(r, INDEX_COLS));
  }

  /** `getMany` with only the properties `props` (a constant list holding 'id'): a flush's sources, the entities it mentions. */
  pick<K extends keyof Item>(ids: readonly string[], props: readonly ('id' | K)[]): Pick<Item, 'id' | K>[] {
    const cols = colsOf(props);
    return this.readMany(ids, cols.map((c) => c[1]).join(', '), (r) => rowToItem(r, cols) as unknown as Pick<Item, 'id' | K>);
  }

  /** Every item's IndexRow, as `forEach({})` streams them (a rebuild of the recall index). */
  forEachIndexRow(cb: (row: IndexRow) => void): void {
    this.q.each(`SELECT ${INDEX_SELECT} FROM items ORDER BY created, id`, [], (r) => { cb(rowToItem(r, INDEX_COLS)); });
  }

  private readMany<T extends { id: string }>(ids: readonly string[], cols: string, map: (r: Row) => T): T[] {
    const found = new Map<string, T>();
    for (const part of slices(ids, 500)) {
      for (const r of this.q.all(`SELECT ${cols} FROM items WHERE id IN (${placeholders(part.length)})`, part)) {
        const it = map(r);
        found.set(it.id, it);
      }
    }
    return ids.map((id) => found.get(id)).filter((x): x is T => x !== undefined);
  }

  /** Whether an item other than `exceptId` points at raw-record message `blobHash` (the items_blob index: no scan). */
  blobSharedWith(blobHash: string, exceptId: string): boolean {
    return this.q.get('SELECT 1 AS x FROM items WHERE blob_hash = ? AND id <> ? LIMIT 1', [blobHash, exceptId]) !== undefined;
  }

  has(id: string): boolean {
    return this.q.get('SELECT 1 AS x FROM items WHERE id = ?', [id]) !== undefined;
  }

  /** How many of `ids` (distinct) are stored (primary-key look-ups; no row is read). */
  countIds(ids: readonly string[]): number {
    let n = 0;
    for (const part of slices([...new Set(ids)], 500)) n += Number(this.q.get(`SELECT count(*) AS n FROM items WHERE id IN (${placeholders(part.length)})`, part)?.n ?? 0);
    return n;
  }

  list(filter: ItemFilter = {}): Item[] {
    const { where, params } = whereOf(filter);
    return this.q.all(`SELECT * FROM items${where}`, params).map((r) => rowToItem(r));
  }

  /** Streams matching items without building an array (index building); return false to stop. */
  forEach(filter: ItemFilter, cb: (item: Item) => boolean | void): void {
    const { where, params } = whereOf(filter);
    this.q.each(`SELECT * FROM items${where}`, params, (r) => cb(rowToItem(r)));
  }

  count(filter: Omit<ItemFilter, 'order' | 'limit' | 'offset'> = {}): number {
    const { where, params } = whereOf(filter, false);
    // Every item: the kept counts (item_counts) hold it without reading the items.
    if (!where) return Number(this.q.get('SELECT total(n) AS n FROM item_counts')?.n ?? 0);
    return Number(this.q.get(`SELECT count(*) AS n FROM items${where}`, params)?.n ?? 0);
  }

  /**
   * The dashboard overview's aggregates, read from the counts the store keeps (item_counts, schema v2: one
   * row per combination of the columns below, kept by triggers; no item row is read): items of `kinds`
   * grouped by kind, visibility state (quarantined; secret = hidden unless `withSecrets`; archived; shown),
   * source type (NULL as 'unknown') and score bin (score = stored salience, else importance; `bins` equal
   * bins over 0–1, values outside in the end bins, NULL when unscored), each group with its counts:
   * invalidated, scored by salience / by importance, min / max / sum of the score, and how many (not
   * invalidated) are ≥ `promote` and unpinned < `demote`. Expiry depends on the time: see `countAlive`.
   */
  overviewGroups(kinds: ItemKind[], opts: { withSecrets: boolean; bins: number; promote: number; demote: number }): OverviewGroup[] {
    const b = opts.bins;
    return this.q.all(
      `SELECT kind, state, source, bin, SUM(n) AS n, SUM(n * invalidated) AS invalidated, SUM(n * by_salience) AS bySalience,
         SUM(CASE WHEN scored = 1 AND by_salience = 0 THEN n ELSE 0 END) AS byImportance, SUM(n * scored) AS scored,
         min(CASE WHEN scored = 1 THEN v END) AS lo, max(CASE WHEN scored = 1 THEN v END) AS hi, total(CASE WHEN scored = 1 THEN n * v END) AS sum,
         SUM(CASE WHEN scored = 1 AND invalidated = 0 AND v >= ? THEN n ELSE 0 END) AS promote,
         SUM(CASE WHEN scored = 1 AND invalidated = 0 AND v < ? AND unpinned = 1 THEN n ELSE 0 END) AS demote
       FROM (SELECT kind, source, n, invalidated, by_salience, scored, v, unpinned,
               CASE WHEN quarantined = 1 THEN 'quarantined' WHEN secret = 1 AND ? = 0 THEN 'secret'
                 WHEN archived = 1 THEN 'archived' ELSE 'shown' END AS state,
               CASE WHEN scored = 0 THEN NULL
                 ELSE MIN(?, MAX(0, CAST(v * ? AS INTEGER) - (v * ? < CAST(v * ? AS INTEGER)))) END AS bin
             FROM item_counts WHERE kind IN (${kinds.map(() => '?').join(', ')}))
       GROUP BY kind, state, source, bin`,
      [opts.promote, opts.demote, opts.withSecrets ? 1 : 0, b - 1, b, b, b, ...kinds],
    ).map((r) => ({
      kind: String(r.kind) as ItemKind, state: String(r.state) as OverviewGroup['state'], source: String(r.source), bin: r.bin === null ? null : Number(r.bin),
      n: Number(r.n), invalidated: Number(r.invalidated ?? 0), bySalience: Number(r.bySalience ?? 0),
      byImportance: Number(r.byImportance ?? 0), scored: Number(r.scored ?? 0), min: num(r.lo), max: num(r.hi), sum: Number(r.sum ?? 0),
      promote: Number(r.promote ?? 0), demote: Number(r.demote ?? 0),
    }));
  }

  /** Items of `kind` shown (not quarantined, archived, or secret unless `withSecrets`) and not expired at `now` (working blocks: a few dozen). */
  countAlive(kind: ItemKind, withSecrets: boolean, now: number): number {
    const { where, params } = whereOf({ kind, archived: false, shown: { withSecrets } }, false);
    return Number(this.q.get(`SELECT count(*) AS n FROM items${where} AND (expires_at IS NULL OR expires_at > ?)`, [...params, now])?.n ?? 0);
  }

  /** Items of `kind` the dashboard hides or files away, from the kept counts: quarantined, secret (unless `withSecrets`), archived. */
  hiddenCounts(kind: ItemKind, withSecrets: boolean): { quarantined: number; secret: number; archived: number } {
    const r = this.q.get(
      `SELECT SUM(n * quarantined) AS q, SUM(CASE WHEN quarantined = 0 AND secret = 1 AND ? = 0 THEN n ELSE 0 END) AS s,
         SUM(CASE WHEN quarantined = 0 AND (secret = 0 OR ? = 1) AND archived = 1 THEN n ELSE 0 END) AS a FROM item_counts WHERE kind = ?`,
      [withSecrets ? 1 : 0, withSecrets ? 1 : 0, kind]);
    return { quarantined: Number(r?.q ?? 0), secret: Number(r?.s ?? 0), archived: Number(r?.a ?? 0) };
  }

  /**
   * What scoring needs of each matching item, in (created, id) order, as one JSON row built inside SQLite:
   * no text, tags or meta decoded — meta.mentions when a number (entities), meta.supersededBy when a string
   * (invalidated facts), and the item's source statistics as the store keeps them (item_source_stats).
   * With `bounds`, rows that cannot be near a review threshold are left out inside SQLite (see ReviewBounds).
   */
  scoreRows(filter: Omit<ItemFilter, 'order' | 'limit' | 'offset'>, bounds?: ReviewBounds, page?: ScorePage): ScoreRow[] {
    const { where, params } = whereOf(filter, false);
    const conds = where ? [where.replace(/^ WHERE /, '')] : [];
    const p: SqlParam[] = [...params];
    if (page?.after) {
      conds.push('(i.created > ? OR (i.created = ? AND i.id > ?))');
      p.push(page.after.created, page.after.created, page.after.id);
    }
    if (bounds) {
      const kinds = Object.keys(bounds.halfLifeMs) as ItemKind[];
      const perKind = (m: Partial<Record<ItemKind, number>>) => {
        const ks = kinds.filter((k) => m[k] !== undefined && Number.isFinite(m[k]));
        p.push(...ks.flatMap((k) => [k, m[k]!]));
        return ks.length ? `CASE i.kind ${ks.map(() => 'WHEN ? THEN ?').join(' ')} END` : 'NULL';
      };
      // The last sign of life (salience.ts lastActivity) and the clamped importance (0.5 when unknown).
      const last = 'max(i.created, COALESCE(i.last_accessed, 0), COALESCE(st.last_source_at, 0))';
      const imp = 'min(1.0, max(0.0, COALESCE(i.importance, 0.5)))';
      const recurrence = "CASE WHEN i.kind = 'fact' THEN max(0, COALESCE(st.sources, 0) - 1) ELSE 0 END";
      p.push(bounds.promote, bounds.margin, bounds.demote, bounds.margin);
      const stored = 'i.salience IS NOT NULL AND (abs(i.salience - ?) <= ? + 1e-9 OR abs(i.salience - ?) <= ? + 1e-9)';
      p.push(...bounds.promotable, bounds.now);
      const maxAge = perKind(bounds.promoteMaxAgeMs);
      p.push(bounds.promoteFloor);
      const promo = `i.kind IN (${bounds.promotable.map(() => '?').join(', ') || 'NULL'}) AND ${last} >= ? - ${maxAge}
        AND 0.4 * ${imp} + 0.3 * min(1.0, (${recurrence}) / 2.0) + 0.3 * min(1.0, max(0, i.access_count) / 2.0) >= ? - 1e-9`;
      p.push(bounds.now);
      const halfLife = perKind(bounds.halfLifeMs);
      p.push(bounds.demoteCeil);
      const demo = `0.4 * ${imp} * max(0.0, 1.0 - 0.6931471805599453 * max(0, ? - ${last}) / ${halfLife}) <= ? + 1e-9`;
      // The review reads episodic items only; named literally, SQLite can scan items_episodic_scores (schema v2).
      conds.push("i.kind IN ('fact', 'summary', 'entity')");
      conds.push(`((i.kind = 'fact' AND i.invalidated_at IS NOT NULL) OR (${stored})
        OR (i.salience IS NULL AND (i.pinned <> 0 OR (${promo}) OR (${demo}))))`);
    }
    const r = this.q.get(
      `SELECT json_group_array(json_array(id, kind, created, last_accessed, access_count, importance, pinned, salience, invalidated_at,
         mentions, superseded_by, sources, last_source_at)) AS j
       FROM (SELECT i.id, i.kind, i.created, i.last_accessed, i.access_count, i.importance, i.pinned, i.salience, i.invalidated_at,
           CASE WHEN i.kind = 'entity' AND json_type(i.meta, '$.mentions') IN ('integer', 'real') THEN json_extract(i.meta, '$.mentions') END AS mentions,
           CASE WHEN i.invalidated_at IS NOT NULL AND json_type(i.meta, '$.supersededBy') = 'text' THEN json_extract(i.meta, '$.supersededBy') END AS superseded_by,
           st.sources, st.last_source_at
         FROM items i${bounds ? ' INDEXED BY items_episodic_scores' : ''} LEFT JOIN item_source_stats st ON st.item_id = i.id
         ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''} ORDER BY i.created, i.id${page ? ' LIMIT ?' : ''})`, page ? [...p, page.limit] : p);
    return jsonRows<[string, ItemKind, number, number | null, number | null, number | null, number, number | null, number | null, number | null, string | null, number | null, number | null]>(r?.j)
      .map(([id, kind, created, lastAccessed, accessCount, importance, pinned, sal, invalidatedAt, mentions, supersededBy, sources, lastSourceAt]) => ({
        id, kind, created: Number(created), lastAccessed: lastAccessed === null ? null : Number(lastAccessed), accessCount: Number(accessCount ?? 0),
        importance: importance === null ? null : Number(importance), pinned: pinned === 1, salience: sal === null ? null : Number(sal),
        invalidatedAt: invalidatedAt === null ? null : Number(invalidatedAt), mentions: mentions === null ? undefined : Number(mentions), supersededBy,
        sources: Number(sources ?? 0), lastSourceAt: lastSourceAt === null ? null : Number(lastSourceAt),
      }));
  }

  /** Tags of the matching items with how many carry each, most first, then by tag (json_each inside SQLite). */
  tagCounts(filter: Omit<ItemFilter, 'order' | 'limit' | 'offset'>, limit: number): { tag: string; count: number }[] {
    const { where, params } = whereOf(filter, false);
    return this.q.all(
      // items_tagged (schema v2) holds only the rows with tags: the rest of the store is never read.
      `SELECT t.value AS tag, count(*) AS n FROM (SELECT tags FROM items INDEXED BY items_tagged${where}${where ? ' AND' : ' WHERE'} tags <> '[]') AS i, json_each(i.tags) AS t
       WHERE t.type = 'text' GROUP BY t.value ORDER BY n DESC, tag LIMIT ?`, [...params, limit],
    ).map((r) => ({ tag: String(r.tag), count: Number(r.n) }));
  }

  /** Id and kind of every matching item, built as one JSON row inside SQLite (no item decoded). */
  idsAndKinds(filter: Omit<ItemFilter, 'order' | 'limit' | 'offset'>): { id: string; kind: ItemKind }[] {
    const { where, params } = whereOf(filter, false);
    const r = this.q.get(`SELECT json_group_array(json_array(id, kind)) AS j FROM items${where}`, params);
    return jsonRows<[string, ItemKind]>(r?.j).map(([id, kind]) => ({ id, kind }));
  }

  /** Id, path and file stamp of every item of `kind` (no text, tags or meta decoded): the vault's cheap re-sync input. */
  fileStamps(kind: ItemKind): FileStamp[] {
    // One JSON row built inside SQLite: ~5x faster than 10k getAsObject calls through sql.js (vault bench).
    const r = this.q.get(
      `SELECT json_group_array(json_array(id, path, file_mtime, file_size)) AS j
       FROM (SELECT id, path, file_mtime, file_size FROM items WHERE kind = ? ORDER BY id)`, [kind]);
    return jsonRows<[string, string | null, number | null, number | null]>(r?.j)
      .map(([id, path, fileMtime, fileSize]) => ({ id, path, fileMtime, fileSize }));
  }

  /**
   * Providers stamped on model-written raw rows (any role but 'user'), with all their rows and those recall can
   * still return (not quarantined, archived, invalidated or secret): the quarantine multi-select (SPEC R-QUAR-1).
   */
  providerCounts(): { provider: string; recallable: number; total: number }[] {
    return this.q.all(
      `SELECT provider, count(*) AS total,
         SUM(CASE WHEN trust <> 'quarantined' AND archived_at IS NULL AND invalidated_at IS NULL AND secret = 0 THEN 1 ELSE 0 END) AS recallable
       FROM items WHERE kind = 'raw' AND provider IS NOT NULL AND role <> 'user' GROUP BY provider ORDER BY provider`,
    ).map((r) => ({ provider: String(r.provider), recallable: Number(r.recallable ?? 0), total: Number(r.total) }));
  }

  countByKind(): Partial<Record<ItemKind, number>> {
    const out: Partial<Record<ItemKind, number>> = {};
    for (const r of this.q.all('SELECT kind, SUM(n) AS n FROM item_counts GROUP BY kind')) out[r.kind as ItemKind] = Number(r.n);
    return out;
  }

  /** Inserts or fully replaces an item. The id prefix decides the kind (SPEC R-MEM-2). */
  put(input: ItemInput): void {
    if (!input || typeof input.id !== 'string' || input.id.length < 4) throw badInput('item id is missing');
    const kind = kindOfId(input.id);
    if (!kind) throw badInput(`item id has no known prefix (${Object.values(ID_PREFIX).join(' ')})`);
    if (input.kind !== undefined && input.kind !== kind) throw badInput(`item kind ${input.kind} does not match its id prefix`);
    if (typeof input.created !== 'number' || !Number.isFinite(input.created)) throw badInput('item created must be a number of milliseconds');
    const full: Record<string, unknown> = { ...ITEM_DEFAULTS, ...stripUndefined(input), kind };
    this.write(ITEM_INSERT, [input.id, ...ITEM_COLS.map(([p, , t]) => toParam(p, t, full[p]))], input.id);
  }

  /** Changes only the given fields; a missing id changes nothing. */
  patch(id: string, fields: ItemPatch): void {
    const sets: string[] = [];
    const params: SqlParam[] = [];
    for (const [prop, v] of Object.entries(fields)) {
      if (v === undefined) continue;
      const c = COL_BY_PROP.get(prop);
      if (!c || prop === 'id' || prop === 'kind') throw badInput(`item field ${prop} cannot be patched`);
      if (prop === 'created' && typeof v !== 'number') throw badInput('created must be a number');
      sets.push(`${c.col} = ?`);
      params.push(toParam(prop, c.type, v));
    }
    if (!sets.length) return;
    this.write(`UPDATE items SET ${sets.join(', ')} WHERE id = ?`, [...params, id], id);
  }

  /**
   * Moves a message's text into the raw record (the flush): the row keeps its content address instead of the
   * text. The text itself is unchanged, so the recall index need not read the item again in this process.
   * The shorter row moves to the table's end (a new rowid; nothing keys on it): shrunk in place it left its page
   * part empty for good (42 % of the items table after an import); moved rows pack and free whole pages.
   */
  moveTextToRaw(id: string, blobHash: string): void {
    if (typeof blobHash !== 'string' || !blobHash) throw badInput('blobHash must be a content address');
    this.writeIndexNeutral('UPDATE items SET rowid = (SELECT MAX(rowid) FROM items) + 1, blob_hash = ?, text = NULL WHERE id = ?', [blobHash, id], id);
  }

  /** Counts a recall of these items (salience input). The recall index holds neither field: index-neutral. */
  touchAccess(ids: readonly string[], at: number): void {
    checkTime('at', at);
    for (const id of ids) this.writeIndexNeutral('UPDATE items SET access_count = access_count + 1, last_accessed = ? WHERE id = ?', [at, id], id);
  }

  /** Deletes the item and the rows keyed by it (its sources, outgoing links, vector bookkeeping). */
  delete(id: string): void {
    this.write('DELETE FROM items WHERE id = ?', [id], id);
    this.write('DELETE FROM item_sources WHERE item_id = ?', [id]);
    this.write('DELETE FROM links WHERE from_id = ?', [id]);
    this.write('DELETE FROM vector_state WHERE item_id = ?', [id]);
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

// Typed repositories: the only place SQL for the engine's tables is written. Reads run against the
// committed in-memory database; writes only append statements to a Batch (inside store.transaction),
// which the Store journals and applies. Written statements must be deterministic given the database
// state (ids and times come from JS, no random()/CURRENT_TIMESTAMP): every process applies every
// batch exactly once, in sequence order, and must end with the same rows.
import * as crypto from 'node:crypto';
import { MemoryError } from '../errors';
import { compressBatch, contentHash, decompressBatch, encodeText } from '../write/rawCodec';
import { ID_PREFIX, TRUST_LEVELS, kindOfId, type ItemKind, type Trust } from '../types';

export type SqlParam = number | string | Uint8Array | null;
export type Row = Record<string, SqlParam>;

/** Read access the Store gives repositories (it catches up on other processes' writes first). */
export interface SqlReader {
  all(sql: string, params?: SqlParam[]): Row[];
  get(sql: string, params?: SqlParam[]): Row | undefined;
  /** Streams rows; return false from `cb` to stop. */
  each(sql: string, params: SqlParam[], cb: (row: Row) => boolean | void): void;
}

/** One logical write: the unit of a journal record. */
export class Batch {
  readonly stmts: [string, SqlParam[]][] = [];
  readonly touched = new Set<string>();
  add(sql: string, params: SqlParam[], ...ids: string[]): void {
    this.stmts.push([sql, params]);
    for (const id of ids) this.touched.add(id);
  }
}

function badInput(message: string): MemoryError {
  return new MemoryError('E_BAD_INPUT', message);
}

abstract class Repo {
  constructor(protected readonly q: SqlReader, private readonly batch: Batch | undefined) {}
  protected write(sql: string, params: SqlParam[], ...ids: string[]): void {
    if (!this.batch) throw new MemoryError('E_USAGE', 'store writes happen inside store.transaction(tx => …)');
    this.batch.add(sql, params, ...ids);
  }
}

const str = (v: SqlParam | undefined): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: SqlParam | undefined): number | null => (v === null || v === undefined ? null : Number(v));
function json<T>(v: SqlParam | undefined, fallback: T): T {
  if (typeof v !== 'string') return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}

/** Rows aggregated by json_group_array. Unlike `json`, a parse failure throws: an empty list would read as "no rows". */
function jsonRows<T>(v: SqlParam | undefined): T[] {
  return typeof v === 'string' ? (JSON.parse(v) as T[]) : [];
}

function checkTime(name: string, v: unknown): void {
  if (v !== null && v !== undefined && (typeof v !== 'number' || !Number.isFinite(v))) throw badInput(`${name} must be a number of milliseconds`);
}

// ---------------------------------------------------------------------------------------------
// items

export interface Item {
  id: string;
  kind: ItemKind;
  /** Note kind (user/feedback/…), fact type, … */
  subkind: string | null;
  /** NULL for raw messages whose text lives compressed in raw_blobs (see blobHash). */
  text: string | null;
  blobHash: string | null;
  title: string | null;
  summary: string | null;
  role: string | null;
  trust: Trust;
  prevTrust: Trust | null;
  untrusted: boolean;
  secret: boolean;
  pinned: boolean;
  tags: string[];
  provider: string | null;
  model: string | null;
  entryPath: string | null;
  conversation: string | null;
  project: string | null;
  projectType: string | null;
  language: string | null;
  importance: number | null;
  salience: number | null;
  accessCount: number;
  lastAccessed: number | null;
  created: number;
  updated: number | null;
  validFrom: number | null;
  invalidatedAt: number | null;
  /** Working-memory TTL. */
  expiresAt: number | null;
  archivedAt: number | null;
  originalId: string | null;
  /** e.g. 'vault' for rows rebuilt from files, 'chat', 'tool', 'import'. */
  sourceType: string | null;
  /** Vault-relative file path for notes. */
  path: string | null;
  contentHash: string | null;
  /** Vault notes: file mtime (ms) and size (bytes) at the last index; null = re-read at the next sync. */
  fileMtime: number | null;
  fileSize: number | null;
  meta: Record<string, unknown>;
}

/** What `items.fileStamps` returns per row. */
export interface FileStamp {
  id: string;
  path: string | null;
  fileMtime: number | null;
  fileSize: number | null;
}

export type ItemInput = { id: string; created: number } & Partial<Omit<Item, 'id' | 'created'>>;
export type ItemPatch = Partial<Omit<Item, 'id' | 'kind'>>;

type ColType = 'text' | 'num' | 'bool' | 'tags' | 'meta';
const ITEM_COLS: [keyof Item, string, ColType][] = [
  ['id', 'id', 'text'], ['kind', 'kind', 'text'], ['subkind', 'subkind', 'text'], ['text', 'text', 'text'],
  ['blobHash', 'blob_hash', 'text'], ['title', 'title', 'text'], ['summary', 'summary', 'text'], ['role', 'role', 'text'],
  ['trust', 'trust', 'text'], ['prevTrust', 'prev_trust', 'text'], ['untrusted', 'untrusted', 'bool'],
  ['secret', 'secret', 'bool'], ['pinned', 'pinned', 'bool'], ['tags', 'tags', 'tags'], ['provider', 'provider', 'text'],
  ['model', 'model', 'text'], ['entryPath', 'entry_path', 'text'], ['conversation', 'conversation', 'text'],
  ['project', 'project', 'text'], ['projectType', 'project_type', 'text'], ['language', 'language', 'text'],
  ['importance', 'importance', 'num'], ['salience', 'salience', 'num'], ['accessCount', 'access_count', 'num'],
  ['lastAccessed', 'last_accessed', 'num'], ['created', 'created', 'num'], ['updated', 'updated', 'num'],
  ['validFrom', 'valid_from', 'num'], ['invalidatedAt', 'invalidated_at', 'num'], ['expiresAt', 'expires_at', 'num'],
  ['archivedAt', 'archived_at', 'num'], ['originalId', 'original_id', 'text'], ['sourceType', 'source_type', 'text'],
  ['path', 'path', 'text'], ['contentHash', 'content_hash', 'text'], ['fileMtime', 'file_mtime', 'num'],
  ['fileSize', 'file_size', 'num'], ['meta', 'meta', 'meta'],
];
const COL_BY_PROP = new Map(ITEM_COLS.map(([p, c, t]) => [p as string, { col: c, type: t }]));
const ITEM_INSERT = `INSERT OR REPLACE INTO items (${ITEM_COLS.map((c) => c[1]).join(', ')}) VALUES (${ITEM_COLS.map(() => '?').join(', ')})`;

const ITEM_DEFAULTS: Omit<Item, 'id' | 'kind' | 'created'> = {
  subkind: null, text: null, blobHash: null, title: null, summary: null, role: null, trust: 'owner', prevTrust: null,
  untrusted: false, secret: false, pinned: false, tags: [], provider: null, model: null, entryPath: null,
  conversation: null, project: null, projectType: null, language: null, importance: null, salience: null,
  accessCount: 0, lastAccessed: null, updated: null, validFrom: null, invalidatedAt: null, expiresAt: null,
  archivedAt: null, originalId: null, sourceType: null, path: null, contentHash: null, fileMtime: null, fileSize: null, meta: {},
};

function toParam(prop: string, type: ColType, v: unknown): SqlParam {
  switch (type) {
    case 'bool':
      return v ? 1 : 0;
    case 'num':
      checkTime(prop, v);
      return (v ?? null) as number | null;
    case 'tags':
      if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) throw badInput('tags must be a list of strings');
      return JSON.stringify(v);
    case 'meta':
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badInput('meta must be an object');
      return JSON.stringify(v);
    default:
      if (v !== null && v !== undefined && typeof v !== 'string') throw badInput(`${prop} must be a string`);
      if ((prop === 'trust' || prop === 'prevTrust') && v !== null && v !== undefined && !TRUST_LEVELS.includes(v as Trust)) {
        throw badInput(`unknown trust level for ${prop}`);
      }
      return (v ?? null) as string | null;
  }
}

function rowToItem(r: Row): Item {
  const o: Record<string, unknown> = {};
  for (const [prop, col, type] of ITEM_COLS) {
    const v = r[col];
    if (type === 'bool') o[prop] = v === 1;
    else if (type === 'num') o[prop] = prop === 'accessCount' ? Number(v ?? 0) : num(v);
    else if (type === 'tags') o[prop] = json<string[]>(v, []);
    else if (type === 'meta') o[prop] = json<Record<string, unknown>>(v, {});
    else o[prop] = str(v);
  }
  return o as unknown as Item;
}

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
}

/** One group of ItemsRepo.overviewGroups. */
export interface OverviewGroup {
  kind: ItemKind;
  state: 'quarantined' | 'secret' | 'archived' | 'shown';
  source: string;
  bin: number | null;
  n: number;
  alive: number;
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

export class ItemsRepo extends Repo {
  get(id: string): Item | undefined {
    const r = this.q.get('SELECT * FROM items WHERE id = ?', [id]);
    return r ? rowToItem(r) : undefined;
  }

  /** Items in the order of `ids`; missing ids are left out. */
  getMany(ids: readonly string[]): Item[] {
    const found = new Map<string, Item>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      for (const r of this.q.all(`SELECT * FROM items WHERE id IN (${chunk.map(() => '?').join(', ')})`, chunk)) {
        const it = rowToItem(r);
        found.set(it.id, it);
      }
    }
    return ids.map((id) => found.get(id)).filter((x): x is Item => x !== undefined);
  }

  has(id: string): boolean {
    return this.q.get('SELECT 1 AS x FROM items WHERE id = ?', [id]) !== undefined;
  }

  list(filter: ItemFilter = {}): Item[] {
    const { where, params } = whereOf(filter);
    return this.q.all(`SELECT * FROM items${where}`, params).map(rowToItem);
  }

  /** Streams matching items without building an array (index building); return false to stop. */
  forEach(filter: ItemFilter, cb: (item: Item) => boolean | void): void {
    const { where, params } = whereOf(filter);
    this.q.each(`SELECT * FROM items${where}`, params, (r) => cb(rowToItem(r)));
  }

  count(filter: Omit<ItemFilter, 'order' | 'limit' | 'offset'> = {}): number {
    const { where, params } = whereOf(filter, false);
    return Number(this.q.get(`SELECT count(*) AS n FROM items${where}`, params)?.n ?? 0);
  }

  /**
   * The dashboard overview's aggregates in one pass inside SQLite (no row decoded): items of `kinds` grouped
   * by kind, visibility state (quarantined; secret = hidden unless `withSecrets`; archived; shown), source
   * type (NULL as 'unknown') and score bin (score = stored salience, else importance; `bins` equal bins over
   * 0–1, values outside in the end bins, NULL when unscored), each group with its counts: alive at `now`
   * (not expired), invalidated, scored by salience / by importance, min / max / sum of the score, and how
   * many (not invalidated) are ≥ `promote` and unpinned < `demote`.
   */
  overviewGroups(kinds: ItemKind[], opts: { withSecrets: boolean; now: number; bins: number; promote: number; demote: number }): OverviewGroup[] {
    const b = opts.bins;
    return this.q.all(
      `SELECT kind, state, source, bin, count(*) AS n, SUM(alive) AS alive, SUM(invalidated_at IS NOT NULL) AS invalidated,
         count(salience) AS bySalience, SUM(salience IS NULL AND importance IS NOT NULL) AS byImportance,
         count(v) AS scored, min(v) AS lo, max(v) AS hi, total(v) AS sum,
         SUM(invalidated_at IS NULL AND v >= ?) AS promote, SUM(invalidated_at IS NULL AND v < ? AND pinned = 0) AS demote
       FROM (SELECT kind, salience, importance, invalidated_at, pinned, COALESCE(salience, importance) AS v,
               CASE WHEN trust = 'quarantined' THEN 'quarantined' WHEN secret = 1 AND ? = 0 THEN 'secret'
                 WHEN archived_at IS NOT NULL THEN 'archived' ELSE 'shown' END AS state,
               COALESCE(source_type, 'unknown') AS source, (expires_at IS NULL OR expires_at > ?) AS alive,
               CASE WHEN COALESCE(salience, importance) IS NULL THEN NULL
                 ELSE MIN(?, MAX(0, CAST(COALESCE(salience, importance) * ? AS INTEGER)
                   - (COALESCE(salience, importance) * ? < CAST(COALESCE(salience, importance) * ? AS INTEGER)))) END AS bin
             FROM items WHERE kind IN (${kinds.map(() => '?').join(', ')}))
       GROUP BY kind, state, source, bin`,
      [opts.promote, opts.demote, opts.withSecrets ? 1 : 0, opts.now, b - 1, b, b, b, ...kinds],
    ).map((r) => ({
      kind: String(r.kind) as ItemKind, state: String(r.state) as OverviewGroup['state'], source: String(r.source), bin: r.bin === null ? null : Number(r.bin),
      n: Number(r.n), alive: Number(r.alive ?? 0), invalidated: Number(r.invalidated ?? 0), bySalience: Number(r.bySalience ?? 0),
      byImportance: Number(r.byImportance ?? 0), scored: Number(r.scored ?? 0), min: num(r.lo), max: num(r.hi), sum: Number(r.sum ?? 0),
      promote: Number(r.promote ?? 0), demote: Number(r.demote ?? 0),
    }));
  }

  /** Items of `kind` the dashboard hides or files away, counted inside SQLite: quarantined, secret (unless `withSecrets`), archived. */
  hiddenCounts(kind: ItemKind, withSecrets: boolean): { quarantined: number; secret: number; archived: number } {
    const r = this.q.get(
      `SELECT SUM(trust = 'quarantined') AS q, SUM(trust <> 'quarantined' AND secret = 1 AND ? = 0) AS s,
         SUM(trust <> 'quarantined' AND (secret = 0 OR ? = 1) AND archived_at IS NOT NULL) AS a FROM items WHERE kind = ?`,
      [withSecrets ? 1 : 0, withSecrets ? 1 : 0, kind]);
    return { quarantined: Number(r?.q ?? 0), secret: Number(r?.s ?? 0), archived: Number(r?.a ?? 0) };
  }

  /**
   * What scoring needs of each matching item, in (created, id) order, as one JSON row built inside SQLite:
   * no text, tags or meta decoded — meta.mentions when a number, meta.supersededBy when a string.
   */
  scoreRows(filter: Omit<ItemFilter, 'order' | 'limit' | 'offset'>): ScoreRow[] {
    const { where, params } = whereOf(filter, false);
    const r = this.q.get(
      `SELECT json_group_array(json_array(id, kind, created, last_accessed, access_count, importance, pinned, salience, invalidated_at,
         CASE WHEN json_type(meta, '$.mentions') IN ('integer', 'real') THEN json_extract(meta, '$.mentions') END,
         CASE WHEN json_type(meta, '$.supersededBy') = 'text' THEN json_extract(meta, '$.supersededBy') END)) AS j
       FROM (SELECT * FROM items${where} ORDER BY created, id)`, params);
    return jsonRows<[string, ItemKind, number, number | null, number | null, number | null, number, number | null, number | null, number | null, string | null]>(r?.j)
      .map(([id, kind, created, lastAccessed, accessCount, importance, pinned, sal, invalidatedAt, mentions, supersededBy]) => ({
        id, kind, created: Number(created), lastAccessed: lastAccessed === null ? null : Number(lastAccessed), accessCount: Number(accessCount ?? 0),
        importance: importance === null ? null : Number(importance), pinned: pinned === 1, salience: sal === null ? null : Number(sal),
        invalidatedAt: invalidatedAt === null ? null : Number(invalidatedAt), mentions: mentions === null ? undefined : Number(mentions), supersededBy,
      }));
  }

  /** Tags of the matching items with how many carry each, most first, then by tag (json_each inside SQLite). */
  tagCounts(filter: Omit<ItemFilter, 'order' | 'limit' | 'offset'>, limit: number): { tag: string; count: number }[] {
    const { where, params } = whereOf(filter, false);
    return this.q.all(
      `SELECT t.value AS tag, count(*) AS n FROM (SELECT tags FROM items${where}${where ? ' AND' : ' WHERE'} tags <> '[]') AS i, json_each(i.tags) AS t
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
    for (const r of this.q.all('SELECT kind, count(*) AS n FROM items GROUP BY kind')) out[r.kind as ItemKind] = Number(r.n);
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
    this.write(ITEM_INSERT, ITEM_COLS.map(([p, , t]) => toParam(p, t, full[p])), input.id);
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

  /** Counts a recall of these items (salience input). */
  touchAccess(ids: readonly string[], at: number): void {
    checkTime('at', at);
    for (const id of ids) this.write('UPDATE items SET access_count = access_count + 1, last_accessed = ? WHERE id = ?', [at, id], id);
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

// ---------------------------------------------------------------------------------------------
// raw_blobs + raw_chunks: the raw record (R-WRITE-3). Each message is addressed by the sha256 of its
// bytes (stored once, `seen` counts repeats) and lives in a slot of a chunk compressed per flush with
// rawCodec's batch codec (~2.8× vs ~1.6× per message). A small flush (a short chat session) is merged
// with the newest chunk while that stays ≤ 32 KiB of text — written as a NEW chunk that the old chunk's
// rows move to, never appended in place, so a writer working from a stale read can duplicate bytes but
// never lose a message. Forgetting a message drops its row at once and rewrites its chunk without it
// (slot blanked, chunk re-compressed; a chunk with no live slot is deleted), so forgotten text really
// leaves the database. (Two forgets racing from stale reads can leave a forgotten slot's bytes until the
// chunk's next rewrite, which blanks every slot without a row.)

export interface RawBlob {
  hash: string;
  text: string;
  /** Codec of the chunk holding the message. */
  codec: string;
  rawBytes: number;
  seen: number;
  created: number;
  chunkId: string;
  index: number;
}

/** The content address of a raw message: sha256 of its bytes (rawCodec.contentHash), hex. */
export function blobHash(text: string): string {
  return contentHash(text);
}

const CHUNK_CODEC = 'batch-deflate-dict-v1';
// 32 KiB of message bytes per chunk = deflate's window (beyond it the ratio stops improving) and about
// one R-WRITE-3 flush (~8,000 tokens); reading one message never inflates more than that. A single
// larger flush still goes into as many chunks as it needs.
const CHUNK_MAX_RAW_BYTES = 32 * 1024;
// Decompressed chunks kept per open store: a conversation's messages sit in a few chunks, so 8 covers
// reading one conversation (expand, summary rebuild) without inflating the same chunk per message.
const CHUNK_CACHE_ENTRIES = 8;

/** Small LRU of decompressed chunks keyed by `${id}:${gen}` (a rewrite bumps gen, so stale entries never match). */
class ChunkCache {
  private readonly map = new Map<string, string[]>();
  get(key: string): string[] | undefined {
    const v = this.map.get(key);
    if (v) { this.map.delete(key); this.map.set(key, v); }
    return v;
  }
  set(key: string, v: string[]): void {
    this.map.delete(key);
    this.map.set(key, v);
    while (this.map.size > CHUNK_CACHE_ENTRIES) this.map.delete(this.map.keys().next().value!);
  }
  /** Drops every cached generation of a chunk (a forget must not leave its text in memory). */
  evict(chunkId: string): void {
    for (const k of [...this.map.keys()]) if (k.startsWith(`${chunkId}:`)) this.map.delete(k);
  }
}
// One cache per store reader: the read repo and every transaction's repo share it.
const chunkCaches = new WeakMap<SqlReader, ChunkCache>();

export class RawBlobsRepo extends Repo {
  // Within one transaction (reads see the committed database, not this batch): rows added or removed so
  // far and the chunk contents as this batch leaves them, so several puts/deletes in one tx compose.
  private readonly addedRows = new Map<string, { chunkId: string; index: number }>();
  private readonly goneRows = new Set<string>();
  private readonly pendingChunks = new Map<string, { texts: string[]; live: Set<number> }>();
  /** Chunks this transaction merged into a new one: old id → new id. */
  private readonly moved = new Map<string, string>();
  private lastChunk: string | undefined;
  private tailFull = false;

  private get cache(): ChunkCache {
    let c = chunkCaches.get(this.q);
    if (!c) { c = new ChunkCache(); chunkCaches.set(this.q, c); }
    return c;
  }

  /** Stores one message (a chunk of its own); a repeat only counts `seen`. Returns the hash. */
  put(text: string, at: number): string {
    return this.putMany([text], at)[0]!;
  }

  /**
   * Stores a flush's messages: new contents go into chunks compressed together (≤ 64 KiB of text each),
   * contents already stored (or repeated within `texts`) only count `seen`. Returns the hashes in order.
   */
  putMany(texts: readonly string[], at: number): string[] {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) throw badInput('raw text must be a string');
    checkTime('at', at);
    const hashes = texts.map(contentHash);
    const fresh: { hash: string; text: string; bytes: number }[] = [];
    const freshSet = new Set<string>();
    const repeats: string[] = [];
    texts.forEach((text, i) => {
      const hash = hashes[i]!;
      if (freshSet.has(hash) || this.rowOf(hash)) repeats.push(hash);
      else { freshSet.add(hash); fresh.push({ hash, text, bytes: encodeText(text).length }); }
    });
    for (let i = 0; i < fresh.length; ) {
      // The newest chunk is the base when this group still fits beside its live messages.
      const base = i === 0 ? this.tailChunk() : undefined;
      const texts0 = base ? base.chunk.texts.map((t, k) => (base.chunk.live.has(k) ? t : '')) : [];
      let bytes = base ? base.bytes : 0;
      const group: typeof fresh = [];
      while (i < fresh.length && (bytes === 0 || bytes + fresh[i]!.bytes <= CHUNK_MAX_RAW_BYTES)) { bytes += fresh[i]!.bytes; group.push(fresh[i++]!); }
      if (base && group.length === 0) { i = 0; this.tailFull = true; continue; }
      const chunkId = newRowId(at);
      const all = [...texts0, ...group.map((g) => g.text)];
      this.write('INSERT INTO raw_chunks (id, data, codec, raw_bytes, messages, gen, created) VALUES (?, ?, ?, ?, ?, 0, ?)',
        [chunkId, new Uint8Array(compressBatch(all)), CHUNK_CODEC, bytes, all.length, at]);
      const live = new Set(base ? base.chunk.live : []);
      if (base) {
        // Move the base's rows (whatever rows it has when applied) and drop it once nothing points at it.
        this.write('UPDATE raw_blobs SET chunk_id = ? WHERE chunk_id = ?', [chunkId, base.id]);
        this.write('DELETE FROM raw_chunks WHERE id = ? AND NOT EXISTS (SELECT 1 FROM raw_blobs WHERE chunk_id = ?)', [base.id, base.id]);
        this.moved.set(base.id, chunkId);
        for (const [h, r] of this.addedRows) if (r.chunkId === base.id) this.addedRows.set(h, { chunkId, index: r.index });
        this.pendingChunks.delete(base.id);
        this.cache.evict(base.id);
      }
      group.forEach((g, k) => {
        const index = texts0.length + k;
        live.add(index);
        // ON CONFLICT: another window stored the same content meanwhile; its row wins and this slot is
        // orphaned (blanked at the chunk's next rewrite).
        this.write('INSERT INTO raw_blobs (hash, chunk_id, idx, raw_bytes, seen, created) VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT(hash) DO UPDATE SET seen = seen + 1',
          [g.hash, chunkId, index, g.bytes, at]);
        this.addedRows.set(g.hash, { chunkId, index });
        this.goneRows.delete(g.hash);
      });
      this.pendingChunks.set(chunkId, { texts: all, live });
      this.lastChunk = chunkId;
    }
    for (const hash of repeats) this.write('UPDATE raw_blobs SET seen = seen + 1 WHERE hash = ?', [hash]);
    return hashes;
  }

  /**
   * The newest chunk (this transaction's last one, else the last inserted: rowid order, since `created`
   * ties under a fixed clock) with its live bytes, unless full. Any chunk with room would be correct.
   */
  private tailChunk(): { id: string; chunk: { texts: string[]; live: Set<number> }; bytes: number } | undefined {
    if (this.tailFull) return undefined;
    const id = this.lastChunk ?? str(this.q.get('SELECT id FROM raw_chunks ORDER BY rowid DESC LIMIT 1')?.id);
    if (!id) return undefined;
    const chunk = this.pendingChunk(id);
    if (!chunk || chunk.live.size === 0) return undefined;
    let bytes = 0;
    for (const k of chunk.live) bytes += encodeText(chunk.texts[k] ?? '').length;
    if (bytes >= CHUNK_MAX_RAW_BYTES) { this.tailFull = true; return undefined; }
    return { id, chunk, bytes };
  }

  get(hash: string): RawBlob | undefined {
    const r = this.q.get('SELECT b.*, c.gen, c.codec FROM raw_blobs b JOIN raw_chunks c ON c.id = b.chunk_id WHERE b.hash = ?', [hash]);
    if (!r) return undefined;
    const chunkId = String(r.chunk_id);
    const index = Number(r.idx);
    const texts = this.chunkTexts(chunkId, Number(r.gen));
    if (!texts || index >= texts.length) throw new MemoryError('E_CORRUPT', 'raw record chunk is missing a message', { chunk: chunkId, index });
    return {
      hash, text: texts[index]!, codec: String(r.codec), rawBytes: Number(r.raw_bytes), seen: Number(r.seen), created: Number(r.created),
      chunkId, index,
    };
  }

  has(hash: string): boolean {
    return this.q.get('SELECT 1 AS x FROM raw_blobs WHERE hash = ?', [hash]) !== undefined;
  }

  /** Totals for the dashboard: distinct messages and their raw bytes vs the chunks' stored (compressed) bytes. */
  stats(): { blobs: number; rawBytes: number; storedBytes: number; seen: number; chunks: number } {
    const b = this.q.get('SELECT count(*) AS n, COALESCE(SUM(raw_bytes), 0) AS raw, COALESCE(SUM(seen), 0) AS seen FROM raw_blobs');
    const c = this.q.get('SELECT count(*) AS n, COALESCE(SUM(length(data)), 0) AS stored FROM raw_chunks');
    return {
      blobs: Number(b?.n ?? 0), rawBytes: Number(b?.raw ?? 0), storedBytes: Number(c?.stored ?? 0), seen: Number(b?.seen ?? 0),
      chunks: Number(c?.n ?? 0),
    };
  }

  /**
   * Forgets a message: its row goes, and its chunk is rewritten without it (or deleted when no message
   * in it is still live), in the same transaction.
   */
  delete(hash: string): void {
    const row = this.rowOf(hash);
    if (!row) return;
    this.write('DELETE FROM raw_blobs WHERE hash = ?', [hash]);
    this.addedRows.delete(hash);
    this.goneRows.add(hash);
    const chunk = this.pendingChunk(row.chunkId);
    this.cache.evict(row.chunkId);
    if (!chunk) return;
    chunk.live.delete(row.index);
    if (chunk.live.size === 0) {
      this.write('DELETE FROM raw_chunks WHERE id = ?', [row.chunkId]);
      this.pendingChunks.delete(row.chunkId);
      return;
    }
    chunk.texts = chunk.texts.map((t, i) => (chunk.live.has(i) ? t : ''));
    const rawBytes = chunk.texts.reduce((n, t) => n + encodeText(t).length, 0);
    this.write('UPDATE raw_chunks SET data = ?, raw_bytes = ?, gen = gen + 1 WHERE id = ?',
      [new Uint8Array(compressBatch(chunk.texts)), rawBytes, row.chunkId]);
  }

  /** Every chunk's decompressed slots (blanked ones included), for integrity checks and tests; return false to stop. */
  forEachChunk(cb: (chunk: { id: string; gen: number; texts: string[]; storedBytes: number }) => boolean | void): void {
    this.q.each('SELECT id, gen, data FROM raw_chunks ORDER BY created, id', [], (r) => {
      const data = r.data as Uint8Array;
      return cb({ id: String(r.id), gen: Number(r.gen), texts: decompressBatch(data), storedBytes: data.byteLength });
    });
  }

  /** Where a message lives as this transaction sees it (its own puts and deletes included). */
  private rowOf(hash: string): { chunkId: string; index: number } | undefined {
    const added = this.addedRows.get(hash);
    if (added) return added;
    if (this.goneRows.has(hash)) return undefined;
    const r = this.q.get('SELECT chunk_id, idx FROM raw_blobs WHERE hash = ?', [hash]);
    if (!r) return undefined;
    let chunkId = String(r.chunk_id);
    for (let next = this.moved.get(chunkId); next; next = this.moved.get(chunkId)) chunkId = next;
    return { chunkId, index: Number(r.idx) };
  }

  private pendingChunk(chunkId: string): { texts: string[]; live: Set<number> } | undefined {
    let p = this.pendingChunks.get(chunkId);
    if (p) return p;
    const r = this.q.get('SELECT data FROM raw_chunks WHERE id = ?', [chunkId]);
    if (!r) return undefined;
    const texts = decompressBatch(r.data as Uint8Array);
    const live = new Set<number>();
    for (const x of this.q.all('SELECT hash, idx FROM raw_blobs WHERE chunk_id = ?', [chunkId])) {
      if (!this.goneRows.has(String(x.hash))) live.add(Number(x.idx));
    }
    for (const a of this.addedRows.values()) if (a.chunkId === chunkId) live.add(a.index);
    p = { texts, live };
    this.pendingChunks.set(chunkId, p);
    return p;
  }

  private chunkTexts(chunkId: string, gen: number): string[] | undefined {
    const key = `${chunkId}:${gen}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const r = this.q.get('SELECT data FROM raw_chunks WHERE id = ?', [chunkId]);
    if (!r) return undefined;
    const texts = decompressBatch(r.data as Uint8Array);
    this.cache.set(key, texts);
    return texts;
  }
}

// ---------------------------------------------------------------------------------------------
// item_sources: derived item → the items it came from (trust/secret/project propagation, forget)

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

// ---------------------------------------------------------------------------------------------
// links: wikilinks (target text as written) and their resolved item ids, for backlinks

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

// ---------------------------------------------------------------------------------------------
// conversations

export interface Conversation {
  id: string;
  title: string | null;
  project: string | null;
  projectType: string | null;
  language: string | null;
  created: number;
  lastTurn: number | null;
  captureCalls: number;
  meta: Record<string, unknown>;
}

const toConversation = (r: Row): Conversation => ({
  id: String(r.id), title: str(r.title), project: str(r.project), projectType: str(r.project_type), language: str(r.language),
  created: Number(r.created), lastTurn: num(r.last_turn), captureCalls: Number(r.capture_calls), meta: json(r.meta, {}),
});

export class ConversationsRepo extends Repo {
  get(id: string): Conversation | undefined {
    const r = this.q.get('SELECT * FROM conversations WHERE id = ?', [id]);
    return r ? toConversation(r) : undefined;
  }
  count(): number {
    return Number(this.q.get('SELECT count(*) AS n FROM conversations')?.n ?? 0);
  }
  list(opts: { project?: string; limit?: number } = {}): Conversation[] {
    const p: SqlParam[] = [];
    let sql = 'SELECT * FROM conversations';
    if (opts.project !== undefined) { sql += ' WHERE project = ?'; p.push(opts.project); }
    sql += ' ORDER BY created DESC, id';
    if (opts.limit !== undefined) { sql += ' LIMIT ?'; p.push(opts.limit); }
    return this.q.all(sql, p).map(toConversation);
  }
  /** Creates the conversation or updates its labels; counters (capture_calls) are kept. */
  put(c: Omit<Conversation, 'captureCalls' | 'meta' | 'lastTurn'> & Partial<Pick<Conversation, 'meta' | 'lastTurn'>>): void {
    checkTime('created', c.created);
    this.write(
      `INSERT INTO conversations (id, title, project, project_type, language, created, last_turn, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET title = excluded.title, project = excluded.project, project_type = excluded.project_type,
       language = excluded.language, last_turn = COALESCE(excluded.last_turn, last_turn), meta = excluded.meta`,
      [c.id, c.title ?? null, c.project ?? null, c.projectType ?? null, c.language ?? null, c.created, c.lastTurn ?? null, JSON.stringify(c.meta ?? {})],
      c.id,
    );
  }
  touch(id: string, at: number): void {
    checkTime('at', at);
    this.write('UPDATE conversations SET last_turn = ? WHERE id = ?', [at, id], id);
  }
  addCaptureCall(id: string): void {
    this.write('UPDATE conversations SET capture_calls = capture_calls + 1 WHERE id = ?', [id], id);
  }
}

// ---------------------------------------------------------------------------------------------
// raw_buffers: the per-conversation raw-record buffer, so a crash before the flush loses nothing

export interface RawBufferEntry {
  conversation: string;
  seq: number;
  role: string;
  text: string;
  provenance: Record<string, unknown>;
  at: number;
}

export class RawBuffersRepo extends Repo {
  /** Appends with the next per-conversation sequence number (assigned when applied, so it is the same everywhere). */
  append(e: Omit<RawBufferEntry, 'seq'>): void {
    checkTime('at', e.at);
    if (typeof e.text !== 'string' || typeof e.conversation !== 'string') throw badInput('raw buffer entry needs conversation and text');
    this.write(
      `INSERT INTO raw_buffers (conversation, seq, role, text, provenance, at)
       SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM raw_buffers WHERE conversation = ?`,
      [e.conversation, e.role, e.text, JSON.stringify(e.provenance ?? {}), e.at, e.conversation],
    );
  }
  list(conversation: string): RawBufferEntry[] {
    return this.q.all('SELECT * FROM raw_buffers WHERE conversation = ? ORDER BY seq', [conversation]).map((r) => ({
      conversation: String(r.conversation), seq: Number(r.seq), role: String(r.role), text: String(r.text),
      provenance: json(r.provenance, {}), at: Number(r.at),
    }));
  }
  conversations(): { conversation: string; entries: number; oldest: number }[] {
    return this.q.all('SELECT conversation, count(*) AS n, MIN(at) AS oldest FROM raw_buffers GROUP BY conversation ORDER BY conversation')
      .map((r) => ({ conversation: String(r.conversation), entries: Number(r.n), oldest: Number(r.oldest) }));
  }
  /** Removes entries up to and including `uptoSeq` (after they were flushed into the raw record). */
  clear(conversation: string, uptoSeq: number): void {
    this.write('DELETE FROM raw_buffers WHERE conversation = ? AND seq <= ?', [conversation, uptoSeq]);
  }
}

// ---------------------------------------------------------------------------------------------
// capture ledger, audit log, purge log: append-only records with JS-generated ids

/** A sortable, unique row id: time (base36 ms) + 8 random hex digits. */
export function newRowId(at: number): string {
  return `${Math.floor(at).toString(36).padStart(9, '0')}-${crypto.randomBytes(4).toString('hex')}`;
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

// ---------------------------------------------------------------------------------------------
// quarantines (SPEC §7)

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

// ---------------------------------------------------------------------------------------------
// counters, vector_state, meta

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

/** The repository set, built once for reads (no batch) and once per transaction (with its batch). */
export class Repositories {
  readonly items: ItemsRepo;
  readonly rawBlobs: RawBlobsRepo;
  readonly itemSources: ItemSourcesRepo;
  readonly links: LinksRepo;
  readonly conversations: ConversationsRepo;
  readonly rawBuffers: RawBuffersRepo;
  readonly ledger: LedgerRepo;
  readonly audit: AuditRepo;
  readonly purgeLog: PurgeLogRepo;
  readonly quarantines: QuarantinesRepo;
  readonly counters: CountersRepo;
  readonly vectorState: VectorStateRepo;
  readonly meta: MetaRepo;
  constructor(q: SqlReader, batch?: Batch) {
    this.items = new ItemsRepo(q, batch);
    this.rawBlobs = new RawBlobsRepo(q, batch);
    this.itemSources = new ItemSourcesRepo(q, batch);
    this.links = new LinksRepo(q, batch);
    this.conversations = new ConversationsRepo(q, batch);
    this.rawBuffers = new RawBuffersRepo(q, batch);
    this.ledger = new LedgerRepo(q, batch);
    this.audit = new AuditRepo(q, batch);
    this.purgeLog = new PurgeLogRepo(q, batch);
    this.quarantines = new QuarantinesRepo(q, batch);
    this.counters = new CountersRepo(q, batch);
    this.vectorState = new VectorStateRepo(q, batch);
    this.meta = new MetaRepo(q, batch);
  }
}

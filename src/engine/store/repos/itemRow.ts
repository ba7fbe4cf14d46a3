// The items table's row shape: the Item type, its columns and how a row maps to and from SQL parameters.
// Used by ItemsRepo (./itemsRepo.ts), which writes and reads the rows.
import { TRUST_LEVELS, type ItemKind, type Trust } from '../../types';
import { Row, SqlParam, badInput, checkTime, json, num, str } from './repoBase';

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

export type ColType = 'text' | 'num' | 'bool' | 'tags' | 'meta';
export const ITEM_COLS: [keyof Item, string, ColType][] = [
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
export const COL_BY_PROP = new Map(ITEM_COLS.map(([p, c, t]) => [p as string, { col: c, type: t }]));
// A replaced row keeps its rowid (the first parameter is the id again): the new row lands where the old one lay.
// With a fresh rowid the replace appended it and left a hole in the old page that nothing fills (rows append by
// rowid), so items put again and again (entities, summaries) left the table part-empty. Still a REPLACE, so its
// DELETE and INSERT triggers keep the figures (item_counts, item_source_stats) as before; a new id gets a new rowid.
export const ITEM_INSERT = `INSERT OR REPLACE INTO items (rowid, ${ITEM_COLS.map((c) => c[1]).join(', ')})
  VALUES ((SELECT rowid FROM items WHERE id = ?), ${ITEM_COLS.map(() => '?').join(', ')})`;

export const ITEM_DEFAULTS: Omit<Item, 'id' | 'kind' | 'created'> = {
  subkind: null, text: null, blobHash: null, title: null, summary: null, role: null, trust: 'owner', prevTrust: null,
  untrusted: false, secret: false, pinned: false, tags: [], provider: null, model: null, entryPath: null,
  conversation: null, project: null, projectType: null, language: null, importance: null, salience: null,
  accessCount: 0, lastAccessed: null, updated: null, validFrom: null, invalidatedAt: null, expiresAt: null,
  archivedAt: null, originalId: null, sourceType: null, path: null, contentHash: null, fileMtime: null, fileSize: null, meta: {},
};

export function toParam(prop: string, type: ColType, v: unknown): SqlParam {
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

/** The columns the recall index reads (IndexKeeper): a catch-up reads 17 of the 40 and parses no JSON (~2× faster). */
export type IndexRow = Pick<Item, 'id' | 'kind' | 'text' | 'blobHash' | 'project' | 'projectType' | 'conversation' | 'trust' | 'untrusted'
  | 'secret' | 'pinned' | 'role' | 'created' | 'importance' | 'invalidatedAt' | 'archivedAt' | 'expiresAt'>;
const INDEX_PROPS: readonly (keyof IndexRow)[] = ['id', 'kind', 'text', 'blobHash', 'project', 'projectType', 'conversation', 'trust',
  'untrusted', 'secret', 'pinned', 'role', 'created', 'importance', 'invalidatedAt', 'archivedAt', 'expiresAt'];
export const INDEX_COLS = ITEM_COLS.filter(([p]) => (INDEX_PROPS as readonly string[]).includes(p));

/** The columns of `props` only (a read that needs a few: no JSON parsed, no string built for the rest), once per list. */
const colsCache = new WeakMap<readonly (keyof Item)[], typeof ITEM_COLS>();
export function colsOf(props: readonly (keyof Item)[]): typeof ITEM_COLS {
  let cols = colsCache.get(props);
  if (!cols) colsCache.set(props, (cols = ITEM_COLS.filter(([p]) => (props as readonly string[]).includes(p))));
  return cols;
}

export function rowToItem(r: Row): Item;
export function rowToItem(r: Row, cols: typeof INDEX_COLS): IndexRow;
export function rowToItem(r: Row, cols = ITEM_COLS): Item | IndexRow {
  const o: Record<string, unknown> = {};
  for (const [prop, col, type] of cols) {
    const v = r[col];
    if (type === 'bool') o[prop] = v === 1;
    else if (type === 'num') o[prop] = prop === 'accessCount' ? Number(v ?? 0) : num(v);
    else if (type === 'tags') o[prop] = json<string[]>(v, []);
    else if (type === 'meta') o[prop] = json<Record<string, unknown>>(v, {});
    else o[prop] = str(v);
  }
  return o as unknown as Item;
}

// Schema v1 (v2: figures kept by triggers; v3: item_sources WITHOUT ROWID, two unused indexes dropped) of the engine database and the forward-only migration list (SPEC R-STORE-3).
// Invariants: migrations only run forward, are deterministic, and the version lives both in
// meta('schema_version') and PRAGMA user_version; a newer database is refused, never touched.
// Timestamps are INTEGER milliseconds since the epoch; JSON columns hold TEXT.

export interface Migration {
  version: number;
  /** Statements run in order inside one transaction. */
  up: string[];
  /** VACUUM once after it ran (outside the transaction): it rebuilt tables, leaving their old pages free. */
  vacuum?: boolean;
}

const V1: string[] = [
  // Every recallable thing: notes (vt:), raw messages (rw:), summaries (gs:), facts (fa:),
  // entities (en:), working blocks (wk:), document sections (dc:).
  `CREATE TABLE items (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    subkind TEXT,
    text TEXT,
    blob_hash TEXT,
    title TEXT,
    summary TEXT,
    role TEXT,
    trust TEXT NOT NULL DEFAULT 'owner',
    prev_trust TEXT,
    untrusted INTEGER NOT NULL DEFAULT 0,
    secret INTEGER NOT NULL DEFAULT 0,
    pinned INTEGER NOT NULL DEFAULT 0,
    tags TEXT NOT NULL DEFAULT '[]',
    provider TEXT,
    model TEXT,
    entry_path TEXT,
    conversation TEXT,
    project TEXT,
    project_type TEXT,
    language TEXT,
    importance REAL,
    salience REAL,
    access_count INTEGER NOT NULL DEFAULT 0,
    last_accessed INTEGER,
    created INTEGER NOT NULL,
    updated INTEGER,
    valid_from INTEGER,
    invalidated_at INTEGER,
    expires_at INTEGER,
    archived_at INTEGER,
    original_id TEXT,
    source_type TEXT,
    path TEXT,
    content_hash TEXT,
    -- Vault notes: the file's mtime (ms, as fs.Stats.mtimeMs gives it) and size (bytes) when it was last
    -- indexed; a re-sync skips reading a file whose stat still matches. NULL = always re-read.
    file_mtime REAL,
    file_size INTEGER,
    meta TEXT NOT NULL DEFAULT '{}'
  )`,
  'CREATE INDEX items_kind ON items(kind, created)',
  'CREATE INDEX items_conversation ON items(conversation, created)',
  'CREATE INDEX items_project ON items(project, kind)',
  'CREATE INDEX items_created ON items(created)',
  'CREATE INDEX items_blob ON items(blob_hash)',
  'CREATE INDEX items_path ON items(path)',
  'CREATE INDEX items_provider ON items(provider, created)',
  // The raw record (R-WRITE-3): messages are compressed together, one chunk per flush (shared context
  // compresses ~2.8× vs ~1.6× per message); raw_blobs addresses each message by the sha256 of its bytes
  // and points at its slot in a chunk. `gen` counts rewrites (a forget blanks the slot and re-compresses),
  // so readers can cache decompressed chunks by (id, gen).
  // `data` last: SQLite reads a row's columns in order, so metadata before a large blob can be read
  // without walking the blob's overflow pages (the text look-up of a hit reads gen and codec).
  `CREATE TABLE raw_chunks (
    id TEXT PRIMARY KEY,
    codec TEXT NOT NULL,
    raw_bytes INTEGER NOT NULL,
    messages INTEGER NOT NULL,
    gen INTEGER NOT NULL DEFAULT 0,
    created INTEGER NOT NULL,
    data BLOB NOT NULL
  )`,
  `CREATE TABLE raw_blobs (
    hash TEXT PRIMARY KEY,
    chunk_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    raw_bytes INTEGER NOT NULL,
    seen INTEGER NOT NULL DEFAULT 1,
    created INTEGER NOT NULL
  )`,
  'CREATE INDEX raw_blobs_chunk ON raw_blobs(chunk_id)',
  `CREATE TABLE item_sources (
    item_id TEXT NOT NULL,
    source_id TEXT NOT NULL,
    PRIMARY KEY (item_id, source_id)
  )`,
  'CREATE INDEX item_sources_source ON item_sources(source_id)',
  `CREATE TABLE links (
    from_id TEXT NOT NULL,
    target TEXT NOT NULL,
    to_id TEXT,
    PRIMARY KEY (from_id, target)
  )`,
  'CREATE INDEX links_to ON links(to_id)',
  'CREATE INDEX links_target ON links(target)',
  `CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    title TEXT,
    project TEXT,
    project_type TEXT,
    language TEXT,
    created INTEGER NOT NULL,
    last_turn INTEGER,
    capture_calls INTEGER NOT NULL DEFAULT 0,
    meta TEXT NOT NULL DEFAULT '{}'
  )`,
  `CREATE TABLE raw_buffers (
    conversation TEXT NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    provenance TEXT NOT NULL DEFAULT '{}',
    at INTEGER NOT NULL,
    PRIMARY KEY (conversation, seq)
  )`,
  `CREATE TABLE capture_ledger (
    id TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    conversation TEXT,
    outcome TEXT NOT NULL,
    kinds TEXT NOT NULL DEFAULT '[]',
    provider TEXT,
    model TEXT,
    entry_path TEXT,
    item_ids TEXT NOT NULL DEFAULT '[]',
    detail TEXT NOT NULL DEFAULT '{}'
  )`,
  'CREATE INDEX capture_ledger_at ON capture_ledger(at)',
  'CREATE INDEX capture_ledger_conversation ON capture_ledger(conversation)',
  `CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    action TEXT NOT NULL,
    actor TEXT,
    item_id TEXT,
    detail TEXT NOT NULL DEFAULT '{}'
  )`,
  'CREATE INDEX audit_log_at ON audit_log(at)',
  `CREATE TABLE quarantines (
    id TEXT PRIMARY KEY,
    created INTEGER NOT NULL,
    provider TEXT,
    model TEXT,
    range_from INTEGER,
    range_to INTEGER,
    reason TEXT,
    status TEXT NOT NULL DEFAULT 'active',
    released_at INTEGER,
    counts TEXT NOT NULL DEFAULT '{}',
    detail TEXT NOT NULL DEFAULT '{}'
  )`,
  `CREATE TABLE quarantine_rows (
    quarantine_id TEXT NOT NULL,
    item_id TEXT NOT NULL,
    prev_trust TEXT,
    note_from TEXT,
    note_to TEXT,
    PRIMARY KEY (quarantine_id, item_id)
  )`,
  'CREATE INDEX quarantine_rows_item ON quarantine_rows(item_id)',
  `CREATE TABLE purge_log (
    id TEXT PRIMARY KEY,
    at INTEGER NOT NULL,
    action TEXT NOT NULL,
    ref TEXT,
    record TEXT NOT NULL DEFAULT '{}'
  )`,
  'CREATE INDEX purge_log_ref ON purge_log(ref)',
  'CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL DEFAULT 0)',
  `CREATE TABLE vector_state (
    embedder TEXT NOT NULL,
    item_id TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    slot INTEGER,
    updated INTEGER,
    PRIMARY KEY (embedder, item_id)
  )`,
  'CREATE INDEX vector_state_item ON vector_state(item_id)',
  'CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)',
];

// Version 2: figures the dashboard and the status card need, kept by the store itself instead of being
// recounted by scanning items (issue #16: ≤ 200 ms at 100k items). They are kept by SQLite triggers, so every
// statement that changes an item, a source link or the raw record updates them in the same transaction — in
// the writing process, in every other process replaying its journal record, and at open when the journal is
// replayed after a crash. Journal records stay plain statements on the v1 tables (nothing new is journaled).
// Needs PRAGMA recursive_triggers = ON (Store.applyPragmas): only then does the row an INSERT OR REPLACE
// removes fire the DELETE triggers. The migration backfills each figure once from the existing rows.

/** The item_counts key of an items row (`r` = NEW or OLD): what the overview groups and filters by. */
function countKey(r: 'NEW' | 'OLD'): string[] {
  return [
    `${r}.kind`, `${r}.trust = 'quarantined'`, `${r}.secret = 1`, `${r}.archived_at IS NOT NULL`, `${r}.invalidated_at IS NOT NULL`,
    `${r}.pinned = 0`, `COALESCE(${r}.source_type, 'unknown')`, `${r}.salience IS NOT NULL`, `COALESCE(${r}.salience, ${r}.importance) IS NOT NULL`,
    `COALESCE(${r}.salience, ${r}.importance, 0)`,
  ];
}
const COUNT_COLS = ['kind', 'quarantined', 'secret', 'archived', 'invalidated', 'unpinned', 'source', 'by_salience', 'scored', 'v'];
const countAdd = (r: 'NEW' | 'OLD') => `INSERT INTO item_counts (${COUNT_COLS.join(', ')}, n) VALUES (${countKey(r).join(', ')}, 1) ON CONFLICT DO UPDATE SET n = n + 1;`;
const countWhere = (r: 'NEW' | 'OLD') => COUNT_COLS.map((c, i) => `${c} = (${countKey(r)[i]})`).join(' AND ');
const countSub = (r: 'NEW' | 'OLD') => `UPDATE item_counts SET n = n - 1 WHERE ${countWhere(r)}; DELETE FROM item_counts WHERE ${countWhere(r)} AND n <= 0;`;
/** Re-reads the newest source time of every item that has `id` as a source (the source row came, went or moved in time). */
const sourceTimesOf = (id: string) =>
  `UPDATE item_source_stats SET last_source_at = (SELECT max(src.created) FROM item_sources s JOIN items src ON src.id = s.source_id WHERE s.item_id = item_source_stats.item_id)
     WHERE item_id IN (SELECT item_id FROM item_sources WHERE source_id = ${id});`;
const totalAdd = (name: string, by: string) => `INSERT INTO store_totals (name, value) VALUES ('${name}', ${by}) ON CONFLICT DO UPDATE SET value = value + excluded.value;`;

const V2: string[] = [
  // Items counted by what the overview and the status card group and filter by (a few hundred rows at most:
  // salience is rounded to 0.001; v = salience, else importance, else 0 with scored = 0).
  `CREATE TABLE item_counts (
    kind TEXT NOT NULL, quarantined INTEGER NOT NULL, secret INTEGER NOT NULL, archived INTEGER NOT NULL, invalidated INTEGER NOT NULL,
    unpinned INTEGER NOT NULL, source TEXT NOT NULL, by_salience INTEGER NOT NULL, scored INTEGER NOT NULL, v REAL NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (${COUNT_COLS.join(', ')})
  ) WITHOUT ROWID`,
  `INSERT INTO item_counts (${COUNT_COLS.join(', ')}, n)
     SELECT ${countKey('NEW').map((e) => e.replace(/NEW\./g, '')).join(', ')}, count(*) FROM items GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10`,
  `CREATE TRIGGER item_counts_insert AFTER INSERT ON items BEGIN ${countAdd('NEW')} END`,
  `CREATE TRIGGER item_counts_delete AFTER DELETE ON items BEGIN ${countSub('OLD')} END`,
  `CREATE TRIGGER item_counts_update AFTER UPDATE OF kind, trust, secret, archived_at, invalidated_at, pinned, source_type, salience, importance ON items
     BEGIN ${countSub('OLD')} ${countAdd('NEW')} END`,
  // Per item with sources: how many item_sources rows, and the newest existing source's `created` (the
  // salience inputs of consolidation and the review queue, R-MAINT-2).
  `CREATE TABLE item_source_stats (item_id TEXT PRIMARY KEY, sources INTEGER NOT NULL, last_source_at INTEGER) WITHOUT ROWID`,
  `INSERT INTO item_source_stats (item_id, sources, last_source_at)
     SELECT s.item_id, count(*), max(src.created) FROM item_sources s LEFT JOIN items src ON src.id = s.source_id GROUP BY s.item_id`,
  `CREATE TRIGGER item_source_stats_insert AFTER INSERT ON item_sources BEGIN
     INSERT INTO item_source_stats (item_id, sources, last_source_at) VALUES (NEW.item_id, 1, (SELECT created FROM items WHERE id = NEW.source_id))
       ON CONFLICT DO UPDATE SET sources = sources + 1,
         last_source_at = COALESCE(max(last_source_at, excluded.last_source_at), last_source_at, excluded.last_source_at);
   END`,
  `CREATE TRIGGER item_source_stats_delete AFTER DELETE ON item_sources BEGIN
     UPDATE item_source_stats SET sources = sources - 1,
       last_source_at = (SELECT max(src.created) FROM item_sources s JOIN items src ON src.id = s.source_id WHERE s.item_id = OLD.item_id)
       WHERE item_id = OLD.item_id;
     DELETE FROM item_source_stats WHERE item_id = OLD.item_id AND sources <= 0;
   END`,
  `CREATE TRIGGER item_source_times_insert AFTER INSERT ON items BEGIN ${sourceTimesOf('NEW.id')} END`,
  `CREATE TRIGGER item_source_times_delete AFTER DELETE ON items BEGIN ${sourceTimesOf('OLD.id')} END`,
  `CREATE TRIGGER item_source_times_update AFTER UPDATE OF created ON items BEGIN ${sourceTimesOf('NEW.id')} END`,
  // The raw record's totals (status card): messages, their bytes and sightings; chunks and their stored bytes.
  'CREATE TABLE store_totals (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID',
  `INSERT INTO store_totals (name, value) SELECT 'raw_blobs', count(*) FROM raw_blobs UNION ALL SELECT 'raw_blobs.raw_bytes', COALESCE(SUM(raw_bytes), 0) FROM raw_blobs
     UNION ALL SELECT 'raw_blobs.seen', COALESCE(SUM(seen), 0) FROM raw_blobs UNION ALL SELECT 'raw_chunks', count(*) FROM raw_chunks
     UNION ALL SELECT 'raw_chunks.bytes', COALESCE(SUM(length(data)), 0) FROM raw_chunks`,
  `CREATE TRIGGER raw_blobs_totals_insert AFTER INSERT ON raw_blobs BEGIN
     ${totalAdd('raw_blobs', '1')} ${totalAdd('raw_blobs.raw_bytes', 'NEW.raw_bytes')} ${totalAdd('raw_blobs.seen', 'NEW.seen')} END`,
  `CREATE TRIGGER raw_blobs_totals_delete AFTER DELETE ON raw_blobs BEGIN
     ${totalAdd('raw_blobs', '-1')} ${totalAdd('raw_blobs.raw_bytes', '-OLD.raw_bytes')} ${totalAdd('raw_blobs.seen', '-OLD.seen')} END`,
  `CREATE TRIGGER raw_blobs_totals_update AFTER UPDATE OF raw_bytes, seen ON raw_blobs BEGIN
     ${totalAdd('raw_blobs.raw_bytes', 'NEW.raw_bytes - OLD.raw_bytes')} ${totalAdd('raw_blobs.seen', 'NEW.seen - OLD.seen')} END`,
  `CREATE TRIGGER raw_chunks_totals_insert AFTER INSERT ON raw_chunks BEGIN ${totalAdd('raw_chunks', '1')} ${totalAdd('raw_chunks.bytes', 'length(NEW.data)')} END`,
  `CREATE TRIGGER raw_chunks_totals_delete AFTER DELETE ON raw_chunks BEGIN ${totalAdd('raw_chunks', '-1')} ${totalAdd('raw_chunks.bytes', '-length(OLD.data)')} END`,
  `CREATE TRIGGER raw_chunks_totals_update AFTER UPDATE OF data ON raw_chunks BEGIN ${totalAdd('raw_chunks.bytes', 'length(NEW.data) - length(OLD.data)')} END`,
  // Tag counts read only the items that have tags (summaries, notes, a few facts), not every row.
  "CREATE INDEX items_tagged ON items(kind) WHERE tags <> '[]'",
  // The episodic items with what the review queue's scan reads and filters by (ItemsRepo.scoreRows with
  // bounds): the scan reads these index entries, not the rows. Partial: only queries that name these kinds
  // literally can use it, so no other query's plan changes, and raw messages (most rows) are not in it.
  `CREATE INDEX items_episodic_scores ON items(kind, archived_at, created, id, trust, secret, salience, importance, pinned,
     last_accessed, access_count, invalidated_at) WHERE kind IN ('fact', 'summary', 'entity')`,
];

// Version 3: a smaller store (issue #16). item_sources was a rowid table with a composite primary key, so each
// row was stored twice — in the table (under a hidden rowid) and in the primary key's automatic index
// (sqlite_autoindex_item_sources_1) — and its source_id index pointed at the rowid. As a WITHOUT ROWID table
// the row lives once, in the primary key's B-tree, and item_sources_source holds (source_id, item_id), which
// also covers the reverse look-up. Same columns, same key, same conflict behaviour (INSERT OR IGNORE), so
// journal records — plain statements on the table — replay the same on v3; nothing reads its rowid.
// raw_blobs stays a rowid table: measured, WITHOUT ROWID made it larger — its chunk_id index then carries the
// 64-hex hash instead of a rowid, and rows keyed by a random hash fill their pages less than rows appended by rowid.
// Also dropped: items_path, an index on items that no query uses. items_blob stays: forget asks it whether another
// item still points at a raw-record message (items.blobSharedWith) — without it, a scan of every row per forget.
// The table is rebuilt (create, copy, drop, rename): dropping it drops its index and the triggers ON it, and a
// rename is refused while any trigger names a missing table, so the v2 triggers on items that read
// item_sources (item_source_times_*) go first; every v2 trigger involved is recreated verbatim.
// The old copy's freed pages leave the file through the VACUUM the store runs after this migration (`vacuum`).

/** A v2 trigger, verbatim (the shipped text: what v3 recreates after rebuilding its table). */
function v2Trigger(name: string): string {
  const sql = V2.find((s) => s.startsWith(`CREATE TRIGGER ${name} `));
  if (!sql) throw new Error(`schema: no v2 trigger ${name}`);
  return sql;
}

/** Rebuilds `table` as `create` (its new definition, WITHOUT ROWID) keeping every row. */
function rebuild(table: string, create: string, columns: string[], indexes: string[], triggers: string[]): string[] {
  const cols = columns.join(', ');
  return [
    create.replace(`CREATE TABLE ${table} `, `CREATE TABLE ${table}_v3 `),
    `INSERT INTO ${table}_v3 (${cols}) SELECT ${cols} FROM ${table}`,
    `DROP TABLE ${table}`,
    `ALTER TABLE ${table}_v3 RENAME TO ${table}`,
    ...indexes,
    ...triggers.map(v2Trigger),
  ];
}

const SOURCE_TIMES = ['item_source_times_insert', 'item_source_times_delete', 'item_source_times_update'];

const V3: string[] = [
  // An index no query uses (checked with EXPLAIN QUERY PLAN on the repositories' queries: nothing filters, joins
  // or orders items by path).
  'DROP INDEX items_path',
  ...SOURCE_TIMES.map((t) => `DROP TRIGGER ${t}`),
  ...rebuild('item_sources', `CREATE TABLE item_sources (
    item_id TEXT NOT NULL,
    source_id TEXT NOT NULL,
    PRIMARY KEY (item_id, source_id)
  ) WITHOUT ROWID`, ['item_id', 'source_id'], ['CREATE INDEX item_sources_source ON item_sources(source_id)'],
  ['item_source_stats_insert', 'item_source_stats_delete', ...SOURCE_TIMES]),
];

// Version 4: shorter content addresses (issue #16). A raw-record message was addressed by the whole sha256 of its
// bytes (64 hex characters) in four places per message: raw_blobs' row and its primary-key index, items.blob_hash
// and the items_blob index. 128 bits (32 hex, as a message's `rw:` id already uses) keep collisions out of reach
// for any store; measured on a 1M-message store (both VACUUMed): memory.db 979 → 846 MB. The address is the same
// hash's prefix, so the rows keep their order and a migrated store dedupes new repeats of old messages.
// Journal records are replayed before a migration runs (Store.loadLocked): a record written by version 3 names a
// message by its 64-character address, and must meet the rows as version 3 left them.
const V4: string[] = [
  'UPDATE raw_blobs SET hash = substr(hash, 1, 32) WHERE length(hash) > 32',
  'UPDATE items SET blob_hash = substr(blob_hash, 1, 32) WHERE length(blob_hash) > 32',
];

/** Forward migrations; entry i brings the database to `version` i+1. Never edit a shipped entry. `vacuum`: the
 *  migration rebuilds tables, so the store VACUUMs once after it (the old copies' pages leave the file). */
export const MIGRATIONS: readonly Migration[] = [{ version: 1, up: V1 }, { version: 2, up: V2 }, { version: 3, up: V3, vacuum: true },
  { version: 4, up: V4, vacuum: true }];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

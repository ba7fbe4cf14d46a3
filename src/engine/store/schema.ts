// Schema v1 of the engine database and the forward-only migration list (SPEC R-STORE-3).
// Invariants: migrations only run forward, are deterministic, and the version lives both in
// meta('schema_version') and PRAGMA user_version; a newer database is refused, never touched.
// Timestamps are INTEGER milliseconds since the epoch; JSON columns hold TEXT.

export interface Migration {
  version: number;
  /** Statements run in order inside one transaction. */
  up: string[];
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

/** Forward migrations; entry i brings the database to `version` i+1. Never edit a shipped entry. */
export const MIGRATIONS: readonly Migration[] = [{ version: 1, up: V1 }];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

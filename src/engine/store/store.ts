// The engine's storage layer (SPEC R-STORE-1..3): sql.js in memory, made durable by a journal
// and atomic snapshots, shared safely by several processes (VS Code windows, the CLI).
//
// Design, in one place:
// - Files in `dir`: memory.db (snapshot: the SQLite file sql.js holds, written from its live bytes —
//   sqlJsPatched.ts; export() where sql.js is unpatched — replaced by temp + fsync + rename, never
//   written in place: a large one is read on demand, lazyFile.ts, its pages written since held in memory;
//   meta('snapshot_seq') = last sequence it contains), memory.journal (see journal.ts:
//   header with the snapshot's sequence, then checksummed records), memory.lock (see fileLock.ts).
// - A write is a logical batch { stmts: [sql, params][], touched ids } built by repository methods
//   inside `store.transaction(tx => …)`. Under the lock the store first catches up on the journal,
//   applies the batch inside a SAVEPOINT (a failing batch is rejected and never journaled), appends
//   the record(s) and fdatasyncs, then COMMITs and acknowledges (the promise resolves). Batches
//   queued while a flush waits for the lock share its one fsync (group commit); a bulk derivation's
//   batches may defer theirs to a later one (journalSync.ts: they resolve applied, `sync()` makes them durable).
// - Every process applies every record exactly once, in sequence order, so statements must be
//   deterministic (ids and times from JS; no random()/CURRENT_TIMESTAMP). Reads are synchronous and
//   first catch up on the journal (a stat; at most every `readCheckMs`), plus a poll timer and
//   fs.watch, so other processes' writes show up well within 2 s.
// - Compaction (size threshold after a flush, idle, close; never inside a transaction): under the
//   lock, the live file (streamed, or export()) → memory.db, then a fresh journal whose header carries that sequence. A process
//   whose journal position is gone (header sequence beyond what it has applied) reloads the snapshot.
//   When (compactionPolicy.ts): once the journal has grown by a fixed fraction of the snapshot (bounded
//   write amplification), or at idle/close once it would take more than ~2 s to replay at the next open;
//   a store opened with such a journal arms its idle compaction even if it never writes.
// - Startup: newest snapshot + replay of later records; a torn/corrupt tail is cut off and counted
//   in `openReport`; an unreadable snapshot is moved aside (memory.db.corrupt-<time>), rebuilt from
//   the journal and `openReport.needsReindex` is set. A newer schema is refused before any file changes;
//   an older snapshot migrates after its records replayed (they are in its version), then compacts.
// The rest of the engine never writes SQL: it uses the typed repositories (repositories.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type initSqlJs from 'sql.js';
import { MemoryError } from '../errors';
import { Disposable, Emitter, nullLogger, systemClock, type Clock, type Event, type Logger } from '../host';
import type { ItemKind } from '../types';
import { resolvePolicy, worthCompacting, type CompactionPolicy, type ResolvedPolicy } from './compactionPolicy';
import { FileLock, ioError } from './fileLock';
import { JournalSync, type JournalSyncPolicy } from './journalSync';
import {
  JOURNAL_HEADER_BYTES, RECORD_HEADER_BYTES, appendDurable, decodeHeader, encodeHeader, encodeRecord, idsForIndex, packPayload, readTail, recordJson, recordSchema,
  scanRecords, truncateDurable, type RawRecord,
} from './journal';
import { leftoverTemps, writeFileAtomic } from '../atomicWrite';
import {
  AuditRepo, Batch, ConversationsRepo, indexNeutralOf, CountersRepo, ItemSourcesRepo, ItemsRepo, LedgerRepo, LinksRepo, MetaRepo, PurgeLogRepo,
  QuarantinesRepo, RawBlobsRepo, RawBuffersRepo, Repositories, VectorStateRepo, type SqlParam, type SqlReader,
} from './repositories';
import { MigratedJournal } from './migratedJournal';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';
import { closeDatabase, LAZY_PRAGMAS, lazyFileOf } from './sqlJsPatched';
import { readIfExists, readSnapshot, statIno, writeSnapshot } from './storeFiles';
import { sqlReader } from './sqlReader';
import { loadSqlJs, sqlHeapBytes, type SqlJs } from './sqlWasm';

type Database = initSqlJs.Database;
type Statement = initSqlJs.Statement;

export const SNAPSHOT_FILE = 'memory.db';
export const JOURNAL_FILE = 'memory.journal';
export const LOCK_FILE = 'memory.lock';

export interface StoreOptions extends CompactionPolicy, JournalSyncPolicy {
  dir: string;
  logger?: Logger;
  clock?: Clock;
  wasmPath?: string;
  /** Poll for other processes' writes this often (ms); 1 s keeps cross-window lag under the 2 s target. */
  pollMs?: number;
  /** Reads check the journal for new records at most this often (ms). */
  readCheckMs?: number;
  /** Watch the folder for journal changes (faster than the poll; best effort). */
  watch?: boolean;
  lockStaleMs?: number;
  lockTimeoutMs?: number;
}

export interface OpenReport {
  /** No snapshot and no journal existed: a new, empty store. */
  created: boolean;
  /** Sequence number the loaded snapshot contained (0 without one). */
  snapshotSeq: number;
  /** Journal records replayed on top of the snapshot. */
  recoveredRecords: number;
  /** Records that failed to apply and were skipped (logged). */
  failedRecords: number;
  /** Bytes of torn or corrupt journal tail that were cut off. */
  tornBytes: number;
  /** Where an unreadable snapshot was moved (never deleted), or null. */
  snapshotMovedAside: string | null;
  /** Where a journal with an unreadable header was moved, or null. */
  journalMovedAside: string | null;
  /** Rows may be missing: the vault must be re-indexed ("Rebuild index"). */
  needsReindex: boolean;
  /** Schema version the snapshot had before migrating, or null when none ran. */
  migratedFrom: number | null;
  /** Sequence number after open. */
  seq: number;
}

export interface StoreChange {
  /** Ids the records declared as touched (items, conversations). */
  ids: string[];
  origin: 'local' | 'remote';
  /** The whole database was reloaded from a snapshot: anything may have changed. */
  reloaded: boolean;
  indexNeutral?: string[]; // of `ids`, those whose changes left what the recall index holds as it was (absent when none)
}

export interface StoreStats {
  snapshotBytes: number;
  journalBytes: number;
  /** Bytes this instance wrote since open: journal appends, snapshots (count and bytes), and the journal's fdatasyncs. */
  written: { journalBytes: number; snapshotBytes: number; snapshots: number; journalSyncs: number };
  seq: number;
  items: Partial<Record<ItemKind, number>>;
}

/** What a transaction callback gets: the repositories, with write methods enabled. */
export type Tx = Repositories;

interface Pending {
  batch: Batch;
  /** The record's version field (schema version, plus VERSION_COMPRESSED for a deflated payload). */
  version: number;
  payload: Buffer;
  /** Resolve once applied and appended; the fdatasync may come later (journalSync.ts). */
  defer: boolean;
  resolve: () => void;
  reject: (e: unknown) => void;
}

interface Payload {
  v: number;
  s: [string, unknown[]][];
  t: string[];
  /** Of `t`, the ids whose changes left what the recall index holds as it was (absent when none; older records lack it). */
  n?: string[];
}

function encodeParam(p: SqlParam): unknown {
  return p instanceof Uint8Array ? { $b: Buffer.from(p).toString('base64') } : p;
}
function decodeParam(p: unknown): SqlParam {
  if (p !== null && typeof p === 'object') return new Uint8Array(Buffer.from(String((p as { $b: string }).$b), 'base64'));
  return p as SqlParam;
}

/** Schema version of a database: the larger of PRAGMA user_version and meta('schema_version'). */
function schemaVersionOf(db: Database): number {
  let v = Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
  const hasMeta = db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").length > 0;
  if (hasMeta) v = Math.max(v, Number(db.exec("SELECT value FROM meta WHERE key = 'schema_version'")[0]?.values[0]?.[0] ?? 0));
  return v;
}

function snapshotSeqOf(db: Database): number {
  const hasMeta = db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").length > 0;
  return hasMeta ? Number(db.exec("SELECT value FROM meta WHERE key = 'snapshot_seq'")[0]?.values[0]?.[0] ?? 0) : 0;
}

function newerSchemaError(found: number, where: string): MemoryError {
  return new MemoryError(
    'E_SCHEMA_NEWER',
    `the memory database (${where}) has schema version ${found}, but this version of the extension knows only up to ${SCHEMA_VERSION}; update the extension — nothing was changed`,
    { found, known: SCHEMA_VERSION },
  );
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, '-');
}

export class Store extends Disposable {
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

  readonly dir: string;
  readonly openReport: OpenReport = {
    created: false, snapshotSeq: 0, recoveredRecords: 0, failedRecords: 0, tornBytes: 0, snapshotMovedAside: null,
    journalMovedAside: null, needsReindex: false, migratedFrom: null, seq: 0,
  };

  private readonly changeEmitter = this._register(new Emitter<StoreChange>());
  readonly onDidChange: Event<StoreChange> = this.changeEmitter.event;

  private db!: Database;
  private stmts = new Map<string, Statement>();
  private readonly lock: FileLock;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly dbPath: string;
  private readonly journalPath: string;

  private lastSeq = 0;
  private journalBase = 0;
  private journalOffset = JOURNAL_HEADER_BYTES;
  private journalIno = -1;
  /**
   * The journal's identity (inode, size, mtime, ctime) when its length was journalOffset. Inode and size alone
   * are not enough to tell "unchanged": two compactions by another process can hand the journal a reused inode
   * and the same length (a record of the same size after a new header), and a writer trusting that would append
   * under sequence numbers the new journal already holds.
   */
  private journalSeen = '';
  private lastCheck = 0;
  private readDepth = 0;
  private schemaTooNew = false;
  private closed = false;

  private pending: Pending[] = [];
  private flushScheduled = false;
  private lockChain: Promise<unknown> = Promise.resolve();
  private compactQueued = false;
  private idleTimer: NodeJS.Timeout | undefined;

  private readonly policy: ResolvedPolicy;
  private readonly written = { journalBytes: 0, snapshotBytes: 0, snapshots: 0 };
  private readonly syncs: JournalSync;
  private migratedJournal: MigratedJournal | undefined; // what a migration at open compacted away touched (for the index image)
  private readonly readCheckMs: number;
  private readonly lockTimeoutMs: number;

  private constructor(private readonly SQL: SqlJs, private readonly opts: StoreOptions) {
    super();
    this.dir = path.resolve(opts.dir);
    this.logger = opts.logger ?? nullLogger;
    this.clock = opts.clock ?? systemClock;
    this.dbPath = path.join(this.dir, SNAPSHOT_FILE);
    this.journalPath = path.join(this.dir, JOURNAL_FILE);
    this.lock = new FileLock(path.join(this.dir, LOCK_FILE), { logger: this.logger, staleMs: opts.lockStaleMs });
    this.policy = resolvePolicy(opts);
    this.syncs = new JournalSync(opts);
    this.readCheckMs = opts.readCheckMs ?? 25;
    this.lockTimeoutMs = opts.lockTimeoutMs ?? 60_000;
    const repos = new Repositories(this.reader);
    this.items = repos.items;
    this.rawBlobs = repos.rawBlobs;
    this.itemSources = repos.itemSources;
    this.links = repos.links;
    this.conversations = repos.conversations;
    this.rawBuffers = repos.rawBuffers;
    this.ledger = repos.ledger;
    this.audit = repos.audit;
    this.purgeLog = repos.purgeLog;
    this.quarantines = repos.quarantines;
    this.counters = repos.counters;
    this.vectorState = repos.vectorState;
    this.meta = repos.meta;
  }

  /** Opens (or creates) the store in `opts.dir`. Errors: E_WASM_MISSING, E_READ_ONLY, E_SCHEMA_NEWER, E_LOCKED. */
  static async open(opts: StoreOptions): Promise<Store> {
    if (!opts || typeof opts.dir !== 'string' || !opts.dir) throw new MemoryError('E_USAGE', 'Store.open needs a directory');
    const SQL = await loadSqlJs(opts.wasmPath);
    try {
      fs.mkdirSync(path.resolve(opts.dir), { recursive: true });
    } catch (e) {
      throw ioError(e, 'creating the store folder');
    }
    const store = new Store(SQL, opts);
    await store.lock.acquire(store.lockTimeoutMs);
    try {
      store.loadLocked();
    } catch (e) {
      store.lock.release();
      store.closeDb();
      store.closed = true;
      throw e;
    } finally {
      store.lock.release();
    }
    store.startWatching();
    // Opened with a journal worth compacting (e.g. left by a close below the ratio): every later open would
    // replay it again, so this process compacts once idle even if it never writes.
    if (store.worthCompacting('idle')) store.armIdleCompaction();
    store.logger.info('store.open', {
      seq: store.lastSeq, recovered: store.openReport.recoveredRecords, tornBytes: store.openReport.tornBytes,
      needsReindex: store.openReport.needsReindex,
    });
    return store;
  }

  // ---------------------------------------------------------------------------------------------
  // writes

  /**
   * Runs `fn` synchronously to collect writes, then journals and applies them as one record.
   * Resolves with fn's result once the record is flushed to disk (the acknowledgement) — with `defer`, once it
   * is applied and appended (the caller awaits `sync()` before it reports the work done; journalSync.ts).
   * A throwing `fn` or a failing statement rejects and writes nothing.
   */
  transaction<T>(fn: (tx: Tx) => T, opts: { defer?: boolean } = {}): Promise<T> {
    if (this.closed) return Promise.reject(new MemoryError('E_CLOSED', 'the memory store is closed'));
    const batch = new Batch();
    let result: T;
    try {
      result = fn(new Repositories(this.reader, batch));
    } catch (e) {
      return Promise.reject(e);
    }
    if (result instanceof Promise) return Promise.reject(new MemoryError('E_USAGE', 'store.transaction callbacks must be synchronous'));
    if (!batch.stmts.length) return Promise.resolve(result);
    const neutral = batch.indexNeutral();
    const payload: Payload = { v: SCHEMA_VERSION, s: batch.stmts.map(([sql, ps]) => [sql, ps.map(encodeParam)]), t: [...batch.touched], ...(neutral.length ? { n: neutral } : {}) };
    return new Promise<T>((resolve, reject) => {
      const packed = packPayload(Buffer.from(JSON.stringify(payload), 'utf8'), SCHEMA_VERSION);
      this.pending.push({ batch, version: packed.version, payload: packed.payload, defer: opts.defer === true, resolve: () => resolve(result), reject });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      void this.withLock(() => this.flushLocked()).catch((e) => {
        for (const p of this.pending.splice(0)) p.reject(e);
      });
    });
  }

  /** Serialises lock-holding work of this instance (the file lock is not re-entrant). */
  private withLock<T>(fn: () => T): Promise<T> {
    const run = async () => {
      await this.lock.acquire(this.lockTimeoutMs);
      try {
        return fn();
      } finally {
        this.lock.release();
      }
    };
    const p = this.lockChain.then(run, run);
    this.lockChain = p.catch(() => undefined);
    return p;
  }

  private flushLocked(): void {
    const group = this.pending.splice(0);
    if (!group.length) return;
    try {
      this.flushGroup(group);
    } catch (e) {
      // Settles every promise of the group; a settled one ignores this.
      for (const p of group) p.reject(e);
    }
  }

  private flushGroup(group: Pending[]): void {
    if (this.closed || !this.catchUp(true)) {
      const e = this.schemaTooNew ? newerSchemaError(0, 'journal') : new MemoryError('E_CLOSED', 'the memory store could not catch up with the journal');
      for (const p of group) p.reject(e);
      return;
    }
    const ok: Pending[] = [];
    this.db.exec('BEGIN');
    let committed = false;
    try {
      for (const p of group) {
        this.db.exec('SAVEPOINT batch');
        try {
          for (const [sql, params] of p.batch.stmts) this.prep(sql).run(params);
          this.db.exec('RELEASE batch');
          ok.push(p);
        } catch (e) {
          this.db.exec('ROLLBACK TO batch');
          this.db.exec('RELEASE batch');
          this.logger.warn('store.batch_rejected', { statements: p.batch.stmts.length });
          p.reject(new MemoryError('E_BAD_INPUT', `the write was refused by the database: ${(e as Error).message}`));
        }
      }
      if (ok.length) {
        const data = Buffer.concat(ok.map((p, i) => encodeRecord(this.lastSeq + 1 + i, p.version, p.payload)));
        const sync = this.syncs.due(ok.length, ok.every((p) => p.defer));
        try {
          appendDurable(this.journalPath, data, sync);
        } catch (e) {
          try {
            truncateDurable(this.journalPath, this.journalOffset);
          } catch {
            /* the torn tail is cut by the next catch-up under the lock */
          }
          throw ioError(e, 'appending to the journal');
        }
        this.db.exec('COMMIT');
        committed = true;
        this.syncs.appended(ok.length, sync);
        this.lastSeq += ok.length;
        this.journalOffset += data.length;
        this.written.journalBytes += data.length;
        this.markJournalSeen();
      } else {
        this.db.exec('COMMIT');
        committed = true;
      }
    } catch (e) {
      if (!committed) this.db.exec('ROLLBACK');
      this.logger.error('store.flush_failed', { records: ok.length });
      for (const p of ok) p.reject(e);
      return;
    }
    const ids = new Set<string>(ok.flatMap((p) => [...p.batch.touched]));
    for (const p of ok) p.resolve();
    if (ok.length) this.changeEmitter.fire({ ids: [...ids], origin: 'local', reloaded: false, indexNeutral: indexNeutralOf(ok.map((p) => p.batch)) });
    this.afterWrite();
  }

  /** Whether the journal has grown enough for a compaction of this kind (compactionPolicy.ts). */
  private worthCompacting(kind: 'write' | 'idle' | 'close'): boolean {
    return worthCompacting(kind, this.journalOffset, statIno(this.dbPath)?.size ?? 0, this.policy);
  }

  private afterWrite(): void {
    if (!this.compactQueued && this.worthCompacting('write')) {
      this.compactQueued = true;
      setImmediate(() => {
        if (this.closed) return;
        // Re-judged under the lock: another process may have compacted meanwhile.
        void this.withLock(() => {
          this.compactQueued = false;
          return this.catchUp(true) && this.worthCompacting('write') ? this.compactLocked(false) : false;
        }).catch((e) => this.logger.error('store.compact_failed', { code: (e as MemoryError).code ?? 'error' }));
      });
    }
    this.armIdleCompaction();
  }

  /** Compacts after idleCompactMs without local writes, when the journal is worth it then. */
  private armIdleCompaction(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (!this.closed && this.worthCompacting('idle')) {
        void this.compact().catch((e) => this.logger.error('store.compact_failed', { code: (e as MemoryError).code ?? 'error' }));
      }
    }, this.policy.idleCompactMs);
    this.idleTimer.unref?.();
  }

  // ---------------------------------------------------------------------------------------------
  // compaction, refresh, close

  /** Makes every deferred record this instance appended durable (one fdatasync; none when there is nothing to sync). */
  sync(): Promise<void> {
    return !this.syncs.pending || this.closed ? Promise.resolve() : this.withLock(() => this.syncs.syncNow(this.journalPath));
  }

  /** Writes a snapshot and starts a fresh journal. Resolves false when there was nothing to compact. */
  compact(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return this.withLock(() => {
      this.compactQueued = false;
      return this.compactLocked(false);
    });
  }

  private compactLocked(force: boolean): boolean {
    if (!this.catchUp(true)) return false;
    if (!force && this.journalOffset <= JOURNAL_HEADER_BYTES && fs.existsSync(this.dbPath)) return false;
    const t0 = Date.now();
    this.db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('snapshot_seq', ?)", [String(this.lastSeq)]);
    let bytes = 0;
    try {
      const snap = writeSnapshot(this.dbPath, this.db); // storeFiles.ts: streamed, the live file, or export()
      bytes = snap.bytes;
      if (snap.exported) {
        this.stmts.clear();
        this.applyPragmas(this.db);
      }
      writeFileAtomic(this.journalPath, encodeHeader(this.lastSeq));
    } catch (e) {
      throw ioError(e, 'writing a snapshot');
    }
    this.journalBase = this.lastSeq;
    this.journalOffset = JOURNAL_HEADER_BYTES;
    this.journalIno = statIno(this.journalPath)?.ino ?? -1;
    this.markJournalSeen();
    this.written.snapshotBytes += bytes;
    this.written.snapshots++;
    this.syncs.synced(); // the snapshot (fsynced) holds every record appended so far
    this.logger.info('store.compact', { seq: this.lastSeq, bytes, ms: Date.now() - t0 });
    return true;
  }

  /** Applies other processes' new journal records now. True when something changed. */
  refresh(): boolean {
    if (this.closed || this.readDepth > 0) return false;
    const before = this.lastSeq;
    const reloads = this.reloadCount;
    try {
      this.catchUp(false);
    } catch (e) {
      this.logger.warn('store.refresh_failed', { code: (e as NodeJS.ErrnoException).code ?? 'error' });
    }
    return this.lastSeq !== before || this.reloadCount !== reloads;
  }

  /** Waits for queued writes, compacts when the journal is worth it (see the policy above), and releases everything. */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.pending.length || this.flushScheduled) {
      await new Promise((r) => setImmediate(r));
      await this.lockChain;
    }
    await this.lockChain;
    try {
      await this.withLock(() => {
        this.syncs.syncNow(this.journalPath);
        return this.catchUp(true) && this.worthCompacting('close') ? this.compactLocked(false) : false;
      });
    } catch (e) {
      this.logger.error('store.compact_failed', { code: (e as MemoryError).code ?? 'error' });
    }
    this.closed = true;
    this.dispose();
    this.closeDb();
  }

  override dispose(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    for (const p of this.pending.splice(0)) p.reject(new MemoryError('E_CLOSED', 'the memory store was disposed before this write was saved'));
    super.dispose();
    if (!this.closed) {
      // dispose() without close(): nothing acknowledged is lost (it is in the journal), only the compaction is skipped.
      this.closed = true;
      this.closeDb();
    }
  }

  stats(): StoreStats {
    return {
      snapshotBytes: statIno(this.dbPath)?.size ?? 0,
      journalBytes: statIno(this.journalPath)?.size ?? 0,
      written: { ...this.written, journalSyncs: this.syncs.count },
      seq: this.lastSeq,
      items: this.closed ? {} : this.items.countByKind(),
    };
  }

  get seq(): number {
    return this.lastSeq;
  }

  /** The sequence the journal starts after: a cache saved below it cannot catch up (`touchedIdsSince`). */
  get journalBaseSeq(): number { return this.journalBase; }
  /** Whether close() would write a snapshot now (and start a fresh journal), by the close policy. */
  compactsOnClose(): boolean { return !this.closed && this.worthCompacting('close'); }

  /** Bytes of sql.js's WASM heap: SQLite's page cache and working memory (shared by every open database). */
  get heapBytes(): number {
    return sqlHeapBytes(this.SQL);
  }

  /** Bytes of the database file (page_count × page_size), held in memory unless read on demand. 0 when closed. */
  get dbBytes(): number {
    if (this.closed) return 0;
    const n = (sql: string) => Number(this.db.exec(sql)[0]?.values[0]?.[0] ?? 0);
    return n('PRAGMA page_count') * n('PRAGMA page_size');
  }

  /** Bytes the database file takes in memory: all of it, or for a snapshot read on demand the pages written since. */
  get fileMemoryBytes(): number {
    if (this.closed) return 0;
    return lazyFileOf(this.db)?.overlayBytes ?? this.dbBytes;
  }

  /**
   * Ids touched by the records after `seq` up to the current sequence, read from the journal — for
   * caches persisted at `seq` (the recall index) to catch up. Ids a record marked index-neutral are left
   * out unless another record changed them (`idsForIndex`). null when the journal no longer holds
   * all of them (compacted since, or `seq` is ahead of this store): the caller rebuilds instead.
   */
  touchedIdsSince(seq: number): string[] | null {
    if (this.closed || !Number.isInteger(seq) || seq < 0 || seq > this.lastSeq) return null;
    if (seq === this.lastSeq) return [];
    const jbuf = readIfExists(this.journalPath);
    const header = jbuf ? decodeHeader(jbuf) : undefined;
    if (!jbuf || !header || header.baseSeq > seq) return this.migratedJournal?.touchedSince(seq, (s) => this.touchedIdsSince(s)) ?? null;
    const ids = new Set<string>();
    let expect = seq + 1;
    for (const r of scanRecords(jbuf.subarray(JOURNAL_HEADER_BYTES), JOURNAL_HEADER_BYTES).records) {
      if (r.seq <= seq) continue;
      if (r.seq > this.lastSeq) break;
      if (r.seq !== expect) return null;
      expect++;
      try {
        for (const id of idsForIndex(JSON.parse(recordJson(r)) as Payload)) ids.add(id);
      } catch {
        return null;
      }
    }
    return expect === this.lastSeq + 1 ? [...ids] : null;
  }

  // ---------------------------------------------------------------------------------------------
  // open

  private loadLocked(): void {
    const report = this.openReport;
    // 1. Read and judge everything before changing any file (a newer schema must leave files untouched).
    const snapBytes = readSnapshot(this.dbPath);
    let db: Database | undefined;
    let snapshotCorrupt = false;
    if (snapBytes) {
      try {
        db = new this.SQL.Database(snapBytes);
        const v = schemaVersionOf(db);
        if (v > SCHEMA_VERSION) {
          db.close();
          throw newerSchemaError(v, SNAPSHOT_FILE);
        }
        report.snapshotSeq = snapshotSeqOf(db);
      } catch (e) {
        if (e instanceof MemoryError) throw e;
        try {
          db?.close();
        } catch {
          /* already unusable */
        }
        db = undefined;
        snapshotCorrupt = true;
      }
    }
    const jbuf = readIfExists(this.journalPath) ?? Buffer.alloc(0);
    const header = decodeHeader(jbuf);
    const journalCorrupt = jbuf.length > 0 && !header;
    const scan = header ? scanRecords(jbuf.subarray(JOURNAL_HEADER_BYTES), JOURNAL_HEADER_BYTES) : { records: [], validEnd: JOURNAL_HEADER_BYTES, badBytes: 0 };
    const newer = scan.records.find((r) => recordSchema(r) > SCHEMA_VERSION);
    if (newer) {
      db?.close();
      throw newerSchemaError(recordSchema(newer), JOURNAL_FILE);
    }

    // 2. Repairs.
    const now = this.clock.now();
    if (snapshotCorrupt) {
      const aside = `${this.dbPath}.corrupt-${stamp(now)}`;
      fs.renameSync(this.dbPath, aside);
      report.snapshotMovedAside = aside;
      report.needsReindex = true;
      this.logger.error('store.snapshot_corrupt', { movedAside: path.basename(aside), journalRecords: scan.records.length });
    }
    if (journalCorrupt) {
      const aside = `${this.journalPath}.corrupt-${stamp(now)}`;
      fs.renameSync(this.journalPath, aside);
      report.journalMovedAside = aside;
      report.needsReindex = true;
      this.logger.error('store.journal_corrupt', { movedAside: path.basename(aside) });
    }
    report.created = !snapBytes && jbuf.length === 0;
    if (!db) db = new this.SQL.Database();
    this.applyPragmas(db);
    // A snapshot's journal is in its own schema (a migrating process compacts at once): records replay before the
    // migration (a v3 record names a message by its v3 address); a store without a snapshot gets its schema first.
    const hasSchema = schemaVersionOf(db) > 0;
    if (!hasSchema) report.migratedFrom = this.migrate(db);
    this.db = db;
    this.lastSeq = report.snapshotSeq;

    // 3. Replay. Records the snapshot already holds are skipped by sequence number.
    if (header && header.baseSeq > this.lastSeq) {
      // The journal starts after a snapshot we do not have (moved aside, deleted, or an older copy restored).
      report.needsReindex = true;
      this.logger.warn('store.journal_ahead', { journalBase: header.baseSeq, snapshotSeq: this.lastSeq });
    }
    const applied = this.applyRecords(scan.records, true);
    report.recoveredRecords = applied.applied;
    report.failedRecords = applied.failed;
    if (hasSchema) report.migratedFrom = this.migrateOpen();
    if (scan.badBytes > 0) {
      truncateDurable(this.journalPath, scan.validEnd);
      report.tornBytes = scan.badBytes;
      this.logger.warn('store.torn_tail', { bytes: scan.badBytes, keptRecords: scan.records.length });
    }
    // Temp files of a snapshot or journal header whose writer died before its rename (writeFileAtomic names them
    // `<file>.<pid>.<time>.<n>.tmp`; older builds `<file>.tmp`): we hold the lock, so no live writer owns one.
    for (const leftover of [...leftoverTemps(this.dbPath), ...leftoverTemps(this.journalPath)]) {
      try { fs.unlinkSync(leftover); } catch { /* gone */ }
    }
    if (header && !journalCorrupt) {
      this.journalBase = header.baseSeq;
      this.journalOffset = scan.validEnd;
      this.journalIno = statIno(this.journalPath)?.ino ?? -1;
      this.markJournalSeen();
    }
    if (report.migratedFrom !== null && header && !journalCorrupt && !snapshotCorrupt) this.migratedJournal = MigratedJournal.of(header.baseSeq, this.lastSeq, scan.records);
    // A new store, a rebuilt one, a migrated one or a missing journal gets a fresh snapshot + journal now.
    if (!header || journalCorrupt || snapshotCorrupt || !snapBytes || report.migratedFrom !== null) this.compactLocked(true);
    report.seq = this.lastSeq;
    this.lastCheck = Date.now();
  }

  /** Migrates the open database (its records replayed): cached statements are freed first (VACUUM needs none). */
  private migrateOpen(): number | null {
    if (schemaVersionOf(this.db) >= SCHEMA_VERSION) return null;
    this.freeStatements();
    return this.migrate(this.db);
  }

  /** Runs forward migrations; returns the version migrated from, or null when none ran. */
  private migrate(db: Database): number | null {
    const from = schemaVersionOf(db);
    const todo = MIGRATIONS.filter((m) => m.version > from);
    if (!todo.length) return null;
    db.exec('BEGIN');
    try {
      for (const m of todo) for (const sql of m.up) db.exec(sql);
      db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", [String(SCHEMA_VERSION)]);
      db.exec('COMMIT');
    } catch (e) {
      db.exec('ROLLBACK');
      throw new MemoryError('E_INTERNAL', `schema migration from version ${from} failed: ${(e as Error).message}`);
    }
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    if (todo.some((m) => m.vacuum)) db.exec('VACUUM'); // a migration rebuilt tables: their old pages leave the file
    this.logger.info('store.migrated', { from, to: SCHEMA_VERSION });
    return from;
  }

  private applyPragmas(db: Database): void {
    // In WASM memory; durability from our journal. secure_delete: a forgotten text is zeroed, not left in free pages of the
    // next snapshot. recursive_triggers: a row INSERT OR REPLACE removes fires the DELETE triggers keeping schema v2's figures.
    db.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY; PRAGMA secure_delete = ON; PRAGMA recursive_triggers = ON');
    if (lazyFileOf(db)) db.exec(LAZY_PRAGMAS);
  }

  // ---------------------------------------------------------------------------------------------
  // journal tailing

  private reloadCount = 0;

  /**
   * Applies new journal records (other processes' writes). Under the lock it also cuts a torn tail.
   * Returns true when this process is in sync with the journal file (required before appending).
   */
  private catchUp(locked: boolean): boolean {
    if (this.closed) return false;
    this.lastCheck = Date.now();
    const st = statIno(this.journalPath);
    if (!st) {
      if (!locked) return false;
      // Deleted from outside: start a fresh journal after what we hold.
      writeFileAtomic(this.journalPath, encodeHeader(this.lastSeq));
      this.journalBase = this.lastSeq;
      this.journalOffset = JOURNAL_HEADER_BYTES;
      this.journalIno = statIno(this.journalPath)?.ino ?? -1;
      this.markJournalSeen();
      return true;
    }
    if (st.ino === this.journalIno && st.size === this.journalOffset && st.stamp === this.journalSeen) return !this.schemaTooNew;
    const header = decodeHeader(readTail(this.journalPath, 0).subarray(0, JOURNAL_HEADER_BYTES));
    if (!header) {
      if (!locked) return false;
      const aside = `${this.journalPath}.corrupt-${stamp(this.clock.now())}`;
      fs.renameSync(this.journalPath, aside);
      this.logger.error('store.journal_corrupt', { movedAside: path.basename(aside) });
      return this.catchUp(true);
    }
    if (header.baseSeq !== this.journalBase || st.ino !== this.journalIno || st.size < this.journalOffset) {
      // A compaction happened (here or elsewhere) or the file was replaced.
      if (header.baseSeq > this.lastSeq) return this.reloadSnapshot(locked);
      this.journalBase = header.baseSeq;
      this.journalOffset = JOURNAL_HEADER_BYTES;
      this.journalIno = st.ino;
    }
    const scan = scanRecords(readTail(this.journalPath, this.journalOffset), this.journalOffset);
    const res = this.applyRecords(scan.records, false);
    this.journalOffset = res.end ?? scan.validEnd;
    if (res.gap) return this.reloadSnapshot(locked);
    if (res.tooNew) return false;
    if (scan.badBytes > 0) {
      // Without the lock this may be an append in flight; only the lock holder may judge it torn.
      if (!locked) return false;
      truncateDurable(this.journalPath, scan.validEnd);
      this.logger.warn('store.torn_tail', { bytes: scan.badBytes });
    }
    this.markJournalSeen();
    return true;
  }

  /** Remembers the journal's identity as of journalOffset (nothing when the file is longer: more to read). */
  private markJournalSeen(): void {
    const st = statIno(this.journalPath);
    this.journalSeen = st && st.ino === this.journalIno && st.size === this.journalOffset ? st.stamp : '';
  }

  /**
   * Applies records in sequence order inside one transaction, each under its own savepoint.
   * `lenient` (open): gaps are accepted (records lost with a missing snapshot; flagged by the caller).
   */
  private applyRecords(records: RawRecord[], lenient: boolean): { applied: number; failed: number; gap: boolean; tooNew: boolean; end?: number } {
    let applied = 0;
    let failed = 0;
    const ids = new Set<string>();
    const changed = new Set<string>(); // for the recall index (not index-neutral in some record)
    const out = { applied: 0, failed: 0, gap: false, tooNew: false, end: undefined as number | undefined };
    const todo = records.filter((r) => r.seq > this.lastSeq);
    if (!todo.length) return out;
    this.db.exec('BEGIN');
    try {
      for (const r of todo) {
        if (recordSchema(r) > SCHEMA_VERSION) {
          if (!this.schemaTooNew) this.logger.error('store.record_too_new', { seq: r.seq, version: recordSchema(r) });
          this.schemaTooNew = true;
          out.tooNew = true;
          out.end = r.end - r.payload.length - RECORD_HEADER_BYTES;
          break;
        }
        if (r.seq !== this.lastSeq + 1 && !lenient) {
          out.gap = true;
          out.end = r.end - r.payload.length - RECORD_HEADER_BYTES;
          break;
        }
        this.db.exec('SAVEPOINT rec');
        try {
          const p = JSON.parse(recordJson(r)) as Payload;
          for (const [sql, params] of p.s) this.prep(sql).run(params.map(decodeParam));
          this.db.exec('RELEASE rec');
          for (const id of p.t) ids.add(id);
          for (const id of idsForIndex(p)) changed.add(id);
          applied++;
        } catch (e) {
          this.db.exec('ROLLBACK TO rec');
          this.db.exec('RELEASE rec');
          failed++;
          this.logger.error('store.record_failed', { seq: r.seq, error: (e as Error).name });
        }
        this.lastSeq = r.seq;
      }
      this.db.exec('COMMIT');
    } catch (e) {
      this.db.exec('ROLLBACK');
      throw e;
    }
    out.applied = applied;
    out.failed = failed;
    if (applied && !lenient) {
      const neutral = [...ids].filter((id) => !changed.has(id));
      this.changeEmitter.fire({ ids: [...ids], origin: 'remote', reloaded: false, ...(neutral.length ? { indexNeutral: neutral } : {}) });
    }
    return out;
  }

  /** Loads the current snapshot and the journal after it (our journal position was compacted away). */
  private reloadSnapshot(locked: boolean): boolean {
    for (let attempt = 0; attempt < 3; attempt++) {
      const bytes = readSnapshot(this.dbPath);
      if (!bytes) return false;
      let db: Database | undefined;
      try {
        db = new this.SQL.Database(bytes);
        const v = schemaVersionOf(db);
        if (v > SCHEMA_VERSION) {
          db.close();
          if (!this.schemaTooNew) this.logger.error('store.snapshot_too_new', { version: v });
          this.schemaTooNew = true;
          return false;
        }
      } catch {
        // Being replaced right now (cannot be: rename is atomic) or damaged: retry, then leave it to the next open.
        // Closed, or its file (bytes in memory, or a descriptor) would stay in sql.js's file system for good.
        try { db?.close(); } catch { /* already unusable */ }
        continue;
      }
      this.applyPragmas(db);
      const snapSeq = snapshotSeqOf(db);
      const jbuf = readTail(this.journalPath, 0);
      const header = decodeHeader(jbuf);
      if (!header || header.baseSeq > snapSeq) {
        db.close(); // a compaction is between its two renames: try again
        continue;
      }
      const scan = scanRecords(jbuf.subarray(JOURNAL_HEADER_BYTES), JOURNAL_HEADER_BYTES);
      this.closeDb();
      this.db = db;
      this.lastSeq = snapSeq;
      this.journalBase = header.baseSeq;
      this.journalIno = statIno(this.journalPath)?.ino ?? -1;
      const res = this.applyRecords(scan.records, false);
      this.migrateOpen(); // after the records, as at open (an older process's snapshot and journal)
      this.journalOffset = res.end ?? scan.validEnd;
      this.markJournalSeen();
      this.reloadCount++;
      this.logger.info('store.reloaded', { seq: this.lastSeq });
      this.changeEmitter.fire({ ids: [], origin: 'remote', reloaded: true });
      if (scan.badBytes > 0 && locked && res.end === undefined) {
        truncateDurable(this.journalPath, scan.validEnd);
        this.logger.warn('store.torn_tail', { bytes: scan.badBytes });
      }
      return !res.gap && !res.tooNew && (scan.badBytes === 0 || locked);
    }
    this.logger.warn('store.reload_deferred', { seq: this.lastSeq });
    return false;
  }

  private startWatching(): void {
    const poll = setInterval(() => this.refresh(), this.opts.pollMs ?? 1_000);
    poll.unref?.();
    this._register({ dispose: () => clearInterval(poll) });
    if (this.opts.watch === false) return;
    try {
      let queued = false;
      const w = fs.watch(this.dir, { persistent: false }, (_event, name) => {
        if (name && name !== JOURNAL_FILE) return;
        if (queued) return;
        queued = true;
        // Coalesce bursts of change events (one per append) into one catch-up.
        setTimeout(() => {
          queued = false;
          this.refresh();
        }, 20).unref?.();
      });
      w.on('error', () => w.close());
      this._register({ dispose: () => w.close() });
    } catch {
      /* some file systems cannot be watched: the poll covers it */
    }
  }

  // ---------------------------------------------------------------------------------------------
  // SQL access for the repositories

  private prep(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  private freeStatements(): void {
    for (const st of this.stmts.values()) {
      try { st.free(); } catch { /* freed by export */ }
    }
    this.stmts.clear();
  }

  private closeDb(): void {
    this.freeStatements();
    try {
      if (this.db) closeDatabase(this.db);
    } catch {
      /* already closed */
    }
  }

  private beforeRead(): void {
    if (this.closed) throw new MemoryError('E_CLOSED', 'the memory store is closed');
    if (this.readDepth === 0 && Date.now() - this.lastCheck >= this.readCheckMs) this.refresh();
  }

  private readonly reader: SqlReader = sqlReader({
    beforeRead: () => this.beforeRead(),
    prep: (sql) => this.prep(sql),
    prepareOwn: (sql) => this.db.prepare(sql),
    nest: (d) => { this.readDepth += d; },
  });
}

import * as assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isMemoryError } from '../../../src/engine/errors';
import { MemoryLogger } from '../../../src/engine/host';
import { ioError } from '../../../src/engine/store/fileLock';
import { JOURNAL_HEADER_BYTES, encodeRecord, scanRecords } from '../../../src/engine/store/journal';
import { loadSqlJs } from '../../../src/engine/store/sqlWasm';
import { Store, type StoreChange } from '../../../src/engine/store/store';
import { aFact, cleanupTempDirs, snapshotFiles, tempDir } from './helpers';

describe('store recovery', () => {
  const open: Store[] = [];
  async function openStore(dir: string, extra: Partial<Parameters<typeof Store.open>[0]> = {}) {
    const s = await Store.open({ dir, watch: false, pollMs: 60_000, ...extra });
    open.push(s);
    return s;
  }
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    cleanupTempDirs();
  });

  /** A store folder left as after a crash: snapshot with `inSnapshot` items, journal with `inJournal` more. */
  async function crashedStore(inSnapshot: number, inJournal: number): Promise<string> {
    const dir = tempDir();
    const s = await Store.open({ dir, watch: false });
    for (let i = 0; i < inSnapshot; i++) await s.transaction((tx) => tx.items.put(aFact({ id: `fa:s${i}` })));
    await s.compact();
    for (let i = 0; i < inJournal; i++) await s.transaction((tx) => tx.items.put(aFact({ id: `fa:j${i}` })));
    s.dispose(); // no close: the journal keeps its records, as after a crash
    return dir;
  }

  it('cuts a torn last record at every byte offset and keeps every record before it', async function () {
    this.timeout(120_000);
    const dir = await crashedStore(2, 2);
    const w = await Store.open({ dir, watch: false });
    await w.transaction((tx) => tx.counters.add('last', 1)); // a short last record keeps the loop quick
    w.dispose();
    const journalPath = path.join(dir, 'memory.journal');
    const full = fs.readFileSync(journalPath);
    const { records } = scanRecords(full.subarray(JOURNAL_HEADER_BYTES), JOURNAL_HEADER_BYTES);
    const lastStart = records[1].end;
    const snapshot = fs.readFileSync(path.join(dir, 'memory.db'));
    for (let cut = lastStart; cut < full.length; cut++) {
      fs.writeFileSync(journalPath, full.subarray(0, cut));
      fs.writeFileSync(path.join(dir, 'memory.db'), snapshot);
      const s = await Store.open({ dir, watch: false });
      try {
        assert.equal(s.openReport.tornBytes, cut - lastStart, `cut at ${cut}`);
        assert.equal(s.openReport.recoveredRecords, 2);
        assert.deepEqual(s.items.list({ kind: 'fact' }).map((i) => i.id).sort(), ['fa:j0', 'fa:j1', 'fa:s0', 'fa:s1']);
        assert.equal(s.counters.get('last'), 0);
        assert.equal(fs.statSync(journalPath).size, lastStart);
        // The repaired journal takes new writes after the cut (checked on a sample of cuts: each costs an fsync).
        if ((cut - lastStart) % 10 === 0) await s.transaction((tx) => tx.items.put(aFact({ id: 'fa:after' })));
      } finally {
        s.dispose();
      }
    }
  });

  it('cuts a corrupt byte in the middle of the last record and reports it', async () => {
    const dir = await crashedStore(0, 2);
    const journalPath = path.join(dir, 'memory.journal');
    const b = fs.readFileSync(journalPath);
    b[b.length - 5] ^= 0xff;
    fs.writeFileSync(journalPath, b);
    const logger = new MemoryLogger();
    const s = await openStore(dir, { logger });
    assert.ok(s.openReport.tornBytes > 0);
    assert.equal(s.items.has('fa:j0'), true);
    assert.equal(s.items.has('fa:j1'), false);
    assert.ok(logger.lines.some((l) => l.event === 'store.torn_tail'));
  });

  it('moves an unreadable snapshot aside, rebuilds from the journal and asks for a re-index', async () => {
    const dir = await crashedStore(2, 2);
    const garbage = Buffer.from('this is not a SQLite file at all '.repeat(200));
    fs.writeFileSync(path.join(dir, 'memory.db'), garbage);
    const s = await openStore(dir);
    const r = s.openReport;
    assert.ok(r.snapshotMovedAside && path.basename(r.snapshotMovedAside).startsWith('memory.db.corrupt-'));
    assert.deepEqual(fs.readFileSync(r.snapshotMovedAside!), garbage);
    assert.equal(r.needsReindex, true);
    assert.equal(r.recoveredRecords, 2);
    assert.deepEqual(s.items.list().map((i) => i.id).sort(), ['fa:j0', 'fa:j1']);
    // A fresh, valid snapshot is in place again.
    await s.close();
    const again = await openStore(dir);
    assert.equal(again.openReport.needsReindex, false);
    assert.equal(again.items.count(), 2);
  });

  it('refuses a snapshot from a newer schema and leaves every file byte-identical', async () => {
    const dir = await crashedStore(1, 1);
    const SQL = await loadSqlJs();
    const db = new SQL.Database(fs.readFileSync(path.join(dir, 'memory.db')));
    db.exec("PRAGMA user_version = 99; UPDATE meta SET value = '99' WHERE key = 'schema_version'");
    fs.writeFileSync(path.join(dir, 'memory.db'), db.export());
    db.close();
    const before = snapshotFiles(dir);
    await assert.rejects(Store.open({ dir, watch: false }), (e) => isMemoryError(e, 'E_SCHEMA_NEWER') && /version 99/.test((e as Error).message));
    assert.deepEqual(snapshotFiles(dir), before);
  });

  it('refuses a journal written by a newer schema and leaves every file byte-identical', async () => {
    const dir = await crashedStore(1, 1);
    const journalPath = path.join(dir, 'memory.journal');
    const b = fs.readFileSync(journalPath);
    const { records } = scanRecords(b.subarray(JOURNAL_HEADER_BYTES), JOURNAL_HEADER_BYTES);
    const start = records[0].end - records[0].payload.length - 24;
    fs.writeFileSync(journalPath, Buffer.concat([b.subarray(0, start), encodeRecord(records[0].seq, 42, records[0].payload)]));
    const before = snapshotFiles(dir);
    await assert.rejects(Store.open({ dir, watch: false }), (e) => isMemoryError(e, 'E_SCHEMA_NEWER'));
    assert.deepEqual(snapshotFiles(dir), before);
  });

  it('fails with E_WASM_MISSING, not a dead process, when the wasm file is missing or not wasm', async () => {
    const dir = tempDir();
    await assert.rejects(Store.open({ dir, wasmPath: path.join(dir, 'nope', 'sql-wasm.wasm') }), (e) => isMemoryError(e, 'E_WASM_MISSING'));
    const fake = path.join(dir, 'fake.wasm');
    fs.writeFileSync(fake, 'not wasm at all');
    await assert.rejects(Store.open({ dir, wasmPath: fake }), (e) => isMemoryError(e, 'E_WASM_MISSING'));
  });

  it('reports a read-only store folder as E_READ_ONLY', async function () {
    if (process.platform === 'win32' || process.getuid?.() === 0) {
      // Root ignores directory permissions, and no read-only mount is ours to use here.
      this.skip();
    }
    const dir = tempDir();
    const s = await Store.open({ dir, watch: false });
    await s.close();
    fs.chmodSync(dir, 0o555);
    try {
      await assert.rejects(Store.open({ dir, watch: false }), (e) => isMemoryError(e, 'E_READ_ONLY'));
      await assert.rejects(Store.open({ dir: path.join(dir, 'sub'), watch: false }), (e) => isMemoryError(e, 'E_READ_ONLY'));
    } finally {
      fs.chmodSync(dir, 0o755);
    }
  });

  it('maps permission and read-only file-system errors to E_READ_ONLY', () => {
    for (const code of ['EACCES', 'EPERM', 'EROFS']) {
      const e = Object.assign(new Error('x'), { code });
      assert.ok(isMemoryError(ioError(e, 'testing'), 'E_READ_ONLY'), code);
    }
    assert.equal(isMemoryError(ioError(Object.assign(new Error('x'), { code: 'ENOSPC' }), 'testing')), false);
  });

  it('works in a folder whose path has spaces and non-ASCII characters', async () => {
    const dir = path.join(tempDir(), 'Ünïcödé päth 日本語 🙂', 'global storage');
    const s = await openStore(dir);
    await s.transaction((tx) => tx.items.put(aFact({ id: 'vt:notes/Grüße an alle.md', text: 'ok' })));
    await s.close();
    const again = await openStore(dir);
    assert.equal(again.items.get('vt:notes/Grüße an alle.md')?.text, 'ok');
  });

  it('breaks a lock left by a dead process and opens', async () => {
    const dir = await crashedStore(0, 1);
    const child = fork('-e', [''], { execArgv: [] });
    const deadPid = child.pid!;
    await new Promise((r) => child.on('exit', r));
    fs.writeFileSync(path.join(dir, 'memory.lock'), JSON.stringify({ pid: deadPid, host: os.hostname(), at: Date.now(), token: 'dead' }));
    const logger = new MemoryLogger();
    const s = await openStore(dir, { logger });
    assert.equal(s.items.has('fa:j0'), true);
    assert.ok(logger.lines.some((l) => l.event === 'store.lock_broken'));
    assert.equal(fs.existsSync(path.join(dir, 'memory.lock')), false);
  });

  it('breaks an empty lock file left by a process killed while creating it', async () => {
    const dir = await crashedStore(0, 1);
    const lock = path.join(dir, 'memory.lock');
    fs.writeFileSync(lock, '');
    const old = new Date(Date.now() - 10_000);
    fs.utimesSync(lock, old, old);
    const s = await openStore(dir);
    assert.equal(s.items.has('fa:j0'), true);
  });

  it('breaks a lock older than the stale timeout even when its pid is alive', async () => {
    const dir = await crashedStore(0, 1);
    const lock = path.join(dir, 'memory.lock');
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: os.hostname(), at: 0, token: 'old' }));
    const old = new Date(Date.now() - 120_000);
    fs.utimesSync(lock, old, old);
    const s = await openStore(dir, { lockStaleMs: 30_000 });
    assert.equal(s.items.has('fa:j0'), true);
  });

  it('lets a store notice a compaction by another and reload from the new snapshot', async () => {
    const dir = tempDir();
    const a = await openStore(dir, { readCheckMs: 0 });
    const b = await openStore(dir, { readCheckMs: 0 });
    const events: StoreChange[] = [];
    a.onDidChange((e) => events.push(e));
    await a.transaction((tx) => tx.items.put(aFact({ id: 'fa:a1' })));
    await b.transaction((tx) => tx.items.put(aFact({ id: 'fa:b1' })));
    await b.compact();
    await b.transaction((tx) => tx.items.put(aFact({ id: 'fa:b2' })));
    await b.compact();
    await b.transaction((tx) => tx.items.put(aFact({ id: 'fa:b3' })));
    // a's journal position is gone: it must reload the snapshot, then replay b3.
    assert.deepEqual(a.items.list().map((i) => i.id).sort(), ['fa:a1', 'fa:b1', 'fa:b2', 'fa:b3']);
    assert.ok(events.some((e) => e.reloaded));
    // And a's own next write lands after b's records for both.
    await a.transaction((tx) => tx.items.put(aFact({ id: 'fa:a2' })));
    assert.equal(b.items.count(), 5);
    assert.equal(a.seq, b.seq);
  });

  it('is not fooled by a journal that another store replaced with one of the same inode and length', async function () {
    this.timeout(30_000);
    // Two compactions by another process can leave the journal on a reused inode with the same length as this
    // store last read (a new header plus one record of the same size). Inode and size alone would say "unchanged":
    // this store would miss the other's records and append under sequence numbers the new journal already holds.
    const dir = tempDir();
    const journal = path.join(dir, 'memory.journal');
    const a = await openStore(dir, { readCheckMs: 0 });
    const b = await openStore(dir, { readCheckMs: 0 });
    const same = { text: 'The staging database host is db-staging-7.', created: 1_700_000_000_000 };
    await a.transaction((tx) => tx.items.put(aFact({ id: 'fa:a01', ...same })));
    const seenByA = fs.statSync(journal);
    const keep = `${journal}.keep`;
    fs.linkSync(journal, keep); // holds a's journal inode so that it can come back
    await b.transaction((tx) => tx.items.put(aFact({ id: 'fa:b1' })));
    await b.compact();
    // Records are deflated, so their length depends on their text: compact and write until one has a's length.
    const ids = ['fa:b1'];
    for (let k = 2; k < 100 && fs.statSync(journal).size !== seenByA.size; k++) {
      const id = `fa:a${String(k).padStart(2, '0')}`;
      await b.compact();
      ids.push(id);
      await b.transaction((tx) => tx.items.put(aFact({ id, ...same })));
    }
    const replaced = fs.readFileSync(journal);
    assert.equal(replaced.length, seenByA.size, 'precondition: the new journal has the length a last read');
    fs.writeFileSync(keep, replaced); // same inode, new bytes
    fs.renameSync(keep, journal);
    assert.equal(fs.statSync(journal).ino, seenByA.ino, 'precondition: the inode a knows');
    assert.deepEqual(a.items.list().map((i) => i.id).sort(), ['fa:a01', ...ids].sort());
    await a.transaction((tx) => tx.items.put(aFact({ id: 'fa:a2' })));
    assert.equal(b.items.has('fa:a2'), true, 'a\'s write landed after b\'s records, where b reads it');
    assert.equal(a.seq, b.seq);
  });

  it('picks up another store\'s write by itself through its poll', async () => {
    const dir = tempDir();
    const a = await openStore(dir, { pollMs: 50 });
    const b = await openStore(dir);
    const changed = new Promise<StoreChange>((resolve) => a.onDidChange(resolve));
    await b.transaction((tx) => tx.items.put(aFact({ id: 'fa:polled' })));
    assert.deepEqual((await changed).ids, ['fa:polled']);
    assert.equal(a.items.has('fa:polled'), true);
  });

  it('picks up another store\'s write by itself through the folder watcher', async () => {
    const dir = tempDir();
    const a = await openStore(dir, { watch: true, pollMs: 60_000 });
    const b = await openStore(dir);
    const changed = new Promise<StoreChange>((resolve) => a.onDidChange(resolve));
    await b.transaction((tx) => tx.items.put(aFact({ id: 'fa:watched' })));
    assert.deepEqual((await changed).ids, ['fa:watched']);
  });

  it('delivers another store\'s writes as remote changes with their ids', async () => {
    const dir = tempDir();
    const a = await openStore(dir);
    const b = await openStore(dir);
    const events: StoreChange[] = [];
    a.onDidChange((e) => events.push(e));
    await b.transaction((tx) => tx.items.put(aFact({ id: 'fa:remote' })));
    assert.equal(a.refresh(), true);
    assert.deepEqual(events, [{ ids: ['fa:remote'], origin: 'remote', reloaded: false }]);
  });
});

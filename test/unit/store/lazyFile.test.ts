// A snapshot read on demand (src/engine/store/lazyFile.ts, the lazy patches in sqlJsPatched.ts): the file
// behaves byte for byte like the same bytes in memory under any mix of reads, writes and truncations; the
// snapshot on disk is never written; SQLite runs on it (integrity, same rows as an in-memory twin, VACUUM);
// a store past the threshold holds only the pages written since its snapshot (a new store from its first
// snapshot past the threshold on), compacts by streaming, and reopens with every row; a process that reads a snapshot another process then replaces keeps its bytes.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { LAZY_PAGE, LazyFile, overlayMemoryBytes } from '../../../src/engine/store/lazyFile';
import { lazyFileOf, openSnapshot } from '../../../src/engine/store/sqlJsPatched';
import { loadSqlJs } from '../../../src/engine/store/sqlWasm';
import { Store } from '../../../src/engine/store/store';
import { prng } from '../../../src/engine/prng';
import { cleanupAndRestoreLazyFrom, tempDir } from './helpers';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A twin of MEMFS's plain array: what the lazy file must read like. */
class Model {
  bytes = new Uint8Array(0);
  constructor(init: Uint8Array) {
    this.bytes = init.slice();
  }
  write(src: Uint8Array, pos: number): void {
    if (pos + src.length > this.bytes.length) {
      const next = new Uint8Array(pos + src.length);
      next.set(this.bytes);
      this.bytes = next;
    }
    this.bytes.set(src, pos);
  }
  truncate(n: number): void {
    const next = new Uint8Array(n);
    next.set(this.bytes.subarray(0, Math.min(n, this.bytes.length)));
    this.bytes = next;
  }
}

function readAll(lz: LazyFile): Uint8Array {
  const out = new Uint8Array(lz.size);
  assert.equal(lz.read(out, 0, out.length, 0), lz.size);
  return out;
}

/**
 * `steps` random writes (some past the end: a gap of zeros), truncations and reads on `lz` and `model` alike; every
 * read must equal the model's bytes. `after(step)` runs after each step.
 */
function exercise(lz: LazyFile, model: Model, rnd: () => number, steps: number, writeShare: number, after?: (step: number) => void): void {
  for (let step = 0; step < steps; step++) {
    const op = rnd();
    const size = model.bytes.length;
    if (op < writeShare) {
      const len = 1 + Math.floor(rnd() * LAZY_PAGE * 3);
      const pos = Math.floor(rnd() * (size + LAZY_PAGE * 2));
      const src = new Uint8Array(len).map(() => Math.floor(rnd() * 256));
      const padded = new Uint8Array(len + 7);
      padded.set(src, 3); // an offset into the source, as MEMFS passes it
      assert.equal(lz.write(padded, 3, len, pos), Math.max(size, pos + len));
      model.write(src, pos);
    } else if (op < writeShare + 0.08) {
      const n = Math.floor(rnd() * (size + LAZY_PAGE));
      lz.truncate(n);
      model.truncate(n);
    } else {
      const pos = Math.floor(rnd() * (size + 10));
      const len = Math.floor(rnd() * LAZY_PAGE * 4);
      const dst = new Int8Array(len + 5); // sql.js reads into its Int8Array heap
      const got = lz.read(dst, 5, len, pos);
      const want = model.bytes.subarray(Math.min(pos, size), Math.min(pos + len, size));
      assert.equal(got, want.length, `step ${step}: read length`);
      assert.deepEqual(new Uint8Array(dst.buffer, 5, got), want, `step ${step}: read bytes`);
    }
    assert.equal(lz.size, model.bytes.length);
    after?.(step);
  }
}

describe('store: a snapshot read on demand (LazyFile)', () => {
  afterEach(cleanupAndRestoreLazyFrom());

  it('reads like the same bytes in memory under random writes, reads and truncations; the base file is never written', () => {
    const dir = tempDir();
    const rnd = prng(16);
    const base = new Uint8Array(LAZY_PAGE * 9 + 1234).map(() => Math.floor(rnd() * 256));
    const file = path.join(dir, 'base.db');
    writeFileSync(file, base);
    const before = sha(readFileSync(file));
    const lz = new LazyFile(file);
    const model = new Model(base);
    exercise(lz, model, rnd, 600, 0.45);
    assert.deepEqual(readAll(lz), model.bytes);
    assert.equal(sha(readFileSync(file)), before, 'the snapshot on disk was only read');
    // Streamed to a new file and rebased on it: same bytes, no overlay left.
    const next = path.join(dir, 'next.db');
    const fd = openSync(next, 'w');
    assert.equal(lz.writeTo(fd), model.bytes.length);
    closeSync(fd);
    assert.deepEqual(new Uint8Array(readFileSync(next)), model.bytes);
    assert.ok(lz.dirtyPages > 0);
    const slabs = lz.slabBuffers();
    assert.ok(slabs.length > 0 && slabs.every((b) => b.byteLength === 1 << 20));
    lz.rebase(next);
    assert.equal(lz.dirtyPages, 0);
    assert.equal(lz.overlayBytes, 0);
    assert.ok(slabs.every((b) => b.byteLength === 0), "the overlay's memory is handed back at once, not at a later GC");
    assert.deepEqual(readAll(lz), model.bytes);
    lz.truncate(100);
    lz.truncate(LAZY_PAGE * 2);
    assert.deepEqual(readAll(lz).subarray(100), new Uint8Array(LAZY_PAGE * 2 - 100), 'cut and grown back: zeros, not the old bytes');
    lz.close();
    assert.throws(() => lz.read(new Uint8Array(10), 0, 10, 0), /EBADF|bad file/i, 'closed: its descriptor is gone');
  });

  it('SQLite runs on it: the same rows as an in-memory twin after inserts, updates, deletes and VACUUM; integrity ok', async function () {
    this.timeout(60_000);
    const SQL = await loadSqlJs();
    const dir = tempDir();
    const seed = new SQL.Database();
    seed.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT UNIQUE, b BLOB)');
    seed.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t SELECT i, 'k' || i, randomblob(1500) FROM n");
    const file = path.join(dir, 'memory.db');
    writeFileSync(file, seed.export());
    const onDisk = sha(readFileSync(file));
    const twin = new SQL.Database(readFileSync(file));
    process.env.MEMORY_STORE_LAZY_FROM = '0';
    const lazy = new SQL.Database(openSnapshot(file)!);
    const lz = lazyFileOf(lazy);
    assert.ok(lz, 'opened on demand');
    const both = (sql: string) => {
      twin.exec(sql);
      lazy.exec(sql);
    };
    const rows = (db: Database) => db.exec('SELECT count(*), sum(id), sum(length(b)), group_concat(hex(substr(b, 1, 4))) FROM t')[0]!.values[0];
    assert.deepEqual(rows(lazy), rows(twin));
    both("UPDATE t SET b = randomblob(10) WHERE id % 3 = 0; DELETE FROM t WHERE id % 5 = 0; INSERT INTO t (k, b) VALUES ('new', zeroblob(70000))");
    both('UPDATE t SET b = x\'00112233\' WHERE id % 7 = 0'); // randomblob differs between the twins: overwrite what is compared
    both('UPDATE t SET b = zeroblob(length(b))');
    assert.deepEqual(rows(lazy), rows(twin));
    assert.ok(lz.dirtyPages > 0 && lz.dirtyPages * LAZY_PAGE < lz.size, 'holds the changed pages only');
    both('VACUUM');
    assert.deepEqual(rows(lazy), rows(twin));
    assert.equal(lazy.exec('PRAGMA integrity_check')[0]!.values[0]![0], 'ok');
    assert.equal(lz.size, twin.export().length, 'VACUUM truncated the lazy file as it did the in-memory one');
    assert.equal(sha(readFileSync(file)), onDisk, 'the snapshot on disk was never written');
    lazy.close();
    assert.equal(lz.closed, true, 'closing the database closes its file');
    twin.close();
    seed.close();
  });

  it('a store past the threshold holds only what changed, compacts by streaming and reopens with every row', async function () {
    this.timeout(120_000);
    process.env.MEMORY_STORE_LAZY_FROM = String(1 << 20);
    const dir = tempDir();
    const text = (i: number) => `fact ${i} ` + 'abcdefghij'.repeat(40 + (i % 17));
    const put = async (s: Store, from: number, n: number) => {
      for (let i = from; i < from + n; i += 200) {
        await s.transaction((tx) => { for (let k = i; k < Math.min(from + n, i + 200); k++) tx.items.put({ id: `fa:f${k}`, kind: 'fact', text: text(k), created: 1_000 + k }); });
      }
    };
    let s = await Store.open({ dir, watch: false });
    const fresh = (s as unknown as { db: Database }).db;
    await put(s, 0, 5_000);
    assert.equal(lazyFileOf(fresh), undefined, 'a new store starts in memory');
    assert.equal(await s.compact(), true);
    const switched = lazyFileOf(fresh);
    assert.ok(switched, 'past the threshold, the first snapshot is read on demand from then on');
    assert.equal(switched.dirtyPages, 0);
    assert.equal(s.items.get('fa:f4999')!.text, text(4_999));
    await put(s, 5_000, 1_000);
    assert.ok(switched.dirtyPages > 0);
    await s.close();
    assert.equal(switched.closed, true);
    const size1 = statSync(path.join(dir, 'memory.db')).size;
    assert.ok(size1 > 1 << 20, `snapshot ${size1} bytes`);

    s = await Store.open({ dir, watch: false });
    const db = (s as unknown as { db: Database }).db;
    const lz = lazyFileOf(db)!;
    assert.ok(lz, 'a snapshot past the threshold is read on demand');
    db.export = () => { throw new Error('export() was called'); };
    assert.equal(s.items.get('fa:f4321')!.text, text(4321));
    await put(s, 6_000, 500);
    assert.ok(lz.dirtyPages > 0 && lz.dirtyPages * LAZY_PAGE < size1 / 2, `${lz.dirtyPages} pages written, not the file`);
    assert.equal(await s.compact(), true);
    assert.equal(lz.dirtyPages, 0, 'after the snapshot it reads from the new file');
    assert.equal(s.items.get('fa:f6499')!.text, text(6_499));
    await put(s, 6_500, 10);
    await s.close();
    assert.equal(lz.closed, true);

    // The snapshot on disk opened by plain sql.js: intact and complete; the journal tail replays on reopen.
    const SQL = await loadSqlJs();
    const plain = new SQL.Database(readFileSync(path.join(dir, 'memory.db')));
    assert.equal(plain.exec('PRAGMA integrity_check')[0]!.values[0]![0], 'ok');
    assert.ok(Number(plain.exec("SELECT count(*) FROM items WHERE kind = 'fact'")[0]!.values[0]![0]) >= 6_500);
    plain.close();
    s = await Store.open({ dir, watch: false });
    assert.equal(s.items.get('fa:f6509')!.text, text(6_509));
    assert.equal(s.items.get('fa:f0')!.text, text(0));
    await s.close();
  });

  it('a reader keeps its snapshot when another process replaces it, and catches up from the new one', async function () {
    this.timeout(120_000);
    process.env.MEMORY_STORE_LAZY_FROM = String(1 << 20);
    const dir = tempDir();
    const a = await Store.open({ dir, watch: false });
    await a.transaction((tx) => { for (let k = 0; k < 4_000; k++) tx.items.put({ id: `fa:a${k}`, kind: 'fact', text: `alpha ${k} `.repeat(30), created: 1 + k }); });
    await a.compact();
    const b = await Store.open({ dir, watch: false });
    assert.ok(lazyFileOf((b as unknown as { db: Database }).db), 'b reads the snapshot on demand');
    const inoBefore = statSync(path.join(dir, 'memory.db')).ino;
    await a.transaction((tx) => { for (let k = 0; k < 2_000; k++) tx.items.put({ id: `fa:b${k}`, kind: 'fact', text: `beta ${k} `.repeat(30), created: 10_000 + k }); });
    await a.compact(); // a new file renamed over the one b reads
    assert.notEqual(statSync(path.join(dir, 'memory.db')).ino, inoBefore);
    assert.equal(b.items.get('fa:a3999')!.text, `alpha 3999 `.repeat(30), 'b still reads its own (replaced) snapshot');
    b.refresh();
    assert.equal(b.items.get('fa:b1999')!.text, `beta 1999 `.repeat(30), 'and catches up');
    await a.close();
    await b.close();
  });

  describe('its memory is bounded: past it the least recently written pages go to a spill file', () => {
    const restoreOverlay = (): (() => void) => {
      const start = process.env.MEMORY_STORE_OVERLAY_BYTES;
      return () => {
        if (start === undefined) delete process.env.MEMORY_STORE_OVERLAY_BYTES;
        else process.env.MEMORY_STORE_OVERLAY_BYTES = start;
      };
    };

    it('holds at most 128 MiB of written pages by default; MEMORY_STORE_OVERLAY_BYTES sets another bound or none', () => {
      const restore = restoreOverlay();
      try {
        delete process.env.MEMORY_STORE_OVERLAY_BYTES;
        assert.equal(overlayMemoryBytes(), 128 * 1024 * 1024);
        process.env.MEMORY_STORE_OVERLAY_BYTES = String(64 * 1024 * 1024);
        assert.equal(overlayMemoryBytes(), 64 * 1024 * 1024);
        process.env.MEMORY_STORE_OVERLAY_BYTES = 'Infinity';
        assert.equal(overlayMemoryBytes(), Infinity, 'unbounded when asked for');
        for (const bad of ['', '0', '-5', 'lots']) {
          process.env.MEMORY_STORE_OVERLAY_BYTES = bad;
          assert.equal(overlayMemoryBytes(), 128 * 1024 * 1024, `"${bad}" keeps the default`);
        }
      } finally {
        restore();
      }
    });

    it('reads like the same bytes in memory with 3 pages in memory under random writes, reads and truncations; no spill file is left in the folder', () => {
      const dir = tempDir();
      const rnd = prng(61);
      const base = new Uint8Array(LAZY_PAGE * 12 + 321).map(() => Math.floor(rnd() * 256));
      const file = path.join(dir, 'base.db');
      writeFileSync(file, base);
      const before = sha(readFileSync(file));
      const lz = new LazyFile(file, { memoryBytes: 3 * LAZY_PAGE });
      const model = new Model(base);
      let maxSpilled = 0;
      exercise(lz, model, rnd, 1500, 0.5, (step) => {
        assert.ok(lz.dirtyPages - lz.spilledPages <= 3, `step ${step}: ${lz.dirtyPages - lz.spilledPages} pages in memory`);
        maxSpilled = Math.max(maxSpilled, lz.spilledPages);
      });
      assert.ok(maxSpilled > 3 && lz.spillWritePages > maxSpilled, `spilled up to ${maxSpilled} pages, ${lz.spillWritePages} moves`);
      assert.deepEqual(readAll(lz), model.bytes);
      assert.deepEqual(readdirSync(dir), ['base.db'], 'the spill file has no name while it is open');
      const next = path.join(dir, 'next.db');
      const fd = openSync(next, 'w');
      assert.equal(lz.writeTo(fd), model.bytes.length);
      closeSync(fd);
      assert.deepEqual(new Uint8Array(readFileSync(next)), model.bytes, 'the snapshot streamed from base, memory and spill file');
      lz.rebase(next);
      assert.equal(lz.dirtyPages, 0);
      assert.equal(lz.spilledPages, 0);
      assert.deepEqual(readAll(lz), model.bytes);
      lz.write(new Uint8Array(LAZY_PAGE * 6).fill(7), 0, LAZY_PAGE * 6, 0); // spills again after a rebase
      model.write(new Uint8Array(LAZY_PAGE * 6).fill(7), 0);
      assert.ok(lz.spilledPages > 0);
      assert.deepEqual(readAll(lz), model.bytes);
      lz.close();
      assert.equal(sha(readFileSync(file)), before, 'the snapshot on disk was only read');
      assert.deepEqual(readdirSync(dir).sort(), ['base.db', 'next.db']);
    });

    it('SQLite runs on it with 8 pages in memory: the same rows as an in-memory twin, integrity ok', async function () {
      this.timeout(60_000);
      const restore = restoreOverlay();
      try {
        const SQL = await loadSqlJs();
        const dir = tempDir();
        const seed = new SQL.Database();
        seed.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT UNIQUE, b BLOB)');
        seed.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t SELECT i, 'k' || i, randomblob(1500) FROM n");
        const file = path.join(dir, 'memory.db');
        writeFileSync(file, seed.export());
        const twin = new SQL.Database(readFileSync(file));
        process.env.MEMORY_STORE_LAZY_FROM = '0';
        process.env.MEMORY_STORE_OVERLAY_BYTES = String(8 * LAZY_PAGE);
        const lazy = new SQL.Database(openSnapshot(file)!);
        lazy.exec('PRAGMA cache_size = 4'); // SQLite's own cache small too: the pages are read back from the spill file
        const lz = lazyFileOf(lazy)!;
        const both = (sql: string) => {
          twin.exec(sql);
          lazy.exec(sql);
        };
        const rows = (db: Database) => db.exec('SELECT count(*), sum(id), sum(length(b)), group_concat(k), group_concat(hex(substr(b, 1, 4))) FROM t')[0]!.values[0];
        both("UPDATE t SET b = x'0102' || substr(b, 3) WHERE id % 3 = 0; DELETE FROM t WHERE id % 5 = 0");
        both("INSERT INTO t (k, b) SELECT 'n' || id, substr(b, 1, 900) FROM t WHERE id % 2 = 0");
        assert.ok(lz.spilledPages > 100, `${lz.spilledPages} pages spilled`);
        assert.ok(lz.dirtyPages - lz.spilledPages <= 8);
        assert.deepEqual(rows(lazy), rows(twin));
        assert.equal(lazy.exec('PRAGMA integrity_check')[0]!.values[0]![0], 'ok');
        both('VACUUM');
        assert.deepEqual(rows(lazy), rows(twin));
        assert.equal(lazy.exec('PRAGMA integrity_check')[0]!.values[0]![0], 'ok');
        lazy.close();
        twin.close();
        seed.close();
        assert.deepEqual(readdirSync(dir), ['memory.db']);
      } finally {
        restore();
      }
    });

    it('a store whose overlay spills compacts by streaming and reopens with every row', async function () {
      this.timeout(120_000);
      const restore = restoreOverlay();
      try {
        process.env.MEMORY_STORE_LAZY_FROM = String(1 << 20);
        process.env.MEMORY_STORE_OVERLAY_BYTES = String(16 * LAZY_PAGE);
        const dir = tempDir();
        const text = (i: number) => `fact ${i} ` + 'klmnopqrst'.repeat(30 + (i % 13));
        const put = async (s: Store, from: number, n: number) => {
          for (let i = from; i < from + n; i += 250) {
            await s.transaction((tx) => { for (let k = i; k < Math.min(from + n, i + 250); k++) tx.items.put({ id: `fa:g${(k * 7919) % 100_003}`, kind: 'fact', text: text(k), created: 1_000 + k }); });
          }
        };
        let s = await Store.open({ dir, watch: false });
        await put(s, 0, 5_000);
        assert.equal(await s.compact(), true);
        const lz = lazyFileOf((s as unknown as { db: Database }).db)!;
        assert.ok(lz);
        await put(s, 5_000, 2_000);
        assert.ok(lz.spilledPages > 50, `${lz.spilledPages} pages spilled`);
        assert.ok(lz.overlayBytes <= 1 << 20, `${lz.overlayBytes} bytes in memory`);
        assert.equal(s.items.get(`fa:g${(6_999 * 7919) % 100_003}`)!.text, text(6_999));
        assert.equal(await s.compact(), true);
        assert.equal(lz.dirtyPages, 0);
        await put(s, 7_000, 300);
        await s.close();
        const SQL = await loadSqlJs();
        const plain = new SQL.Database(readFileSync(path.join(dir, 'memory.db')));
        assert.equal(plain.exec('PRAGMA integrity_check')[0]!.values[0]![0], 'ok');
        plain.close();
        s = await Store.open({ dir, watch: false });
        for (const k of [0, 1_234, 4_999, 5_000, 6_543, 7_299]) assert.equal(s.items.get(`fa:g${(k * 7919) % 100_003}`)!.text, text(k), `fact ${k}`);
        assert.equal(s.items.count(), 7_300);
        await s.close();
        assert.deepEqual(readdirSync(dir).filter((f) => f.includes('spill')), []);
      } finally {
        restore();
      }
    });
  });
});

// sql.js with its in-memory file grown in place and read without a copy (src/engine/store/sqlJsPatched.ts):
// the pinned sql.js takes every patch, a large database grows and shrinks inside one buffer, the live file
// is the database export() would write, and a store larger than the threshold compacts from it and
// reopens with every row.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Database } from 'sql.js';
import { closeDatabase, growableBytes, liveSnapshotBytes, memfsResize, patchSqlJs, RESIZABLE_FROM, SQLJS_PATCHES, sqlJsPatchState } from '../../../src/engine/store/sqlJsPatched';
import { loadSqlJs } from '../../../src/engine/store/sqlWasm';
import { Store } from '../../../src/engine/store/store';
import { cleanupAndRestoreLazyFrom, tempDir } from './helpers';

/**
 * Bytes that differ between the live file and export()'s copy: none but the header's change counters (24–27,
 * 92–95) and schema cookie (40–43), which SQLite's backup sets anew in the copy it writes.
 */
function differences(live: Uint8Array, exported: Uint8Array): number[] {
  assert.equal(live.length, exported.length, 'same length');
  const out: number[] = [];
  for (let i = 0; i < live.length; i++) if (live[i] !== exported[i] && !((i >= 24 && i < 28) || (i >= 40 && i < 44) || (i >= 92 && i < 96))) out.push(i);
  return out;
}

function fileOf(db: Database): Uint8Array {
  const live = liveSnapshotBytes(db);
  assert.ok(live, 'the patched sql.js hands out the live file');
  return live;
}

describe('store: sql.js patched to grow its file in place and hand it out without a copy', () => {
  afterEach(cleanupAndRestoreLazyFrom());

  it('the pinned sql.js takes every patch; another build runs unpatched and says which text it lacks', async () => {
    await loadSqlJs();
    const state = sqlJsPatchState()!;
    assert.deepEqual(state.applied, SQLJS_PATCHES.map((p) => p.name));
    assert.deepEqual(state.missing, []);
    assert.equal(state.resizable, true, 'Node 20 and later have resizable ArrayBuffers');
    const src = readFileSync(state.file, 'utf8');
    const changed = src.replace(SQLJS_PATCHES[1].find, 'a.Za!=b&&somethingElse()');
    const r = patchSqlJs(changed);
    assert.deepEqual(r.missing, ['truncate']);
    assert.deepEqual(r.applied, []);
    assert.equal(r.src, changed, 'all or nothing: no patch applied when one is missing');
    assert.deepEqual(patchSqlJs(src + SQLJS_PATCHES[0].find).missing, ['grow'], 'a text found twice is not patched either');
  });

  it('memfsResize: a resizable buffer grows and shrinks in place; a small array is copied as sql.js always did', () => {
    const big = growableBytes(RESIZABLE_FROM + 10);
    big[5] = 7;
    big[RESIZABLE_FROM + 9] = 9;
    const grown = memfsResize(big, RESIZABLE_FROM + 10, RESIZABLE_FROM + 4096);
    assert.ok(grown.buffer === big.buffer, 'the same buffer');
    assert.equal(grown.length, RESIZABLE_FROM + 4096);
    assert.equal(grown[5], 7);
    assert.equal(grown[RESIZABLE_FROM + 9], 9);
    assert.equal(grown[RESIZABLE_FROM + 10], 0, 'new bytes are zero');
    const shrunk = memfsResize(grown, grown.length, 100);
    assert.ok(shrunk.buffer === big.buffer);
    assert.equal(shrunk.length, 100);
    assert.equal(memfsResize(shrunk, 100, 200)[150], 0, 'bytes cut off and grown back are zero');
    const small = new Uint8Array([1, 2, 3]);
    const copied = memfsResize(small, 3, 8);
    assert.ok(copied.buffer !== small.buffer);
    assert.deepEqual([...copied], [1, 2, 3, 0, 0, 0, 0, 0]);
    const crossing = memfsResize(copied, 3, RESIZABLE_FROM);
    assert.equal((crossing.buffer as ArrayBuffer & { resizable?: boolean }).resizable, true, 'a file that reaches the threshold moves into a resizable buffer once');
    assert.deepEqual([...crossing.subarray(0, 4)], [1, 2, 3, 0]);
    assert.ok(!(growableBytes(1000).buffer as ArrayBuffer & { resizable?: boolean }).resizable, 'a small file gets a plain array');
  });

  it('a database past the threshold grows, shrinks (VACUUM) and reopens inside one buffer; its live file is what export() writes', async function () {
    this.timeout(60_000);
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB)');
    const insert = (from: number, n: number) => db.exec(`WITH RECURSIVE k(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM k WHERE i < ${from + n - 1}) INSERT INTO t SELECT i, randomblob(65536) FROM k`);
    insert(0, 600); // ~40 MB: past the threshold, into a resizable buffer
    const first = fileOf(db);
    assert.ok(first.length > RESIZABLE_FROM);
    assert.equal((first.buffer as ArrayBuffer & { resizable?: boolean }).resizable, true);
    insert(600, 300); // ~20 MB more: several growth steps of 12.5 %
    const grown = fileOf(db);
    assert.ok(grown.length > first.length + 15_000_000);
    assert.ok(grown.buffer === first.buffer, 'grown in place: no copy of the file');
    assert.deepEqual(differences(grown, db.export()), []);
    const grownLength = grown.length; // a view of a buffer that shrinks below it reads as empty afterwards
    db.exec('DELETE FROM t WHERE id % 4 = 0; VACUUM');
    const shrunk = fileOf(db);
    assert.ok(shrunk.length < grownLength * 0.8 && shrunk.length > RESIZABLE_FROM, 'VACUUM truncated the file');
    assert.ok(shrunk.buffer === first.buffer, 'truncated in place');
    assert.deepEqual(differences(shrunk, db.export()), []);
    const sum = db.exec('SELECT count(*), sum(length(b)), sum(id) FROM t')[0].values[0];
    // Reopened from growable bytes, as the store reads a snapshot: the database owns them and grows on in place.
    const bytes = growableBytes(shrunk.length);
    bytes.set(shrunk);
    db.close();
    const again = new SQL.Database(bytes);
    assert.ok(fileOf(again).buffer === bytes.buffer, 'opened without a copy');
    assert.deepEqual(again.exec('SELECT count(*), sum(length(b)), sum(id) FROM t')[0].values[0], sum);
    assert.equal(again.exec('PRAGMA integrity_check')[0].values[0][0], 'ok');
    again.exec('INSERT INTO t VALUES (100000, randomblob(3000000))');
    assert.ok(fileOf(again).buffer === bytes.buffer, 'grows on in place');
    closeDatabase(again);
    assert.equal(bytes.buffer.byteLength, 0, "closing hands the file's memory back at once, not at a later GC");
    assert.throws(() => again.exec('SELECT 1'), /closed/);
  });

  it('a store past the threshold compacts from its live file and reopens with every row', async function () {
    this.timeout(120_000);
    process.env.MEMORY_STORE_LAZY_FROM = String(2 ** 40); // read into memory, not on demand (lazyFile.test.ts)
    const dir = tempDir();
    const text = (i: number) => `${i} ` + Buffer.from(Array.from({ length: 24_000 }, (_, k) => (i * 7919 + k * 104729) % 251)).toString('base64');
    const put = async (s: Store, from: number, n: number) => {
      for (let i = from; i < from + n; i += 100) {
        await s.transaction((tx) => { for (let k = i; k < Math.min(from + n, i + 100); k++) tx.items.put({ id: `fa:f${k}`, kind: 'fact', text: text(k), created: 1_000 + k }); });
      }
    };
    let s = await Store.open({ dir, watch: false });
    await put(s, 0, 1_200); // ~38 MB of text
    assert.equal(await s.compact(), true);
    await s.close();
    const size1 = statSync(path.join(dir, 'memory.db')).size;
    assert.ok(size1 > RESIZABLE_FROM, `snapshot ${size1} bytes`);
    s = await Store.open({ dir, watch: false }); // read into a resizable buffer
    // The store must write its live file, never export()'s copy, and hand the buffer back when it closes.
    const live = (s as unknown as { db: Database }).db;
    live.export = () => { throw new Error('export() was called'); };
    const liveBuffer = fileOf(live).buffer;
    assert.equal((liveBuffer as ArrayBuffer & { resizable?: boolean }).resizable, true);
    await put(s, 1_200, 300);
    assert.equal(await s.compact(), true);
    await s.close();
    assert.equal(liveBuffer.byteLength, 0, 'closing the store emptied its file buffer');
    assert.ok(statSync(path.join(dir, 'memory.db')).size > size1);
    // The snapshot on disk, opened by a plain sql.js database: intact, every row, the header as export() writes it.
    const SQL = await loadSqlJs();
    const file = readFileSync(path.join(dir, 'memory.db'));
    assert.equal(file[18], 1);
    assert.equal(file[19], 1);
    const db = new SQL.Database(file);
    assert.equal(db.exec('PRAGMA integrity_check')[0].values[0][0], 'ok');
    assert.equal(db.exec("SELECT count(*) FROM items WHERE kind = 'fact'")[0].values[0][0], 1_500);
    db.close();
    s = await Store.open({ dir, watch: false });
    assert.equal(s.items.get('fa:f1499')!.text, text(1_499));
    assert.equal(s.items.get('fa:f3')!.text, text(3));
    await s.close();
  });
});

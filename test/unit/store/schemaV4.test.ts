// Schema v4 (issue #16, a smaller store): a raw-record message is addressed by the first 128 bits of the sha256 of
// its bytes (32 hex) instead of all 256 — four copies per message (raw_blobs, its key index, items.blob_hash,
// items_blob). A store as version 3 wrote it (64-hex addresses, computed from the texts) with a crashed v3
// process's journal on top — a flush, a forget and a repeat, each naming messages by their 64-hex address —
// migrates to exactly what a store that was never downgraded holds: the records replay before the migration,
// so the forget really drops its message (replayed after it, its DELETE would miss the shortened row).
import assert from 'node:assert/strict';
import { cpSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { SNAPSHOT_FILE, type Store } from '../../../src/engine/store/store';
import { BLOB_HASH_HEX, blobHash } from '../../../src/engine/store/repos/rawBlobsRepo';
import { contentHash, decompressBatch } from '../../../src/engine/write/rawCodec';
import { MemoryEngine } from '../../../src/engine/engine';
import { internals } from '../../../src/engine/internals';
import { createTestEngine, T0, type TestEngine } from '../engine/builders';
import { crashedChild, downgradeTo, dumpStore, rewriteJournal, storeSql } from './schemaDowngrade';

const DAY = 86_400_000;
const sql = storeSql;

/** Every text still stored in a raw chunk (blanked slots are ''). */
function chunkTexts(s: Store): string[] {
  return sql(s).all('SELECT data FROM raw_chunks').flatMap((r) => decompressBatch(r.data as Uint8Array));
}

describe('Schema v4: 128-bit content addresses (a v3 store migrates with identical content and gets smaller)', () => {
  let t: TestEngine;
  afterEach(async () => { await t.cleanup(); });

  it('addresses a message by the first 32 hex of its sha256; a repeat only counts', async () => {
    t = await createTestEngine();
    const text = 'The staging cluster moved to the eu-west-2 region on Monday.';
    await t.engine.importMessages([{ conversation: 'a', role: 'user', text, at: T0 }, { conversation: 'b', role: 'user', text, at: T0 + 1 }]);
    await t.engine.flush();
    const store = internals(t.engine).store;
    const hashes = sql(store).all('SELECT hash, seen FROM raw_blobs');
    assert.deepEqual(hashes, [{ hash: contentHash(text).slice(0, 32), seen: 2 }]);
    assert.equal(BLOB_HASH_HEX, 32);
    assert.equal(blobHash(text), contentHash(text).slice(0, 32));
    assert.ok(store.items.list({ kind: 'raw' }).every((it) => it.blobHash === blobHash(text)));
  });

  it('migrates a v3 store with a crashed v3 process\'s journal on top: same rows as a store never downgraded, the forgotten text gone, smaller file', async function () {
    this.timeout(120_000);
    t = await createTestEngine();
    const msgs = Array.from({ length: 240 }, (_, i) => ({
      conversation: `c${i % 8}`, role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', at: T0 - (300 - i) * DAY / 4,
      text: `Message ${i}: the nightly export for tenant ${i % 17} runs at ${i % 24}:00 and writes to bucket archive-${i % 11}.`,
    }));
    await t.engine.importMessages(msgs);
    await t.engine.flush();
    const store = internals(t.engine).store;
    const raws = store.items.list({ kind: ['raw'], order: 'id' });
    assert.ok(raws.length >= 200 && raws.every((r) => r.text === null && r.blobHash?.length === 32), 'texts moved into the raw record');
    const gone = raws[17]!;
    const goneText = internals(t.engine).writer.textOf(gone);
    const kept = internals(t.engine).writer.textOf(raws[30]!);
    await t.engine.close();

    // Another process (this build: v4 addresses) forgets a message, flushes a new one, counts a repeat, and crashes.
    const late = 'Late message: the export bucket for tenant 3 is now archive-eu, effective tomorrow.';
    await crashedChild(t.storeDir, [
      ['items', 'delete', gone.id],
      ['rawBlobs', 'delete', gone.blobHash],
      ['items', 'put', { id: 'rw:late', kind: 'raw', role: 'user', text: late, created: T0, conversation: 'late', sourceType: 'chat' }],
      ['rawBlobs', 'putMany', [late], T0],
      ['items', 'moveTextToRaw', 'rw:late', blobHash(late)],
      ['rawBlobs', 'putMany', [kept], T0],
    ]);
    const control = path.join(t.dir, 'control');
    cpSync(t.storeDir, control, { recursive: true });

    // The store as version 3 left it: 64-hex addresses in the snapshot and in the journal's records.
    const long = await downgradeTo(t.storeDir, 3);
    long.set(blobHash(late), contentHash(late)); // only the journal knows this one
    assert.ok(long.size >= 200 && [...long].every(([s, l]) => s.length === 32 && l.length === 64 && l.startsWith(s)));
    let mapped = 0;
    assert.ok(rewriteJournal(t.storeDir, 3, (x) => (long.has(x) ? (mapped++, long.get(x)!) : x)) >= 6);
    assert.ok(mapped >= 4, `the journal named messages by address ${mapped} times`);
    const v3 = new (await initSqlJs()).Database(readFileSync(path.join(t.storeDir, SNAPSHOT_FILE)));
    assert.equal(v3.exec('SELECT count(*) FROM raw_blobs WHERE length(hash) = 64')[0]!.values[0]![0], raws.length);
    v3.close();
    const v3Bytes = statSync(path.join(t.storeDir, SNAPSHOT_FILE)).size;

    const c = await MemoryEngine.open({ storeDir: control, vaultDir: path.join(t.dir, 'control-vault'), clock: t.clock, logger: t.logger });
    try {
      const cs = internals(c).store;
      assert.equal(cs.openReport.migratedFrom, null);
      await t.reopen();
      const ms = internals(t.engine).store;
      assert.equal(ms.openReport.migratedFrom, 3);
      assert.equal(ms.openReport.failedRecords, 0);
      assert.ok(ms.openReport.recoveredRecords >= 6, `the crashed process's records replayed: ${ms.openReport.recoveredRecords}`);
      assert.deepEqual(dumpStore(ms), dumpStore(cs), 'every row of every table');
      assert.deepEqual(sql(ms).all('SELECT count(*) AS n FROM raw_blobs WHERE length(hash) <> 32'), [{ n: 0 }]);
      assert.deepEqual(sql(ms).all('SELECT count(*) AS n FROM items WHERE blob_hash IS NOT NULL AND length(blob_hash) <> 32'), [{ n: 0 }]);
      assert.ok(!chunkTexts(ms).includes(goneText), 'the forgotten message left the raw record');
      assert.equal(ms.rawBlobs.get(gone.blobHash!), undefined);
      assert.equal(internals(t.engine).writer.textOf(ms.items.get('rw:late')!), late);
      assert.equal(ms.rawBlobs.get(blobHash(kept))!.seen, 2, 'the v3 repeat counted on the migrated row');
      // A message stored before the migration is found again by its new address: a repeat dedupes.
      for (const e of [t.engine, c]) await internals(e).store.transaction((tx) => { tx.rawBlobs.putMany([kept], T0 + DAY); });
      assert.equal(ms.rawBlobs.get(blobHash(kept))!.seen, 3);
      assert.deepEqual(dumpStore(ms), dumpStore(cs), 'rows after a write on both');
    } finally {
      await c.close();
    }
    await t.engine.close();
    const v4Bytes = statSync(path.join(t.storeDir, SNAPSHOT_FILE)).size;
    assert.ok(v4Bytes < v3Bytes, `migrated snapshot ${v4Bytes} B < v3 snapshot ${v3Bytes} B`);
  });
});

// The journal stores a transaction's JSON raw-deflated when that is smaller (issue #16: bytes written per
// byte saved). What must hold: compressed and plain records replay alike (also mixed in one journal, as after
// an upgrade), an older version reads a compressed record as a newer schema (refuses, never misreads), and a
// payload that does not inflate is a failed record, not a crash.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMemoryError } from '../../../src/engine/errors';
import { MemoryLogger } from '../../../src/engine/host';
import {
  JOURNAL_HEADER_BYTES, VERSION_COMPRESSED, encodeRecord, packPayload, recordJson, recordSchema, scanRecords,
} from '../../../src/engine/store/journal';
import { SCHEMA_VERSION } from '../../../src/engine/store/schema';
import { Store } from '../../../src/engine/store/store';
import { aFact, cleanupTempDirs, snapshotFiles, tempDir } from './helpers';

const journalOf = (dir: string) => path.join(dir, 'memory.journal');
const recordsOf = (dir: string) => {
  const b = fs.readFileSync(journalOf(dir));
  return scanRecords(b.subarray(JOURNAL_HEADER_BYTES), JOURNAL_HEADER_BYTES).records;
};

describe('journal compression', () => {
  afterEach(() => cleanupTempDirs());

  it('deflates a large transaction, keeps a tiny payload plain, and both come back as the same JSON', () => {
    const big = Buffer.from(JSON.stringify({ v: SCHEMA_VERSION, s: Array.from({ length: 40 }, (_, i) => ['INSERT OR REPLACE INTO items (id, kind, text) VALUES (?, ?, ?)', [`fa:${i}`, 'fact', `The build uses Node ${i}.`]]), t: [] }));
    const packed = packPayload(big, SCHEMA_VERSION);
    assert.equal(packed.version, SCHEMA_VERSION | VERSION_COMPRESSED);
    assert.ok(packed.payload.length * 4 < big.length, `${packed.payload.length} of ${big.length} bytes`);
    assert.equal(recordSchema(packed), SCHEMA_VERSION);
    assert.equal(recordJson(packed), big.toString('utf8'));
    const tiny = Buffer.from('{"v":1,"s":[],"t":[]}');
    assert.deepEqual(packPayload(tiny, SCHEMA_VERSION), { version: SCHEMA_VERSION, payload: tiny });
    // What an older version checks before it reads a record: a compressed one looks newer, so it refuses.
    assert.ok(packed.version > SCHEMA_VERSION);
  });

  it('replays a journal of compressed records after a crash (no compaction), in order, with nothing lost', async () => {
    const dir = tempDir();
    const s = await Store.open({ dir, watch: false, pollMs: 60_000 });
    for (let i = 0; i < 30; i++) {
      await s.transaction((tx) => { for (let j = 0; j < 5; j++) tx.items.put(aFact({ id: `fa:c${i}-${j}`, text: `Fact ${i}/${j}: the staging cluster runs build agent number ${i * 5 + j}.` })); });
    }
    const recs = recordsOf(dir);
    assert.equal(recs.length, 30);
    assert.ok(recs.every((r) => (r.version & VERSION_COMPRESSED) !== 0), 'each five-row transaction is stored deflated');
    s.dispose(); // like a SIGKILL: no close, no compaction
    const again = await Store.open({ dir, watch: false, pollMs: 60_000 });
    try {
      assert.equal(again.openReport.recoveredRecords, 30);
      assert.equal(again.openReport.failedRecords, 0);
      assert.equal(again.items.count(), 150);
      assert.equal(again.items.get('fa:c29-4')?.text, 'Fact 29/4: the staging cluster runs build agent number 149.');
    } finally {
      await again.close();
    }
  });

  it('reads a journal an older version wrote (plain JSON records) and appends compressed ones after it', async () => {
    const dir = tempDir();
    const s = await Store.open({ dir, watch: false, pollMs: 60_000 });
    await s.transaction((tx) => { for (let j = 0; j < 5; j++) tx.items.put(aFact({ id: `fa:old${j}`, text: `An old fact number ${j} about the deploy window on Fridays.` })); });
    s.dispose();
    // Rewrite that record the way the previous version stored it: the same JSON, uncompressed.
    const [rec] = recordsOf(dir);
    const b = fs.readFileSync(journalOf(dir));
    const start = rec!.end - rec!.payload.length - 24;
    fs.writeFileSync(journalOf(dir), Buffer.concat([b.subarray(0, start), encodeRecord(rec!.seq, SCHEMA_VERSION, Buffer.from(recordJson(rec!), 'utf8'))]));
    assert.equal(recordsOf(dir)[0]!.version, SCHEMA_VERSION);

    const again = await Store.open({ dir, watch: false, pollMs: 60_000 });
    await again.transaction((tx) => { for (let j = 0; j < 5; j++) tx.items.put(aFact({ id: `fa:new${j}`, text: `A new fact number ${j} about the release train on Thursdays.` })); });
    again.dispose();
    assert.deepEqual(recordsOf(dir).map((r) => (r.version & VERSION_COMPRESSED) !== 0), [false, true]);
    const third = await Store.open({ dir, watch: false, pollMs: 60_000 });
    try {
      assert.equal(third.items.count(), 10);
      assert.equal(third.openReport.failedRecords, 0);
    } finally {
      await third.close();
    }
  });

  it('counts a compressed payload that does not inflate as a failed record and opens with the rest', async () => {
    const dir = tempDir();
    const logger = new MemoryLogger();
    const s = await Store.open({ dir, watch: false, pollMs: 60_000 });
    await s.transaction((tx) => tx.items.put(aFact({ id: 'fa:kept', text: 'A fact that must survive a damaged neighbour record in the journal.' })));
    s.dispose();
    const seq = recordsOf(dir).at(-1)!.seq;
    // A record whose checksum is right but whose deflate stream is garbage (a bug, not a torn write).
    fs.appendFileSync(journalOf(dir), encodeRecord(seq + 1, SCHEMA_VERSION | VERSION_COMPRESSED, Buffer.from('not a deflate stream at all, just bytes')));
    const again = await Store.open({ dir, watch: false, pollMs: 60_000, logger });
    try {
      assert.equal(again.items.has('fa:kept'), true);
      assert.equal(again.openReport.failedRecords, 1);
      assert.ok(logger.lines.some((r) => r.event === 'store.record_failed'));
    } finally {
      await again.close();
    }
  });

  it('still refuses a journal of a newer schema, compressed or not, and leaves the files as they were', async () => {
    const dir = tempDir();
    const s = await Store.open({ dir, watch: false, pollMs: 60_000 });
    await s.transaction((tx) => { for (let j = 0; j < 5; j++) tx.items.put(aFact({ id: `fa:n${j}`, text: `Fact ${j} written before a newer version took over this store.` })); });
    s.dispose();
    const seq = recordsOf(dir).at(-1)!.seq;
    const packed = packPayload(Buffer.from(JSON.stringify({ v: SCHEMA_VERSION + 1, s: [], t: [] }).padEnd(400, ' ')), SCHEMA_VERSION + 1);
    fs.appendFileSync(journalOf(dir), encodeRecord(seq + 1, packed.version, packed.payload));
    const before = snapshotFiles(dir);
    await assert.rejects(Store.open({ dir, watch: false }), (e) => isMemoryError(e, 'E_SCHEMA_NEWER') && new RegExp(`version ${SCHEMA_VERSION + 1}\\b`).test((e as Error).message));
    assert.deepEqual(snapshotFiles(dir), before);
  });
});

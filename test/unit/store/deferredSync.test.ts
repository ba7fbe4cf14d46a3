// A bulk derivation's writes share their fsyncs (issue #16: at 1M items one fdatasync per flushed
// conversation was ~20 % of the derivation). What must hold: a transaction asked to defer its fsync resolves
// once applied and appended, and the journal is fdatasynced once per `syncEveryRecords` such records or
// `syncEveryMs`, at `sync()`, at close and by any ordinary transaction — which is acknowledged only after its
// own fsync, whatever deferred ones share its group. Nothing written is lost on a crash of the process.
import * as assert from 'node:assert/strict';
import { Store } from '../../../src/engine/store/store';
import { aFact, cleanupTempDirs, tempDir } from './helpers';

const syncs = (s: Store) => s.stats().written.journalSyncs;
/** A store that syncs deferred records only when told (unless `over` says otherwise). */
const open = (over: { dir?: string; syncEveryRecords?: number; syncEveryMs?: number } = {}) =>
  Store.open({ dir: tempDir(), watch: false, pollMs: 60_000, syncEveryRecords: 1000, syncEveryMs: 60_000, ...over });

describe('store: deferred journal syncs (group commit for bulk writes)', () => {
  afterEach(() => cleanupTempDirs());

  it('a deferred transaction resolves without an fsync; sync() makes one for all of them; an ordinary one always fsyncs', async () => {
    const s = await open();
    try {
      await s.transaction((tx) => tx.items.put(aFact({ id: 'fa:first' })));
      assert.equal(syncs(s), 1, 'an ordinary transaction is acknowledged after its fsync');
      for (let i = 0; i < 10; i++) await s.transaction((tx) => tx.items.put(aFact({ id: `fa:d${i}` })), { defer: true });
      assert.equal(syncs(s), 1, 'ten deferred transactions: no fsync yet');
      assert.equal(s.items.get('fa:d9')?.id, 'fa:d9', 'each was applied when it resolved');
      await s.sync();
      assert.equal(syncs(s), 2, 'one fsync for the ten');
      await s.sync();
      assert.equal(syncs(s), 2, 'nothing left to sync: no fsync');
      await s.transaction((tx) => tx.items.put(aFact({ id: 'fa:d10' })), { defer: true });
      await s.transaction((tx) => tx.items.put(aFact({ id: 'fa:ordinary' })));
      assert.equal(syncs(s), 3, 'the ordinary transaction fsynced (and with it the deferred one before it)');
      await s.sync();
      assert.equal(syncs(s), 3, 'already synced by the ordinary transaction');
    } finally {
      await s.close();
    }
  });

  it('an ordinary transaction queued beside deferred ones in one group is still fsynced before it resolves', async () => {
    const s = await open();
    try {
      const all = [
        s.transaction((tx) => tx.items.put(aFact({ id: 'fa:g1' })), { defer: true }),
        s.transaction((tx) => tx.items.put(aFact({ id: 'fa:g2' }))),
        s.transaction((tx) => tx.items.put(aFact({ id: 'fa:g3' })), { defer: true }),
      ];
      await Promise.all(all);
      assert.equal(syncs(s), 1, 'one group, one fsync — the ordinary write in it was not acknowledged without one');
    } finally {
      await s.close();
    }
  });

  it('syncs by itself every syncEveryRecords deferred records, and at close', async () => {
    const dir = tempDir();
    const s = await open({ dir, syncEveryRecords: 4 });
    for (let i = 0; i < 10; i++) await s.transaction((tx) => tx.items.put(aFact({ id: `fa:r${i}` })), { defer: true });
    assert.equal(syncs(s), 2, 'after the 4th and the 8th record');
    await s.close();
    assert.equal(syncs(s), 3, 'close synced the last two');
  });

  it('syncs by itself once the oldest unsynced record is syncEveryMs old', async () => {
    const s = await open({ syncEveryMs: 30 });
    try {
      await s.transaction((tx) => tx.items.put(aFact({ id: 'fa:t0' })), { defer: true });
      assert.equal(syncs(s), 0);
      await new Promise((r) => setTimeout(r, 60));
      await s.transaction((tx) => tx.items.put(aFact({ id: 'fa:t1' })), { defer: true });
      assert.equal(syncs(s), 1, 'the second record came after syncEveryMs: both fsynced with it');
    } finally {
      await s.close();
    }
  });

  it('a process that dies after deferred writes (no close, no sync) loses none of them: they are in the journal', async () => {
    const dir = tempDir();
    const s = await open({ dir });
    for (let i = 0; i < 12; i++) await s.transaction((tx) => tx.items.put(aFact({ id: `fa:k${i}`, text: `kept ${i}` })), { defer: true });
    s.dispose(); // like a SIGKILL: the appended records are in the file (the OS holds them; only a power cut could take them)
    const again = await Store.open({ dir, watch: false, pollMs: 60_000 });
    try {
      assert.equal(again.openReport.recoveredRecords, 12);
      assert.equal(again.items.get('fa:k11')?.text, 'kept 11');
    } finally {
      await again.close();
    }
  });

  it('refuses a bad option with a clear error', async () => {
    await assert.rejects(Store.open({ dir: tempDir(), watch: false, syncEveryRecords: 0 }), /syncEveryRecords/);
    await assert.rejects(Store.open({ dir: tempDir(), watch: false, syncEveryMs: -1 }), /syncEveryMs/);
  });
});

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMemoryError } from '../../../src/engine/errors';
import { MemoryLogger } from '../../../src/engine/host';
import { recordJson, scanRecords, JOURNAL_HEADER_BYTES } from '../../../src/engine/store/journal';
import { SCHEMA_VERSION } from '../../../src/engine/store/schema';
import { loadSqlJs } from '../../../src/engine/store/sqlWasm';
import type { Item } from '../../../src/engine/store/repositories';
import { Store, type StoreChange } from '../../../src/engine/store/store';
import { aFact, cleanupTempDirs, tempDir } from './helpers';

describe('store', () => {
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

  describe('bad input', () => {
    it('rejects an item id without a known prefix and writes nothing', async () => {
      const s = await openStore(tempDir());
      const before = s.seq;
      await assert.rejects(s.transaction((tx) => tx.items.put({ id: 'zz:1', created: 1 })), (e) => isMemoryError(e, 'E_BAD_INPUT'));
      assert.equal(s.seq, before);
      assert.equal(s.items.count(), 0);
    });

    it('rejects a kind that contradicts the id prefix, an unknown trust and a non-numeric time', async () => {
      const s = await openStore(tempDir());
      await assert.rejects(s.transaction((tx) => tx.items.put({ id: 'fa:1', kind: 'note', created: 1 })), (e) => isMemoryError(e, 'E_BAD_INPUT'));
      await assert.rejects(s.transaction((tx) => tx.items.put({ id: 'fa:1', created: 1, trust: 'root' as never })), (e) => isMemoryError(e, 'E_BAD_INPUT'));
      await assert.rejects(s.transaction((tx) => tx.items.put({ id: 'fa:1', created: Number.NaN })), (e) => isMemoryError(e, 'E_BAD_INPUT'));
      await assert.rejects(s.transaction((tx) => tx.items.patch('fa:1', { kind: 'fact' } as never)), (e) => isMemoryError(e, 'E_BAD_INPUT'));
      assert.equal(s.items.count(), 0);
    });

    it('keeps the whole batch out when its callback throws halfway', async () => {
      const s = await openStore(tempDir());
      await assert.rejects(s.transaction((tx) => {
        tx.items.put(aFact({ id: 'fa:kept-out' }));
        throw new Error('caller bug');
      }));
      assert.equal(s.items.get('fa:kept-out'), undefined);
    });

    it('refuses writes outside a transaction and asynchronous transaction callbacks', async () => {
      const s = await openStore(tempDir());
      assert.throws(() => s.items.put(aFact()), (e) => isMemoryError(e, 'E_USAGE'));
      await assert.rejects(s.transaction(async () => undefined), (e) => isMemoryError(e, 'E_USAGE'));
    });

    it('rejects only the batch whose statement the database refuses, in a group that shares one flush', async () => {
      const s = await openStore(tempDir());
      const good1 = s.transaction((tx) => tx.items.put(aFact({ id: 'fa:g1' })));
      const bad = s.transaction((tx) => tx.rawBuffers.append({ conversation: 'c1', role: null as never, text: 't', provenance: {}, at: 1 }));
      const good2 = s.transaction((tx) => tx.items.put(aFact({ id: 'fa:g2' })));
      await good1;
      await good2;
      await assert.rejects(bad, (e) => isMemoryError(e, 'E_BAD_INPUT'));
      assert.deepEqual(s.items.getMany(['fa:g1', 'fa:g2']).map((i) => i.id), ['fa:g1', 'fa:g2']);
      assert.deepEqual(s.rawBuffers.list('c1'), []);
      // The refused batch never reached the journal: a reopen sees the same state.
      s.dispose();
      const again = await openStore(s.dir);
      assert.equal(again.items.count(), 2);
      assert.equal(again.openReport.failedRecords, 0);
    });
  });

  it('acknowledges a save only after its record is in the journal file', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    await s.transaction((tx) => tx.items.put(aFact({ id: 'fa:durable' })));
    const journal = fs.readFileSync(path.join(dir, 'memory.journal'));
    const scan = scanRecords(journal.subarray(JOURNAL_HEADER_BYTES), JOURNAL_HEADER_BYTES);
    assert.equal(scan.records.length, 1);
    assert.match(recordJson(scan.records[0]), /fa:durable/);
    // No close (no compaction): a new process finds it by replaying the journal.
    s.dispose();
    const again = await openStore(dir);
    assert.equal(again.items.has('fa:durable'), true);
    assert.equal(again.openReport.recoveredRecords, 1);
  });

  it('lands every save of a burst and acknowledges each one', async () => {
    const s = await openStore(tempDir());
    const ids = Array.from({ length: 50 }, (_, i) => `fa:burst-${i}`);
    await Promise.all(ids.map((id) => s.transaction((tx) => tx.items.put(aFact({ id })))));
    assert.equal(s.items.count({ kind: 'fact' }), 50);
    assert.equal(s.seq, 50);
  });

  it('records the schema version in meta and in PRAGMA user_version', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    assert.equal(s.openReport.created, true);
    assert.equal(s.meta.get('schema_version'), String(SCHEMA_VERSION));
    await s.close();
    const SQL = await loadSqlJs();
    const db = new SQL.Database(fs.readFileSync(path.join(dir, 'memory.db')));
    assert.equal(db.exec('PRAGMA user_version')[0].values[0][0], SCHEMA_VERSION);
    db.close();
  });

  it('keeps data across close and reopen, with a compacted journal', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    await s.transaction((tx) => { tx.items.put(aFact({ id: 'fa:k' })); tx.counters.add('saveFilter.too_short', 3); });
    await s.close();
    const again = await openStore(dir);
    assert.equal(again.items.has('fa:k'), true);
    assert.equal(again.counters.get('saveFilter.too_short'), 3);
    assert.equal(again.openReport.recoveredRecords, 0);
    assert.equal(again.stats().journalBytes, JOURNAL_HEADER_BYTES);
  });

  it('compacts only once the journal has grown by a fraction of the snapshot, and a close below it loses nothing', async function () {
    this.timeout(30_000); // the journal is deflated: it takes a few thousand small writes to reach half the snapshot
    const dir = tempDir();
    // A tiny fixed threshold and no small-snapshot exemption, so the ratio decides at test sizes.
    const policy = { compactBytes: 1024, compactRatio: 0.5, smallSnapshotBytes: 0, idleCompactMs: 60_000 };
    const s = await openStore(dir, policy);
    await s.transaction((tx) => { for (let i = 0; i < 400; i++) tx.items.put(aFact({ id: `fa:base-${i}`, text: `base fact number ${i} `.repeat(8) })); });
    await s.compact();
    await new Promise((r) => setTimeout(r, 20));
    const base = s.stats().written.snapshots;
    const snapshot = s.stats().snapshotBytes;
    assert.ok(snapshot > 100_000, `snapshot ${snapshot}`);
    // Well past the fixed 1 KB threshold but below half the snapshot: no compaction.
    let i = 0;
    while (s.stats().journalBytes < 0.3 * snapshot) await s.transaction((tx) => tx.items.put(aFact({ id: `fa:more-${i++}`, text: `another fact ${i}` })));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(s.stats().written.snapshots, base, 'no compaction below compactRatio × snapshot');
    assert.ok(s.stats().journalBytes > 1024);
    // Past half the snapshot: the next write triggers one.
    while (s.stats().written.snapshots === base && i < 100_000) await s.transaction((tx) => tx.items.put(aFact({ id: `fa:more-${i++}`, text: `another fact ${i}` })));
    assert.equal(s.stats().written.snapshots, base + 1);
    assert.ok(s.stats().journalBytes < 0.1 * snapshot, 'the compaction started a fresh journal');
    // A few more writes, then close: the journal is far below compactRatio/4 × snapshot, so no rewrite…
    for (let k = 0; k < 3; k++) await s.transaction((tx) => tx.items.put(aFact({ id: `fa:last-${k}` })));
    const open1 = open.indexOf(s);
    open.splice(open1, 1);
    await s.close();
    assert.ok(fs.statSync(path.join(dir, 'memory.journal')).size > JOURNAL_HEADER_BYTES, 'close left the short journal for replay');
    // …and the next open replays it: nothing acknowledged is lost.
    const again = await openStore(dir, policy);
    assert.ok(again.openReport.recoveredRecords >= 3, `replayed ${again.openReport.recoveredRecords}`);
    assert.equal(again.items.count(), 400 + i + 3);
    assert.ok(again.items.has('fa:last-2'));
  });

  it('compacts at close once the journal would take long to replay, though below the ratio — and only then; nothing is lost', async function () {
    this.timeout(60_000);
    // No compaction after writes, no small-snapshot exemption: only the close decides. A 32 KB replay bound
    // stands in for the default 2 MiB at test sizes.
    const policy = (replayCompactBytes: number) => ({ compactBytes: 1 << 30, compactRatio: 0.5, smallSnapshotBytes: 0, idleCompactMs: 600_000, replayCompactBytes });
    const run = async (replayCompactBytes: number) => {
      const dir = tempDir();
      const s = await openStore(dir, policy(replayCompactBytes));
      await s.transaction((tx) => { for (let i = 0; i < 3_000; i++) tx.items.put(aFact({ id: `fa:base-${i}`, text: `base fact number ${i} about the ${i % 7 ? 'billing' : 'search'} service `.repeat(4) })); });
      await s.compact();
      const snapshot = s.stats().snapshotBytes;
      let i = 0;
      while (s.stats().journalBytes < 48 * 1024) await s.transaction((tx) => tx.items.put(aFact({ id: `fa:more-${i++}`, text: `another fact ${i} for the replay test` })));
      const journal = s.stats().journalBytes;
      assert.ok(journal < (0.5 / 4) * snapshot && journal > snapshot / 256 && journal > 32 * 1024, `journal ${journal}, snapshot ${snapshot}: between the bounds`);
      const snapshots = s.stats().written.snapshots;
      open.splice(open.indexOf(s), 1);
      await s.close();
      const written = s.stats().written.snapshots - snapshots;
      const left = fs.statSync(path.join(dir, 'memory.journal')).size - JOURNAL_HEADER_BYTES;
      const again = await openStore(dir, policy(replayCompactBytes));
      assert.equal(again.items.count(), 3_000 + i, 'every acknowledged write is there');
      assert.ok(again.items.has(`fa:more-${i - 1}`));
      return { written, left, recovered: again.openReport.recoveredRecords };
    };
    const bounded = await run(32 * 1024);
    assert.equal(bounded.written, 1, 'the close compacted');
    assert.equal(bounded.left, 0);
    assert.equal(bounded.recovered, 0, 'the next open replays nothing');
    const unbounded = await run(1 << 30);
    assert.equal(unbounded.written, 0, 'below the ratio and the replay bound: no rewrite');
    assert.ok(unbounded.left > 32 * 1024 && unbounded.recovered > 0, 'the journal was left and replayed');
  });

  it('a store opened with a journal worth compacting compacts once idle, without writing anything — and only then', async function () {
    this.timeout(60_000);
    const quiet = { compactBytes: 1 << 30, compactRatio: 0.5, smallSnapshotBytes: 0, idleCompactMs: 600_000, replayCompactBytes: 1 << 30 };
    const leaveJournal = async () => {
      const dir = tempDir();
      const w = await openStore(dir, quiet);
      await w.transaction((tx) => { for (let i = 0; i < 2_000; i++) tx.items.put(aFact({ id: `fa:base-${i}`, text: `base fact number ${i} `.repeat(6) })); });
      await w.compact();
      let i = 0;
      while (w.stats().journalBytes < 48 * 1024) await w.transaction((tx) => tx.items.put(aFact({ id: `fa:more-${i++}`, text: `another fact ${i}` })));
      open.splice(open.indexOf(w), 1);
      await w.close();
      assert.ok(fs.statSync(path.join(dir, 'memory.journal')).size > 48 * 1024);
      return { dir, items: 2_000 + i };
    };
    // A reader (no writes) with the replay bound: it replays the journal at open, then compacts once idle.
    const a = await leaveJournal();
    const journalFile = path.join(a.dir, 'memory.journal');
    const r = await openStore(a.dir, { ...quiet, idleCompactMs: 50, replayCompactBytes: 32 * 1024 });
    assert.ok(r.openReport.recoveredRecords > 0);
    assert.equal(r.items.count(), a.items);
    for (let k = 0; k < 200 && fs.statSync(journalFile).size > JOURNAL_HEADER_BYTES; k++) await new Promise((res) => setTimeout(res, 25));
    assert.equal(fs.statSync(journalFile).size, JOURNAL_HEADER_BYTES, 'compacted while idle');
    assert.equal(r.stats().written.snapshots, 1);
    // Another process opening now replays nothing and sees every item.
    const other = await openStore(a.dir, quiet);
    assert.equal(other.openReport.recoveredRecords, 0);
    assert.equal(other.items.count(), a.items);
    // Without the bound, the same reader leaves such a journal alone however long it idles.
    const b = await leaveJournal();
    const r2 = await openStore(b.dir, { ...quiet, idleCompactMs: 50 });
    await new Promise((res) => setTimeout(res, 400));
    assert.equal(r2.stats().written.snapshots, 0);
    assert.ok(fs.statSync(path.join(b.dir, 'memory.journal')).size > 48 * 1024);
  });

  it('removes at open the snapshot and journal temp files of a writer that died before renaming them, and nothing else', async () => {
    const dir = tempDir();
    const s = await openStore(dir);
    await s.transaction((tx) => tx.items.put(aFact({ id: 'fa:kept' })));
    open.splice(open.indexOf(s), 1);
    await s.close();
    const dead = ['memory.db.4242.1764590000000.0.tmp', 'memory.journal.4242.1764590000001.1.tmp', 'memory.db.tmp'];
    const others = ['memory.db.bak', 'notes.tmp', path.join('index', 'recall.idx.4242.1764590000002.2.tmp')];
    fs.mkdirSync(path.join(dir, 'index'), { recursive: true });
    for (const f of [...dead, ...others]) fs.writeFileSync(path.join(dir, f), Buffer.alloc(4096, 7));
    const again = await openStore(dir);
    for (const f of dead) assert.ok(!fs.existsSync(path.join(dir, f)), `${f} removed`);
    for (const f of others) assert.ok(fs.existsSync(path.join(dir, f)), `${f} kept`);
    assert.ok(again.items.has('fa:kept'));
  });

  it('tells listeners which ids a local write touched', async () => {
    const s = await openStore(tempDir());
    const seen: StoreChange[] = [];
    s.onDidChange((e) => seen.push(e));
    await s.transaction((tx) => { tx.items.put(aFact({ id: 'fa:ev' })); tx.conversations.put({ id: 'conv-1', title: null, project: null, projectType: null, language: 'en', created: 5 }); });
    assert.equal(seen.length, 1);
    assert.equal(seen[0].origin, 'local');
    assert.deepEqual([...seen[0].ids].sort(), ['conv-1', 'fa:ev']);
  });

  it('marks ids a write left index-neutral (a text moved into the raw record) — only when every write in the group did', async () => {
    const s = await openStore(tempDir());
    await s.transaction((tx) => { tx.items.put({ id: 'rw:a', created: 1, text: 'alpha text', role: 'user' }); tx.items.put({ id: 'rw:b', created: 2, text: 'beta text', role: 'user' }); });
    const seen: StoreChange[] = [];
    s.onDidChange((e) => seen.push(e));
    // Two transactions queued together form one group: rw:a only moves its text, rw:b also changes its trust.
    const one = s.transaction((tx) => { const [ha, hb] = tx.rawBlobs.putMany(['alpha text', 'beta text'], 10); tx.items.moveTextToRaw('rw:a', ha!); tx.items.moveTextToRaw('rw:b', hb!); });
    const two = s.transaction((tx) => tx.items.patch('rw:b', { trust: 'peer' }));
    await Promise.all([one, two]);
    assert.deepEqual([...seen.flatMap((e) => e.ids)].sort(), ['rw:a', 'rw:b'], 'both still reported as touched (and journaled)');
    assert.deepEqual(seen.flatMap((e) => e.indexNeutral ?? []), ['rw:a']);
    assert.equal(s.items.get('rw:a')!.text, null);
    assert.equal(s.rawBlobs.get(s.items.get('rw:a')!.blobHash!)!.text, 'alpha text');
    await assert.rejects(s.transaction((tx) => tx.items.moveTextToRaw('rw:a', '')), /content address/);
  });

  it('reads the recall index\'s columns alone: the same values as the full rows, in the order asked, missing ids left out', async () => {
    const s = await openStore(tempDir());
    await s.transaction((tx) => {
      tx.items.put(aFact({ id: 'fa:one', created: 5, project: 'alpha', pinned: true, importance: 0.7, tags: ['x'], meta: { k: 1 } }));
      tx.items.put({ id: 'rw:two', created: 3, text: 'two', role: 'user', conversation: 'c', trust: 'peer', untrusted: true, expiresAt: 99 });
    });
    const props = ['id', 'kind', 'text', 'blobHash', 'project', 'projectType', 'conversation', 'trust', 'untrusted', 'secret', 'pinned', 'role',
      'created', 'importance', 'invalidatedAt', 'archivedAt', 'expiresAt'] as const;
    const pick = (it: Item) => Object.fromEntries(props.map((p) => [p, it[p]]));
    const rows = s.items.indexRows(['rw:two', 'fa:none', 'fa:one']);
    assert.deepEqual(rows.map((r) => Object.keys(r).sort()), [[...props].sort(), [...props].sort()], 'only the index columns');
    assert.deepEqual(rows, s.items.getMany(['rw:two', 'fa:one']).map(pick));
    const streamed: string[] = [];
    s.items.forEachIndexRow((r) => { streamed.push(r.id); });
    assert.deepEqual(streamed, ['rw:two', 'fa:one'], 'oldest first, as a rebuild reads them');
  });

  it('journals which ids a write left index-neutral: a later open and another process skip them', async () => {
    const dir = tempDir();
    const quiet = { compactBytes: 1 << 30, compactRatio: 0.5, smallSnapshotBytes: 0, idleCompactMs: 600_000, replayCompactBytes: 1 << 30 };
    const s = await openStore(dir, quiet);
    await s.transaction((tx) => { for (const id of ['rw:a', 'rw:b', 'rw:c']) tx.items.put({ id, created: 1, text: `${id} text`, role: 'user' }); });
    const seq = s.seq;
    const other = await openStore(dir, quiet);
    const remote: StoreChange[] = [];
    other.onDidChange((e) => remote.push(e));
    // Index-neutral: a text moved into the raw record, a recall's access count. rw:c also changes what the index holds.
    await s.transaction((tx) => { const [h] = tx.rawBlobs.putMany(['rw:a text'], 10); tx.items.moveTextToRaw('rw:a', h!); tx.items.touchAccess(['rw:b', 'rw:c'], 11); });
    await s.transaction((tx) => tx.items.patch('rw:c', { trust: 'peer' }));
    assert.deepEqual(s.touchedIdsSince(seq), ['rw:c'], 'only rw:c changed for the index');
    assert.equal(other.refresh(), true);
    assert.deepEqual(remote.map((e) => [[...e.ids].sort(), e.indexNeutral]), [[['rw:a', 'rw:b', 'rw:c'], ['rw:a', 'rw:b']]]);
    await other.close();
    open.splice(open.indexOf(other), 1);
    await s.close();
    open.splice(open.indexOf(s), 1);
    const again = await openStore(dir, quiet);
    assert.ok(again.openReport.recoveredRecords > 0, 'the journal was kept and replayed');
    assert.deepEqual(again.touchedIdsSince(seq), ['rw:c']);
    assert.equal(again.items.get('rw:b')!.accessCount, 1, 'the neutral writes themselves were applied');
    assert.equal(again.items.get('rw:a')!.text, null);
  });

  it('never logs memory text', async () => {
    const logger = new MemoryLogger();
    const s = await openStore(tempDir(), { logger });
    await s.transaction((tx) => tx.items.put(aFact({ text: 'my secret password hunter2' })));
    await s.compact();
    assert.ok(logger.lines.length > 0);
    assert.ok(!JSON.stringify(logger.lines).includes('hunter2'));
  });

  describe('repositories', () => {
    it('filters items by kind, project, conversation, trust, time and recallability', async () => {
      const s = await openStore(tempDir());
      await s.transaction((tx) => {
        tx.items.put({ id: 'vt:semantic/a.md', created: 10, text: 'a', project: 'p1', subkind: 'user' });
        tx.items.put({ id: 'rw:1', created: 20, blobHash: 'h', role: 'user', conversation: 'c1' });
        tx.items.put({ id: 'fa:1', created: 30, text: 'f', trust: 'peer', conversation: 'c1' });
        tx.items.put({ id: 'fa:2', created: 40, text: 'g', secret: true });
        tx.items.put({ id: 'gs:1', created: 50, text: 's', archivedAt: 60 });
        tx.items.put({ id: 'wk:1', created: 55, text: 'w', expiresAt: 100 });
      });
      assert.deepEqual(s.items.list({ kind: 'fact' }).map((i) => i.id), ['fa:1', 'fa:2']);
      assert.deepEqual(s.items.list({ project: 'p1' }).map((i) => i.id), ['vt:semantic/a.md']);
      assert.equal(s.items.list({ project: null }).length, 5);
      assert.deepEqual(s.items.list({ conversation: 'c1', order: 'createdDesc' }).map((i) => i.id), ['fa:1', 'rw:1']);
      assert.deepEqual(s.items.list({ trust: ['peer'] }).map((i) => i.id), ['fa:1']);
      assert.deepEqual(s.items.list({ since: 30, until: 50 }).map((i) => i.id), ['fa:1', 'fa:2']);
      assert.deepEqual(s.items.list({ recallable: true, now: 200 }).map((i) => i.id), ['vt:semantic/a.md', 'rw:1', 'fa:1']);
      assert.deepEqual(s.items.list({ limit: 2, offset: 1 }).map((i) => i.id), ['rw:1', 'fa:1']);
      assert.equal(s.items.count({ kind: ['fact', 'summary'] }), 3);
      assert.deepEqual(s.items.countByKind(), { note: 1, raw: 1, fact: 2, summary: 1, working: 1 });
      assert.equal(s.items.get('vt:semantic/a.md')?.kind, 'note');
      assert.equal(s.items.get('fa:2')?.secret, true);
      const streamed: string[] = [];
      s.items.forEach({}, (i) => { streamed.push(i.id); return streamed.length < 2; });
      assert.deepEqual(streamed, ['vt:semantic/a.md', 'rw:1']);
    });

    it('returns getMany in the order asked and skips missing ids', async () => {
      const s = await openStore(tempDir());
      await s.transaction((tx) => { tx.items.put(aFact({ id: 'fa:x' })); tx.items.put(aFact({ id: 'fa:y' })); });
      assert.deepEqual(s.items.getMany(['fa:y', 'fa:nope', 'fa:x']).map((i) => i.id), ['fa:y', 'fa:x']);
    });

    it('patches only the given fields, counts accesses and deletes with the rows keyed by the item', async () => {
      const s = await openStore(tempDir());
      await s.transaction((tx) => {
        tx.items.put(aFact({ id: 'fa:p', tags: ['a'], meta: { k: 1 } }));
        tx.itemSources.add('fa:p', ['rw:1', 'rw:2']);
        tx.links.set('fa:p', [{ target: 'Other', toId: 'vt:o.md' }]);
        tx.vectorState.mark('e5', 'fa:p', true, 7, 1);
      });
      await s.transaction((tx) => { tx.items.patch('fa:p', { trust: 'quarantined', prevTrust: 'owner', tags: ['a', 'b'] }); tx.items.touchAccess(['fa:p'], 99); });
      const p = s.items.get('fa:p')!;
      assert.equal(p.trust, 'quarantined');
      assert.equal(p.prevTrust, 'owner');
      assert.deepEqual(p.tags, ['a', 'b']);
      assert.deepEqual(p.meta, { k: 1 });
      assert.equal(p.accessCount, 1);
      assert.equal(p.lastAccessed, 99);
      await s.transaction((tx) => tx.items.delete('fa:p'));
      assert.equal(s.items.get('fa:p'), undefined);
      assert.deepEqual(s.itemSources.sourcesOf('fa:p'), []);
      assert.deepEqual(s.links.from('fa:p'), []);
      assert.equal(s.vectorState.get('e5', 'fa:p'), undefined);
    });

    it('stores raw text once per content and counts repeats', async () => {
      const s = await openStore(tempDir());
      const text = 'Ünïcode raw message 🙂 '.repeat(50);
      const h1 = await s.transaction((tx) => tx.rawBlobs.put(text, 1));
      const h2 = await s.transaction((tx) => tx.rawBlobs.put(text, 2));
      assert.equal(h1, h2);
      const blob = s.rawBlobs.get(h1)!;
      assert.equal(blob.text, text);
      assert.equal(blob.seen, 2);
      assert.equal(blob.created, 1);
      assert.equal(blob.rawBytes, Buffer.byteLength(text));
      const st = s.rawBlobs.stats();
      assert.equal(st.blobs, 1);
      assert.equal(st.seen, 2);
      assert.ok(st.storedBytes > 0 && st.storedBytes < st.rawBytes);
    });

    it('keeps sources, links and backlinks', async () => {
      const s = await openStore(tempDir());
      await s.transaction((tx) => {
        tx.itemSources.add('gs:1', ['rw:1', 'rw:2']);
        tx.itemSources.add('fa:1', ['rw:1']);
        tx.links.set('vt:a.md', [{ target: 'B' }, { target: 'C', toId: 'vt:c.md' }]);
      });
      assert.deepEqual(s.itemSources.sourcesOf('gs:1'), ['rw:1', 'rw:2']);
      assert.deepEqual(s.itemSources.derivedFrom('rw:1'), ['fa:1', 'gs:1']);
      assert.deepEqual(s.links.unresolved().map((l) => l.target), ['B']);
      await s.transaction((tx) => tx.links.resolve('B', 'vt:b.md'));
      assert.deepEqual(s.links.backlinks('vt:b.md').map((l) => l.fromId), ['vt:a.md']);
    });

    it('numbers raw-buffer entries per conversation and clears them up to a sequence number', async () => {
      const s = await openStore(tempDir());
      await s.transaction((tx) => {
        for (const [c, t] of [['c1', 'a'], ['c1', 'b'], ['c2', 'x'], ['c1', 'c']]) tx.rawBuffers.append({ conversation: c, role: 'user', text: t, provenance: { provider: 'p' }, at: 1 });
      });
      assert.deepEqual(s.rawBuffers.list('c1').map((e) => [e.seq, e.text]), [[1, 'a'], [2, 'b'], [3, 'c']]);
      assert.deepEqual(s.rawBuffers.conversations().map((c) => [c.conversation, c.entries]), [['c1', 3], ['c2', 1]]);
      await s.transaction((tx) => tx.rawBuffers.clear('c1', 2));
      assert.deepEqual(s.rawBuffers.list('c1').map((e) => e.text), ['c']);
      assert.deepEqual(s.rawBuffers.list('c1')[0].provenance, { provider: 'p' });
    });

    it('keeps conversations, ledger, audit, purge log, quarantines, counters, vector state and meta', async () => {
      const s = await openStore(tempDir());
      await s.transaction((tx) => {
        tx.conversations.put({ id: 'c1', title: 'T', project: 'p', projectType: 'node', language: 'de', created: 1 });
        tx.conversations.addCaptureCall('c1');
        tx.conversations.touch('c1', 9);
        tx.ledger.add({ at: 5, outcome: 'too_short', conversation: 'c1', entryPath: 'participant' });
        tx.audit.add({ at: 6, action: 'forget', itemId: 'fa:1' });
        tx.purgeLog.add({ at: 7, action: 'quarantine.apply', ref: 'q1', record: { rows: { owner: ['fa:1'] } } });
        tx.quarantines.put({ id: 'q1', created: 7, provider: 'x', model: 'm', rangeFrom: null, rangeTo: null, reason: null, counts: { raw: 1 }, detail: {} });
        tx.quarantines.addRows([{ quarantineId: 'q1', itemId: 'fa:1', prevTrust: 'owner', noteFrom: null, noteTo: null }]);
        tx.counters.add('saveFilter.too_short');
        tx.counters.add('saveFilter.too_short', 2);
        tx.counters.set('other', 5);
        tx.items.put(aFact({ id: 'fa:v1' }));
        tx.items.put(aFact({ id: 'fa:v2' }));
        tx.vectorState.mark('e5', 'fa:v1', true, 0, 1);
        tx.meta.set('vault.indexedAt', '123');
      });
      assert.equal(s.conversations.get('c1')?.captureCalls, 1);
      assert.equal(s.conversations.get('c1')?.lastTurn, 9);
      assert.equal(s.ledger.list({ conversation: 'c1' })[0].outcome, 'too_short');
      assert.equal(s.audit.list({ action: 'forget' })[0].itemId, 'fa:1');
      assert.deepEqual(s.purgeLog.list('q1')[0].record, { rows: { owner: ['fa:1'] } });
      assert.equal(s.quarantines.get('q1')?.status, 'active');
      assert.deepEqual(s.quarantines.holding('fa:1'), ['q1']);
      await s.transaction((tx) => tx.quarantines.markReleased('q1', 8));
      assert.equal(s.quarantines.get('q1')?.status, 'released');
      assert.deepEqual(s.counters.all('saveFilter.'), { 'saveFilter.too_short': 3 });
      assert.deepEqual(s.vectorState.pending('e5'), ['fa:v2']);
      assert.equal(s.meta.get('vault.indexedAt'), '123');
      await assert.rejects(s.transaction((tx) => tx.meta.set('schema_version', '9')), (e) => isMemoryError(e, 'E_BAD_INPUT'));
    });
  });
});

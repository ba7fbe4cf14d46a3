// A recall index loaded from its files (image + vector file) answers exactly as the index that saved
// them and as one rebuilt from the same items; older file formats still load; the id table behaves as a Map.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashEmbedder } from '../../../src/engine/embed/hashEmbedder';
import { nullLogger } from '../../../src/engine/host';
import { IdList, IdTable } from '../../../src/engine/recall/idTable';
import { type IndexCandidate, type IndexedItem, type IndexQuery, RecallIndex } from '../../../src/engine/recall/recallIndex';
import { VectorIndex } from '../../../src/engine/recall/vectorIndex';
import { toV1, toV3 } from './oldFormats';

const NOW = Date.UTC(2026, 5, 1);
const WORDS = ('kestrel orders kafka topic retries pnpm workspace cache build deploy staging lambda postgres index vacuum '
  + 'migration schema rollback canary feature flag budget latency socket gateway token rotate secret vault ledger invoice '
  + 'refund webhook cron batch shard replica quorum raft leader follower snapshot journal compaction bloom filter').split(' ');

/** A deterministic pseudo-random generator (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function items(n: number, seed = 7): IndexedItem[] {
  const r = rng(seed);
  const out: IndexedItem[] = [];
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 4 + Math.floor(r() * 10) }, () => WORDS[Math.floor(r() * WORDS.length)]!);
    const rawKind = r() < 0.7;
    const project = r() < 0.4 ? 'alpha' : r() < 0.5 ? 'beta' : null;
    out.push({
      id: rawKind ? `rw:${i.toString(36)}-${Math.floor(r() * 1e9).toString(16)}` : `fa:${i}`, kind: rawKind ? 'raw' : 'fact',
      text: `${words.join(' ')} item${i}`, project, projectType: project ? null : r() < 0.3 ? 'node' : null,
      conversation: rawKind ? `c${Math.floor(r() * 40)}` : null, trust: r() < 0.05 ? 'quarantined' : 'owner', untrusted: r() < 0.05,
      secret: r() < 0.03, pinned: false, role: rawKind ? (r() < 0.5 ? 'user' : 'assistant') : null, created: NOW - (n - i) * 1000,
      importance: null, invalidated: r() < 0.02, archived: false, expiresAt: null,
    });
  }
  return out;
}

async function build(list: readonly IndexedItem[], removeEvery = 0): Promise<RecallIndex> {
  const ix = new RecallIndex(new HashEmbedder(), nullLogger);
  list.forEach((it, i) => {
    ix.upsert(it);
    if (removeEvery && i % removeEvery === removeEvery - 1) ix.remove(list[i - 3]!.id);
  });
  await ix.embedPending();
  return ix;
}

const QUERIES: Partial<IndexQuery>[] = [
  { text: 'kestrel kafka retries', scope: { project: 'alpha' } },
  { text: 'postgres vacuum index migration', scope: { project: 'beta' } },
  { text: 'rotate the vault token secret', scope: {}, includeSecrets: true },
  { text: 'raft leader snapshot journal compaction', scope: { projectType: 'node' }, includeUntrusted: true },
  { text: 'item17 canary rollback', scope: { project: 'alpha' }, conversation: 'c3' },
  { text: 'refund webhook invoice ledger', scope: { project: 'beta' }, kinds: ['fact'] },
];

async function answers(ix: RecallIndex): Promise<IndexCandidate[][]> {
  const out: IndexCandidate[][] = [];
  for (const q of QUERIES) out.push(await ix.search({ now: NOW, k: 20, ...q } as IndexQuery));
  return out;
}

/** Hits as id → scores (doc numbers and the order of exact ties may differ between indexes). */
const byId = (hits: IndexCandidate[][]) => hits.map((h) => Object.fromEntries(h.map((c) => [c.id, [c.relevance, c.keywordScore, c.vectorScore]])));

describe('recall index load (image + vector file)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'ixload-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function saveAndLoad(ix: RecallIndex): Promise<RecallIndex> {
    // saveImage streams the same bytes serialize builds in memory (the keeper saves with it).
    ix.saveImage(join(dir, 'recall.idx'), 9);
    assert.ok(readFileSync(join(dir, 'recall.idx')).equals(ix.serialize(9)), 'saveImage writes serialize()\'s bytes');
    ix.saveVectors(join(dir, 'v.bin'));
    const back = new RecallIndex(new HashEmbedder(), nullLogger);
    back.restore(readFileSync(join(dir, 'recall.idx')));
    assert.equal(back.adoptVectors(join(dir, 'v.bin')), ix.vectorCount);
    assert.equal(back.pendingVectorCount, 0);
    return back;
  }

  it('answers every query exactly as the index that saved it and as one rebuilt from the same items', async () => {
    const list = items(3000);
    const original = await build(list, 10);
    const loaded = await saveAndLoad(original);
    assert.equal(loaded.size, original.size);
    assert.equal(loaded.vectorCount, original.vectorCount);
    const want = await answers(original);
    assert.ok(want.every((h) => h.length > 0), 'every query finds something');
    assert.deepEqual(await answers(loaded), want);
    // Rebuilt from the items that survived, in a fresh numbering.
    const alive = new Set(list.map((it) => it.id).filter((id) => original.has(id)));
    const rebuilt = await build(list.filter((it) => alive.has(it.id)));
    assert.deepEqual(byId(await answers(loaded)), byId(await answers(rebuilt)));
  });

  it('stays identical after more writes and removes on the loaded index (id table, postings, vectors)', async () => {
    const list = items(2000, 11);
    const original = await build(list.slice(0, 1500), 7);
    const loaded = await saveAndLoad(original);
    for (const ix of [original, loaded]) {
      for (const it of list.slice(1500)) ix.upsert(it);
      for (let i = 0; i < 1500; i += 5) ix.remove(list[i]!.id);
      ix.upsert({ ...list[1]!, text: 'kestrel kafka retries moved item' });
      await ix.embedPending();
    }
    assert.equal(loaded.size, original.size);
    for (const it of list) assert.equal(loaded.has(it.id), original.has(it.id), it.id);
    assert.deepEqual(await answers(loaded), await answers(original));
    // And round-trips once more (the adopted table and posting views are saved again). Saving compacts
    // the keyword side (tombstones leave the idf), so `again` is compared with the index that saved it.
    const again = await saveAndLoad(loaded);
    assert.deepEqual(await answers(again), await answers(loaded));
  });

  it('never gives a doc number reused before the adoption the vector of the item that had it', async () => {
    const list = items(300, 13);
    const original = await build(list);
    writeFileSync(join(dir, 'recall.idx'), original.serialize(2));
    original.saveVectors(join(dir, 'v.bin'));
    const back = new RecallIndex(new HashEmbedder(), nullLogger);
    back.restore(readFileSync(join(dir, 'recall.idx')));
    const gone = list.find((it) => original.hasVector(it.id))!;
    back.remove(gone.id); // a catch-up at open: the item left, another took its doc number, same text
    back.upsert({ ...gone, id: 'fa:newcomer' });
    back.adoptVectors(join(dir, 'v.bin'));
    assert.equal(back.hasVector('fa:newcomer'), false);
    assert.equal(back.pendingVectorCount, 1, 'the newcomer is embedded, not handed the old row');
    assert.equal(back.vectorCount, original.vectorCount - 1);
  });

  it('keeps finding items by id after a restore over a restore and after a clear', async () => {
    const list = items(200, 17);
    const img = (await build(list)).serialize(3);
    const back = new RecallIndex(new HashEmbedder(), nullLogger);
    back.restore(img);
    back.restore(img);
    assert.ok(list.every((it) => back.has(it.id)));
    back.clear();
    assert.equal(back.has(list[0]!.id), false);
    back.upsert(list[0]!);
    back.upsert(list[1]!);
    assert.ok(back.has(list[0]!.id) && back.has(list[1]!.id) && back.size === 2);
    back.remove(list[0]!.id);
    assert.ok(!back.has(list[0]!.id) && back.has(list[1]!.id));
  });

  it('adopts vectors saved under another numbering by id (and only where text and partition match)', async () => {
    const list = items(600, 3);
    const original = await build(list);
    original.saveVectors(join(dir, 'v.bin'));
    const other = new RecallIndex(new HashEmbedder(), nullLogger);
    for (const it of [...list].reverse()) other.upsert(it.id === list[5]!.id ? { ...it, text: 'changed text entirely' } : it);
    const adopted = other.adoptVectors(join(dir, 'v.bin'));
    assert.equal(adopted, original.vectorCount - (original.hasVector(list[5]!.id) ? 1 : 0));
    assert.ok(!other.hasVector(list[5]!.id));
    await other.embedPending();
    assert.deepEqual(byId(await answers(other)), byId(await answers(await build([...list].reverse().map((it) => (it.id === list[5]!.id ? { ...it, text: 'changed text entirely' } : it))))));
  });

  it('still restores a version 1 image (ids as JSON, no id table)', async () => {
    const original = await build(items(500, 5), 6);
    const v2 = original.serialize(4);
    const back = new RecallIndex(new HashEmbedder(), nullLogger);
    assert.deepEqual(back.restore(toV1(v2)), { seq: 4, docs: original.size });
    assert.equal(back.restoredVersion, 1);
    original.saveVectors(join(dir, 'v.bin'));
    back.adoptVectors(join(dir, 'v.bin'));
    assert.deepEqual(await answers(back), await answers(original));
  });

  it('refuses an image whose id table or ids do not add up, and any flipped byte (E_CORRUPT)', async () => {
    const img = (await build(items(200, 9))).serialize(1);
    const back = new RecallIndex(new HashEmbedder(), nullLogger);
    for (const at of [3, 20, 200, Math.floor(img.length / 2), img.length - 2]) {
      const bad = Buffer.from(img);
      bad[at] ^= 0x41;
      assert.throws(() => back.restore(bad), { code: 'E_CORRUPT' }, `byte ${at}`);
      assert.equal(back.size, 0);
    }
    assert.throws(() => back.restore(img.subarray(0, img.length - 9)), { code: 'E_CORRUPT' });
    // A header claiming a billion docs is refused before anything is allocated for them.
    const metaLen = img.readInt32LE(8);
    const meta = img.toString('utf8', 16, 16 + metaLen);
    const huge = meta.replace(/"docs":\d+/, '"docs":1000000000');
    const forged = Buffer.concat([img.subarray(0, 8), Buffer.alloc(4), img.subarray(12, 16), Buffer.from(huge), img.subarray(16 + metaLen)]);
    forged.writeInt32LE(Buffer.byteLength(huge), 8);
    assert.throws(() => back.restore(forged), { code: 'E_CORRUPT' });
  });
});

describe('vector file formats', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'vfile-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('loads a format 3 file (row-wise, JSON item map) as before, and the same rows as format 4', () => {
    const D = 16;
    const idx = new VectorIndex('hash-v1-16', D);
    const r = rng(2);
    const vec = () => { const v = Float32Array.from({ length: D }, () => r() - 0.5); const n = Math.hypot(...v); return v.map((x) => x / n); };
    for (let i = 0; i < 500; i++) idx.upsert(i * 2, i % 3 === 0 ? 'p:alpha' : i % 3 === 1 ? 'global' : 't:node', vec());
    idx.remove(10);
    const map = { ids: Array.from({ length: 1000 }, (_, d) => (d % 2 ? null : `fa:${d}`)), hashes: Array.from({ length: 1000 }, (_, d) => d * 7 + 1) };
    idx.save(join(dir, 'v4.bin'), map);
    writeFileSync(join(dir, 'v3.bin'), toV3(readFileSync(join(dir, 'v4.bin')), D, map));
    const a = VectorIndex.load(join(dir, 'v4.bin'), 'hash-v1-16', D);
    const b = VectorIndex.load(join(dir, 'v3.bin'), 'hash-v1-16', D);
    assert.equal(a.fileVersion, 4);
    assert.equal(b.fileVersion, 3);
    assert.deepEqual(a.itemMap!.ids(), b.itemMap!.ids());
    assert.deepEqual(a.itemMap!.hashes, b.itemMap!.hashes);
    assert.equal(a.itemMap!.ids()[0], 'fa:0');
    assert.equal(a.itemMap!.ids()[1], '');
    assert.equal(a.size, 499);
    for (let i = 0; i < 20; i++) {
      const q = vec();
      const parts = ['global', 'p:alpha', 't:node'];
      assert.deepEqual(a.search(q, parts, 10), idx.search(q, parts, 10));
      assert.deepEqual(b.search(q, parts, 10), idx.search(q, parts, 10));
    }
    assert.deepEqual(a.get(4), idx.get(4));
    const exact = VectorIndex.load(join(dir, 'v4.bin'), 'hash-v1-16', D, { int8: false });
    const v = exact.get(4)!, w = idx.get(4)!;
    for (let i = 0; i < D; i++) assert.ok(Math.abs(v[i]! - w[i]!) < 1e-6);
  });

  it('reports a duplicate doc id or a cut block as E_CORRUPT', () => {
    const D = 16;
    const idx = new VectorIndex('hash-v1-16', D);
    idx.upsert(1, 'global', new Float32Array(D).fill(0.25));
    idx.upsert(2, 'p:x', new Float32Array(D).fill(0.25));
    const file = join(dir, 'v.bin');
    idx.save(file);
    const buf = readFileSync(file);
    const rowsAt = buf.length - 2 * (8 + D); // two blocks of one row: [id][scale][16 bytes]
    const dup = Buffer.from(buf);
    dup.writeInt32LE(1, rowsAt + 8 + D); // the second block's doc id := 1
    writeFileSync(file, dup);
    assert.throws(() => VectorIndex.load(file, 'hash-v1-16', D), { code: 'E_CORRUPT' });
    writeFileSync(file, buf.subarray(0, buf.length - 4));
    assert.throws(() => VectorIndex.load(file, 'hash-v1-16', D), { code: 'E_CORRUPT' });
  });
});

describe('IdList', () => {
  it('reads ids from the saved blob one at a time, overlays changes, and gives the blob back only while unchanged', () => {
    const list = new IdList();
    const blob = Buffer.from(['rw:a', '', 'fa:ü-1', 'en:c'].join('\0'), 'utf8');
    assert.equal(list.load(blob, 3), false, 'a count that does not match');
    assert.equal(list.load(blob, 5), false);
    assert.ok(list.load(blob, 4));
    assert.deepEqual(list.toArray(), ['rw:a', undefined, 'fa:ü-1', 'en:c']);
    assert.deepEqual([0, 1, 2, 3, 4].map((d) => list.has(d)), [true, false, true, true, false]);
    assert.equal(list.blob, blob);
    list.set(1, 'vt:new.md');
    list.set(3, undefined);
    list.set(5, 'rw:z');
    assert.equal(list.length, 6);
    assert.deepEqual(list.toArray(), ['rw:a', 'vt:new.md', 'fa:ü-1', undefined, undefined, 'rw:z']);
    assert.equal(list.blob, null);
    assert.equal(list.baseGet(3), 'en:c', 'the saved id stays readable');
    assert.deepEqual([0, 1, 3, 5].map((d) => list.isBase(d)), [true, false, false, false]);
    assert.ok(new IdList().load(Buffer.alloc(0), 0));
    assert.deepEqual(IdList.of(['a', undefined]).toArray(), ['a', undefined]);
  });

  it('keeps appended ids in its byte arena (no string per id), compares bytes in `is`, and encodes the whole list as `blob` while nothing changed', () => {
    const blob = Buffer.from(['rw:a', '', 'fa:ü-1'].join('\0'), 'utf8');
    const list = new IdList();
    assert.ok(list.load(blob, 3));
    list.set(3, 'rw:b');
    list.set(5, 'en:ß'); // a gap: doc 4 is free
    list.set(6, 'rw:c');
    assert.equal(list.length, 7);
    assert.deepEqual(list.toArray(), ['rw:a', undefined, 'fa:ü-1', 'rw:b', undefined, 'en:ß', 'rw:c']);
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7].map((d) => list.has(d)), [true, false, true, true, false, true, true, false]);
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6].map((d) => list.isBase(d)), [true, true, true, false, false, false, false]);
    // `is` agrees with get() for ASCII, non-ASCII, free, out-of-range and same-length-other ids.
    for (const id of ['rw:a', 'rw:b', 'rw:c', 'fa:ü-1', 'en:ß', 'en:s', 'rw:d', 'fa:u-1', '', 'rw:bb']) {
      for (let d = -1; d <= 8; d++) assert.equal(list.is(d, id), list.get(d) === id, `is(${d}, ${id})`);
    }
    // The whole list's encoding: what a load of the same ids would adopt.
    const whole = list.blob!;
    assert.ok(whole);
    assert.equal(whole.toString('utf8'), ['rw:a', '', 'fa:ü-1', 'rw:b', '', 'en:ß', 'rw:c'].join('\0'));
    const again = new IdList();
    assert.ok(again.load(whole, 7));
    assert.deepEqual(again.toArray(), list.toArray());
    // A change to an appended doc goes to the overlay (and the blob is no longer the list's).
    list.set(3, undefined);
    list.set(6, 'rw:z');
    assert.deepEqual(list.toArray(), ['rw:a', undefined, 'fa:ü-1', undefined, undefined, 'en:ß', 'rw:z']);
    assert.equal(list.is(6, 'rw:c'), false);
    assert.equal(list.is(6, 'rw:z'), true);
    assert.equal(list.blob, null);
    // From empty, many appends (the arena grows) and a random model of sets.
    const big = new IdList();
    const model: (string | undefined)[] = [];
    const r = rng(11);
    for (let step = 0; step < 30000; step++) {
      const d = r() < 0.8 ? model.length : Math.floor(r() * (model.length + 3));
      const id = r() < 0.1 ? undefined : `${r() < 0.05 ? 'nö' : 'rw'}:${Math.floor(r() * 1e9).toString(36)}`;
      big.set(d, id);
      while (model.length < d) model.push(undefined);
      model[d] = id;
    }
    assert.equal(big.length, model.length);
    assert.deepEqual(big.toArray(), model);
    for (let d = 0; d < model.length; d += 7) assert.equal(big.is(d, model[d] ?? 'x'), model[d] !== undefined);
  });
});

describe('IdTable', () => {
  it('behaves as a Map under random sets, deletes and growth, and adopts only sound saved slots', () => {
    const ids: (string | undefined)[] = [];
    const t = new IdTable((d) => ids[d]);
    const model = new Map<string, number>();
    const r = rng(5);
    for (let step = 0; step < 20000; step++) {
      const k = `rw:${Math.floor(r() * 3000)}`;
      if (r() < 0.65) {
        let doc = model.get(k);
        if (doc === undefined) { doc = ids.length; ids.push(k); }
        t.set(k, doc);
        model.set(k, doc);
      } else {
        const doc = model.get(k);
        assert.equal(t.delete(k), doc !== undefined);
        if (doc !== undefined) { model.delete(k); ids[doc] = undefined; }
      }
    }
    assert.equal(t.size, model.size);
    for (let i = 0; i < 3000; i++) assert.equal(t.get(`rw:${i}`), model.get(`rw:${i}`));
    const copy = IdTable.adopt(Int32Array.from(t.raw), ids.length, model.size, (d) => ids[d])!;
    assert.ok(copy);
    for (const [k, d] of model) assert.equal(copy.get(k), d);
    assert.equal(IdTable.adopt(Int32Array.from(t.raw), ids.length, model.size + 1, (d) => ids[d]), null, 'a count that does not add up');
    const bad = Int32Array.from(t.raw);
    bad[bad.findIndex((x) => x === -1)] = ids.length + 5;
    assert.equal(IdTable.adopt(bad, ids.length, model.size + 1, (d) => ids[d]), null, 'a slot pointing at no id');
  });
});
